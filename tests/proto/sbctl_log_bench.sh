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

# ---- files in child order, one child's logs, BENCH by name or digest prefix
# (the files used to come in strcmp order: 0, 1, 10, 11, 2, ...)
write_spec o.yaml "name: logorder
command: [sh, -c, 'exit 0']
parameters:
  x: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]"
"$SBCTL" submit o.yaml >/dev/null 2>&1
odir=$(realpath "$SB_ROOT"/logorder-*)
odigest=$("$SBCTL" plan o.yaml --json | jq -r .benchmark.digest)
okey=$odir/keys/hmac.key
mkdir -p "$odir/events/0"
for c in 11 10 9 8 7 6 5 4 3 2 1 0; do
	"$tamper" write "$okey" "$odir/events/0/$c.a0.j1234.r0.log" 2 "$c" 0 "$odigest"
done
# child 3 was requeued twice (restarts 2 and 10), then ran a second attempt
"$tamper" write "$okey" "$odir/events/0/3.a0.j1234.r10.log" 2 3 0 "$odigest"
"$tamper" write "$okey" "$odir/events/0/3.a0.j1234.r2.log" 2 3 0 "$odigest"
"$tamper" write "$okey" "$odir/events/0/3.a1.j1240.r0.log" 2 3 1 "$odigest"
order="0.a0.j1234.r0.log 1.a0.j1234.r0.log 2.a0.j1234.r0.log 3.a0.j1234.r0.log
3.a0.j1234.r2.log 3.a0.j1234.r10.log 3.a1.j1240.r0.log 4.a0.j1234.r0.log
5.a0.j1234.r0.log 6.a0.j1234.r0.log 7.a0.j1234.r0.log 8.a0.j1234.r0.log
9.a0.j1234.r0.log 10.a0.j1234.r0.log 11.a0.j1234.r0.log"
order=$(echo $order)
"$SBCTL" log "$odir" --json > out 2> err
expect "15 agent logs verify" "$?" 0
expect "JSON: files in child order, then submissions/" \
	"$(jq -r 'select(.summary.path) | .summary.path' out | sed 's|.*/||' | head -n 15 | tr '\n' ' ')" "$order "
expect "JSON: the submissions log last" \
	"$(jq -r 'select(.summary.path) | .summary.path' out | tail -n 1 | grep -c "^$odir/submissions/")" 1
"$SBCTL" log "$odir" > out 2> err
expect "text: files in child order" \
	"$(grep '^== ' out | sed 's|.*/||' | head -n 15 | tr '\n' ' ')" "$order "

"$SBCTL" log "$odir" --child 3 --json > out 2> err
expect "--child 3 verifies" "$?" 0
expect "--child 3: only child 3's files, in order" \
	"$(jq -r 'select(.summary.path) | .summary.path' out | sed 's|.*/||' | tr '\n' ' ')" \
	"3.a0.j1234.r0.log 3.a0.j1234.r2.log 3.a0.j1234.r10.log 3.a1.j1240.r0.log "
expect "--child 3: only child 3's records" "$(jq -r 'select(.type) | .child' out | sort -u)" 3
expect "--child 3: totals" "$(tail -n 1 out)" \
	'{"format":1,"summary":{"files":4,"records":8,"verified":8,"tail":"ok"}}'
"$SBCTL" log "$odir" --child=11 > out 2> err
expect "--child=11, text" "$(grep -c '^== ' out) $(tail -n 1 out)" \
	"1 total: 1 files, 2 records, 2 verified, tail ok"
"$SBCTL" log "$odir" --child 99 > out 2> err
expect "--child 99 is not a child" "$?" 2
expect_match "--child 99: says why" "$(cat err)" "has children 0 to 11, not 99"
expect "--child 99: nothing listed" "$(cat out)" ""
"$SBCTL" log "$odir" --child -1 > out 2> err
expect "--child -1" "$?" 2
expect_match "--child -1: says why" "$(cat err)" "child index .*not '-1'"
for bad in +3 3x '' 99999999999999999999; do
	"$SBCTL" log "$odir" --child "$bad" >/dev/null 2>&1
	expect "--child '$bad'" "$?" 2
done
"$SBCTL" log "$odir/events/0/3.a0.j1234.r0.log" --child 3 >/dev/null 2>&1
expect "--child with one file" "$?" 2

"$SBCTL" log "$odir" --child 3 --json > want 2>/dev/null
"$SBCTL" log logorder --child 3 --json > out 2> err
expect "BENCH by name" "$?" 0
expect "BENCH by name: the same listing" "$(cmp -s want out && echo same)" same
"$SBCTL" log "${odigest:0:10}" --child 3 --json > out 2> err
expect "BENCH by digest prefix" "$?" 0
expect "BENCH by digest prefix: the same listing" "$(cmp -s want out && echo same)" same
"$SBCTL" log nosuchbench > out 2> err
expect "unknown BENCH" "$?" 2
expect_match "unknown BENCH: says why" "$(cat err)" "no benchmark 'nosuchbench'"
"$SBCTL" log logorder --child 12 >/dev/null 2>&1
expect "BENCH by name, --child 12" "$?" 2

exit $((T_FAILS > 0))
