#!/bin/bash
# sbctl status and sbctl wait on the fake Slurm, the ordinary classes:
# succeeded, failed (exit code, signal), partial, running, pending; the
# exit codes (0, 3, 2, 1); wait's timeout; byte-identical --json whatever
# the order of the log files and without the local index; --offline; and
# reconciled outcomes that survive the loss of accounting.
. "$(dirname "$0")/lib.sh"

# finished jobs leave squeue at once (MinJobAge 0): once accounting loses a
# job, only the outcome status recorded remembers it
export SB_FAKE_MIN_JOB_AGE=0

# -- running and pending: one child at a time -------------------------------
tdir=$(submit_spec throttle "name: throttle
command: [sleep, '30']
parameters:
  x: [1, 2]
heartbeat: 1
slurm: {array_throttle: 1}")
ta=$(array_of throttle)
wait_for 10 started "$tdir" 0
st t.json "$tdir"
expect "running/pending: exit 3" "$?" 3
expect_child t.json 0 running '^RUNNING on node1$'
# sacct rows carry no reason: the one squeue gives
expect_child t.json 1 pending '^PENDING \(JobArrayTaskLimit\)$'
expect "running/pending: counts" "$(jq -c '[.counts.running, .counts.pending, ([.counts[]]|add)]' t.json)" "[1,1,2]"
expect "running/pending: pending child has no log" "$(jqf t.json '.children[1].log')" null
expect "running/pending: job ids" "$(jq -r '[.children[].job_id]|join(" ")' t.json)" "${ta}_0 ${ta}_1"
# wait gives up at its timeout with exit 1
start=$(date +%s%N)
"$SBCTL" wait "$tdir" --timeout 1 --interval 0.2 > w.out 2> w.err
expect "wait: timeout exits 1" "$?" 1
took=$(( ($(date +%s%N) - start) / 1000000 ))
expect_match "wait: gave up after about 1 s (${took} ms)" "$took" '^(9[0-9]{2}|1[0-9]{3}|2[0-4][0-9]{2})$'
expect_match "wait: says why" "$(cat w.err)" 'timed out after 1 s'
# wait polls gently: with the default interval (30 s) a 2 s wait asks sacct
# at its start and once more at the timeout, not in a loop
shim sacct ''
"$SBCTL" wait "$tdir" --timeout 2 > /dev/null 2>&1
expect "wait: default interval, timeout exits 1" "$?" 1
expect "wait: two sacct calls in 2 s with the default interval" "$(count_calls sacct)" 2
rm "$SHIM/sacct"
scancel "$ta"

# -- every child succeeds ----------------------------------------------------
okdir=$(submit_spec ok "name: ok
command: [sh, -c, 'echo {x} > out.txt']
parameters:
  x: [1, 2]
results: [out.txt]")
"$SBCTL" wait "$okdir" --interval 0.2 > ow.out
expect "wait: all succeeded exits 0" "$?" 0
st o.json "$okdir" --settle 0
expect "succeeded: status exits 0" "$?" 0
expect "succeeded: classes" "$(classes o.json)" "0:succeeded 1:succeeded"
expect "succeeded: no reason" "$(jq -c '[.children[].reason]' o.json)" "[null,null]"
expect "succeeded: scheduler consulted" "$(jqf o.json .scheduler)" consulted
expect "succeeded: format" "$(jqf o.json .format)" 1
expect "succeeded: state and exit" "$(jq -c '[.children[0] | .scheduler_state, .exit_code, .signal, .attempt]' o.json)" \
	'["COMPLETED",0,null,0]'
expect "succeeded: all twelve classes counted" "$(jq -c '.counts|keys_unsorted' o.json)" \
	'["succeeded","failed","killed","incomplete","stale","missing","partial","inconsistent","invalid","pending","running","stopped"]'
"$SBCTL" status "$okdir" > o.txt
expect "succeeded: human exit 0" "$?" 0
expect_match "succeeded: human summary" "$(head -n 2 o.txt)" \
	"^ok \\([0-9a-f]{12}\\): 2 children, scheduler consulted
  succeeded +2$"
expect "succeeded: nothing listed as failing" "$(grep -c 'did not succeed' o.txt)" 0

# -- failed, partial, succeeded side by side --------------------------------
write_spec mixed.yaml "name: mixed
command: [sh, -c, 'case {x} in ok) echo ok > out.txt;; fail) echo no > out.txt; exit 3;; partial) exit 0;; sig) kill -SEGV \$\$;; esac']
parameters:
  x: [ok, fail, partial, sig]
results: [out.txt]"
"$SBCTL" submit mixed.yaml --json > mixed.submit.json
dir=$(jqf mixed.submit.json .benchmark.dir)
digest=$(jqf mixed.submit.json .benchmark.digest)
ma=$(array_of mixed)
"$SBCTL" wait "$dir" --interval 0.2 --settle 0 > mw.out
expect "wait: returns status's code 3 when not all succeeded" "$?" 3
expect_match "wait: prints the summary" "$(cat mw.out)" '  failed +2'
st m1.json "$dir" --settle 0
expect "mixed: exit 3" "$?" 3
expect_child m1.json 0 succeeded '^$'
expect_child m1.json 1 failed '^exit 3$'
expect_child m1.json 2 partial "^exit 0, but result 'out.txt' was missing at finish$"
expect_child m1.json 3 failed '^killed by signal 11$'
expect "mixed: exit codes and signals" "$(jq -c '[.children[] | [.exit_code, .signal]]' m1.json)" \
	'[[0,null],[3,null],[0,null],[null,11]]'
expect "mixed: params" "$(jq -c '[.children[].params.x]' m1.json)" '["ok","fail","partial","sig"]'
expect "mixed: child digests are the plan's" "$(jq -c '[.children[].digest]' m1.json)" \
	"$("$SBCTL" plan mixed.yaml --json | jq -c '[.children[].digest]')"
expect "mixed: attempts" "$(jq -c '.children[1].attempts' m1.json)" \
	"[{\"attempt\":0,\"job_id\":\"${ma}_1\",\"class\":\"failed\",\"reason\":\"exit 3\"}]"
expect "mixed: the first status recorded the four outcomes, in one outcomes record" \
	"$(for f in "$dir"/submissions/*.log; do "$SBCTL" log "$f" --json; done |
	   jq -r 'select(.type=="outcomes") | .fields as $f | .outcomes[] |
		  [$f, .] | transpose | map({(.[0]): .[1]}) | add | "\(.child_index):\(.state)"' |
	   sort | tr '\n' ' ')" \
	"0:COMPLETED 1:FAILED 2:COMPLETED 3:FAILED "
expect "mixed: an outcomes record names its columns" \
	"$(for f in "$dir"/submissions/*.log; do "$SBCTL" log "$f" --json; done |
	   jq -c 'select(.type=="outcomes") | .fields')" \
	'["attempt_index","child_index","job","state","exit_code","signal","end","start","submit"]'


# -- determinism ---------------------------------------------------------------
st m2.json "$dir" --settle 0
st m3.json "$dir" --settle 0
expect "determinism: two runs give the same bytes" "$(cmp m2.json m3.json && echo same)" same
# the log files back in another order (same names, same shard)
mkdir shuffled
for round in 1 2 3; do
	mv "$dir"/events/0/*.log shuffled/
	for f in $(ls shuffled | shuf); do mv "shuffled/$f" "$dir/events/0/"; done
	st m4.json "$dir" --settle 0
	expect "determinism: shuffled log files (round $round) give the same bytes" "$(cmp m2.json m4.json && echo same)" same
done
st m6.json mixed --settle 0
expect "BENCH by name: same bytes" "$(cmp m2.json m6.json && echo same)" same
st m7.json "${digest:0:8}" --settle 0
expect "BENCH by digest prefix: same bytes" "$(cmp m2.json m7.json && echo same)" same
rm -f "$SB_INDEX"
st m5.json "$dir" --settle 0
expect "determinism: a fresh process without the local index gives the same bytes" \
	"$(cmp m2.json m5.json && echo same)" same
expect "determinism: the index was rebuilt" "$([ -f "$SB_INDEX" ] && echo yes)" yes
st off.json "$dir" --offline
expect "offline: exit 3" "$?" 3
expect "offline: scheduler offline" "$(jqf off.json .scheduler)" offline
expect "offline: same classes (the outcomes were recorded)" "$(classes off.json)" "$(classes m2.json)"
expect "offline: same reasons" "$(jq -c '[.children[].reason]' off.json)" "$(jq -c '[.children[].reason]' m2.json)"

# -- reconciled outcomes survive the loss of accounting ----------------------
sbfake lose "$ma" > /dev/null
expect "accounting lost the jobs" "$(sacct -P -n -X -j "$ma" --format=JobID | wc -l)" 0
st lost.json "$dir" --settle 0
expect "lost accounting: exit 3" "$?" 3
expect "lost accounting: the same bytes as before" "$(cmp m2.json lost.json && echo same)" same
sbfake dbdown > /dev/null
"$SBCTL" status "$dir" --json > down.json 2> down.err
expect "slurmdbd down: exit 1" "$?" 1
expect_match "slurmdbd down: says so and suggests --offline" "$(cat down.err)" '^sbctl status: .*sacct.*--offline'
# wait does not give up on an outage: it retries (saying so) until --timeout
"$SBCTL" wait "$dir" --interval 0.2 --timeout 1 > /dev/null 2> downw.err
expect "slurmdbd down: wait exits 1 at its timeout" "$?" 1
expect_match "slurmdbd down: wait says it retries" "$(head -n 1 downw.err)" \
	'^sbctl wait: sacct failed: .*Connection refused; retrying in 0\.2 s$'
expect_match "slurmdbd down: wait says it timed out" "$(tail -n 1 downw.err)" '^sbctl wait: timed out after 1 s'

st down.json "$dir" --offline
expect "slurmdbd down, --offline: exit 3" "$?" 3
expect "slurmdbd down, --offline: same classes" "$(classes down.json)" "$(classes m2.json)"
expect "slurmdbd down, --offline: scheduler offline" "$(jqf down.json .scheduler)" offline
st okoff.json "$okdir" --offline
expect "slurmdbd down, --offline, all succeeded: exit 0" "$?" 0
sbfake dbup > /dev/null

# -- usage errors ---------------------------------------------------------------
"$SBCTL" status "$T_ROOT/nonexistent" > /dev/null 2> e1.err
expect "bad BENCH (no such directory): exit 2" "$?" 2
expect_match "bad BENCH: says what" "$(cat e1.err)" '^sbctl status: '
"$SBCTL" status no-such-benchmark --json > e2.out 2> /dev/null
expect "bad BENCH (unknown name): exit 2" "$?" 2
expect "bad BENCH: nothing on stdout" "$(cat e2.out)" ""
"$SBCTL" status "$dir" --settle soon > /dev/null 2>&1
expect "bad --settle: exit 2" "$?" 2
"$SBCTL" status > /dev/null 2>&1
expect "no BENCH: exit 2" "$?" 2
"$SBCTL" wait no-such-benchmark --interval 0.2 > /dev/null 2>&1
expect "wait, bad BENCH: exit 2" "$?" 2
"$SBCTL" wait "$dir" --timeout x > /dev/null 2>&1
expect "wait, bad --timeout: exit 2" "$?" 2

t_done
