#!/usr/bin/env bash
# sbctl log in a real benchmark directory (made by sbctl submit against the
# fake Slurm, with sbatch failing so that no job runs): the key comes from
# keys/, and a log that names another benchmark is foreign.
: "${SB_BUILD:?}"
. "$SB_SRC/tests/e2e/lib.sh"
tamper=$SB_BUILD/tests/sbtamper

write_spec s.yaml "name: logbench
command: [sh, -c, 'exit 0']
parameters:
  x: [1, 2]"
shim sbatch 'exit 1'
"$SBCTL" submit s.yaml >/dev/null 2>&1
dir=$(echo "$SB_ROOT"/logbench-*)
digest=$("$SBCTL" plan s.yaml --json | jq -r .benchmark.digest)
expect "benchmark directory made" "$([ -f "$dir/benchmark.msgpack" ] && echo yes)" yes

"$tamper" write "$dir/keys/hmac.key" "$dir/events/c0.log" 3 0 0 "$digest"
"$SBCTL" log "$dir" --json > out 2> err
expect "own benchmark's log verifies" "$?" 0
# the agent's log, and sbctl's own submissions log (intent, submit_failed)
expect "overall summary" "$(tail -n 1 out)" \
	'{"format":1,"summary":{"files":2,"records":5,"verified":5,"tail":"ok"}}'
expect "sbctl's own records" "$(jq -r 'select(.type) | .type' out | grep -c submit)" 1
expect "no warning" "$(cat err)" ""

# a log of another benchmark, signed with this benchmark's key
"$tamper" write "$dir/keys/hmac.key" "$dir/events/c1.log" 3 1 0
"$SBCTL" log "$dir" --json > out 2> err
expect "another benchmark's log is a problem" "$?" 3
expect "it is foreign" "$(grep '"path":"'"$dir"'/events/c1.log"' out | grep -c '"tail":"foreign"')" 1
expect "overall tail" "$(tail -n 1 out | jq -r .summary.tail)" foreign
expect_match "stderr names the record" "$(cat err)" \
	"c1.log: record 0 at byte 0: record belongs to another benchmark, child or run: benchmark differs"
# from below the benchmark directory, and for the one file
"$SBCTL" log "$dir/runs" --json > out 2>/dev/null
expect "from runs/" "$(tail -n 1 out | jq -r .summary.tail)" foreign
"$SBCTL" log "$dir/events/c0.log" >/dev/null 2>&1
expect "one good file" "$?" 0
"$SBCTL" log "$dir/events/c1.log" >/dev/null 2>&1
expect "one foreign file" "$?" 3

exit $((T_FAILS > 0))
