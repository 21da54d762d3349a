#!/bin/bash
# sbctl submit --smoke (docs/sbctl-submit.md, "SMOKE TEST"): child 0 alone
# in attempt 0's first job array, waited for, the other children submitted
# only when it succeeded.  A success: two sbatch calls, the rest without a
# dependency on the smoke array.  A failure: exit 3 with the child's reason
# and stderr tail, one sbatch call, nothing else submitted, the same again
# on a second --smoke; rerun never submits the held-back children, reruns
# child 0 in attempt 1, and the next --smoke goes on once it succeeded.  A
# plain submit submits the rest.  A pending child: exit 3 after SECONDS.
# Interrupted while it waits, and run again: every chunk one job array.
# One child: nothing to hold back.  Python's submit(smoke=...).
. "$(dirname "$0")/lib.sh"

export SB_LOOKUP_WINDOW=0.5
shim sbatch "echo \"\$*\" >> '$T_ROOT/sbatch.args'"
calls() { count_calls sbatch; }

# ---- a smoke test that passes ------------------------------------------------------
write_spec ok.yaml "name: ok
command: [sh, -c, 'echo run {x}']
parameters: {x: [1, 2, 3]}
slurm: {array_throttle: 2}"
"$SBCTL" submit ok.yaml --smoke=60 --json > ok.json 2> ok.err
expect "passed: exit 0" "$?" 0
expect "passed: two sbatch calls" "$(calls)" 2
expect "the smoke's outcome" "$(jq -c '.smoke | [.outcome, .child, .class, .held_back]' ok.json)" '["passed",0,"succeeded",0]'
expect "child 0 alone in the first array, the rest in the second" "$(jq -c '[.jobs[].children]' ok.json)" "[[0],[1,2]]"
expect "arrays 0-0 and 0-1, throttled" "$(jq -r '[.jobs[].array] | join(" ")' ok.json)" "0-0%2 0-1%2"
expect "the rest does not depend on the smoke array (it is over)" "$(wc -l < "$T_ROOT/sbatch.args") $(grep -c -- '--dependency' "$T_ROOT/sbatch.args")" "2 0"
"$SBCTL" wait ok --interval 0.2 --timeout 60 > /dev/null
expect "every child succeeds" "$?" 0
"$SBCTL" submit ok.yaml --smoke=60 --json > ok2.json
expect "submitted again: nothing submitted, exit 0" "$?:$(calls)" "0:2"
expect "already submitted, the smoke skipped" "$(jq -c '[.already_submitted, .smoke.outcome]' ok2.json)" '[true,"skipped"]'

# ---- a smoke test that fails -------------------------------------------------------
write_spec bad.yaml "name: bad
command: [sh, -c, 'echo loading >&2; if [ \$0 = 0 ] && [ ! -e \"\$SB_SPEC_DIR/fixed\" ]; then echo \"error: no such dataset\" >&2; exit 1; fi', '{child}']
parameters: {x: [1, 2, 3]}"
rm -f "$T_ROOT/calls.sbatch"
"$SBCTL" submit bad.yaml --smoke=60 > bad.txt 2> bad.err
expect "failed: exit 3" "$?" 3
expect "failed: one sbatch call, nothing else submitted" "$(calls)" 1
expect_match "the text says it failed, with the child's reason" "$(cat bad.txt)" \
	"smoke test: FAILED after [0-9]+ s: child 0 is failed: exit 1"
expect_match "and its stderr tail" "$(cat bad.txt)" "      \\| loading
      \\| error: no such dataset"
expect_match "and what is held back, and what to do" "$(cat bad.txt)" \
	"the other 2 children are not submitted; after 'sbctl rerun bad --only failed' .*'sbctl submit bad.yaml --smoke' waits for child 0 again; 'sbctl submit bad.yaml' submits them without waiting"
"$SBCTL" submit bad.yaml --smoke=60 --json > bad.json
expect "a second --smoke: exit 3 again, no sbatch" "$?:$(calls)" "3:1"
expect "its document" "$(jq -c '.smoke | [.outcome, .child, .class, .reason, .stderr_tail, .held_back]' bad.json)" \
	'["failed",0,"failed","exit 1","loading\nerror: no such dataset",2]'
expect "one job array of the two chunks" "$(jq -c '[.chunks, (.jobs | length), .already_submitted]' bad.json)" "[2,1,false]"
bdir=$(jqf bad.json .benchmark.dir)
"$SBCTL" status bad --json > bad.st.json
expect "status: child 0 failed, the others never submitted" "$(classes bad.st.json)" "0:failed 1:missing 2:missing"
"$SBCTL" rerun bad --only missing > rm.out 2> rm.err
expect "rerun --only missing: nothing submitted" "$?:$(calls)" "0:1"
expect_match "it says the smoke test holds them back" "$(cat rm.err)" \
	"2 of the children chosen are held back by the smoke test of child 0 and never submitted: 'sbctl submit' of the spec submits them"
touch fixed
"$SBCTL" rerun bad --only failed --json > rf.json
expect "rerun --only failed reruns child 0 alone, in attempt 1" "$(jq -c '[.jobs[] | [.children, .array]]' rf.json):$(calls)" '[[[0],"0-0"]]:2'
expect "attempt 1's job" "$(ls -d "$bdir"/jobs/a* | xargs -n1 basename | tr '\n' ' ')" "a0 a1 "
"$SBCTL" submit bad.yaml --smoke=60 --json > bad2.json
expect "--smoke once child 0 succeeded: exit 0, the rest submitted" "$?:$(calls)" "0:3"
expect "passed, in attempt 0's second chunk" "$(jq -c '[.smoke.outcome, [.jobs[].children]]' bad2.json)" '["passed",[[0],[1,2]]]'
"$SBCTL" wait bad --interval 0.2 --timeout 60 > /dev/null
expect "then every child succeeds" "$?" 0

# ---- a plain submit submits what a smoke test held back ---------------------------
rm -f "$T_ROOT/calls.sbatch"
write_spec plain2.yaml "name: plain2
command: [sh, -c, 'test \$0 != 0', '{child}']
parameters: {x: [1, 2]}"
"$SBCTL" submit plain2.yaml --smoke=60 > /dev/null
expect "plain2's smoke fails: exit 3" "$?" 3
"$SBCTL" submit plain2.yaml --json > p2.json 2> p2.err
expect "a plain submit afterwards: exit 0, the rest submitted" "$?:$(jq -c '[.jobs[].children]' p2.json)" "0:[[0],[1]]"
expect_match "with a note that it did not wait" "$(cat p2.err)" \
	"note: the children a smoke test held back \\(after child 0\\) are submitted now, without waiting for child 0"

# ---- a child still pending when the time is up --------------------------------------
write_spec held.yaml "name: held
command: [sh, -c, 'true']
parameters: {x: [1, 2]}
slurm: {extra: ['--begin=now+3600']}"
rm -f "$T_ROOT/calls.sbatch"
start=$(date +%s)
"$SBCTL" submit held.yaml --smoke=2 --json > held.json
expect "not over after SECONDS: exit 3" "$?" 3
took=$(( $(date +%s) - start ))
expect_match "after about 2 s ($took s)" "$took" '^[2-9]$'
expect "timeout, child 0 pending, one held back, one sbatch" \
	"$(jq -c '.smoke | [.outcome, .class, .held_back]' held.json):$(calls)" '["timeout","pending",1]:1'
"$SBCTL" cancel held > /dev/null

# ---- interrupted while it waits, then run again --------------------------------------
write_spec slow.yaml "name: slow
command: [sh, -c, 'sleep 2']
parameters: {x: [1, 2, 3]}"
rm -f "$T_ROOT/calls.sbatch"
"$SBCTL" submit slow.yaml --smoke=60 > slow1.out 2>&1 &
pid=$!
one_call() { [ "$(calls)" = 1 ]; }
wait_for 20 one_call
sleep 0.5
kill -TERM "$pid"   # (a background job of a script ignores SIGINT; TERM is the same to sbctl)
wait "$pid"
expect "SIGTERM while it waits: sbctl stops (143)" "$?" 143
expect "only the smoke array was submitted" "$(calls)" 1
"$SBCTL" status slow --json > slow.st.json
expect_match "status: the others never submitted" "$(classes slow.st.json)" "1:missing 2:missing$"
"$SBCTL" submit slow.yaml --smoke=60 --json > slow2.json
expect "run again: exit 0, the smoke array found, the rest submitted once" \
	"$?:$(calls):$(jq -c '[.smoke.outcome, [.jobs[].submitted_now]]' slow2.json)" '0:2:["passed",[false,true]]'
"$SBCTL" wait slow --interval 0.2 --timeout 60 > /dev/null
expect "and every child succeeds" "$?" 0

# ---- a plain submit while a smoke test waits: the rest once ------------------------
write_spec both.yaml "name: both
command: [sh, -c, 'sleep 2']
parameters: {x: [1, 2, 3]}"
rm -f "$T_ROOT/calls.sbatch"
"$SBCTL" submit both.yaml --smoke=60 --json > both1.json 2> both1.err &
pid=$!
wait_for 20 one_call
"$SBCTL" submit both.yaml --json > both2.json 2> both2.err
expect "a plain submit meanwhile: exit 0, it submits the rest" "$?:$(calls)" "0:2"
wait "$pid"
expect "the smoke test then passes, finds the rest submitted, submits nothing" \
	"$?:$(calls):$(jq -c '[.smoke.outcome, [.jobs[].submitted_now]]' both1.json)" '0:2:["passed",[true,false]]'
expect "the same job ids" "$(jq -c '[.jobs[].job_id]' both1.json)" "$(jq -c '[.jobs[].job_id]' both2.json)"

# ---- nothing to hold back; a dry run; a bad value -----------------------------------
write_spec one.yaml "name: one
command: [sh, -c, 'true']"
"$SBCTL" submit one.yaml --smoke=30 --json > one.json
expect "one child: exit 0, skipped" "$?:$(jq -r '.smoke.outcome' one.json)" "0:skipped"
expect_match "it says why" "$(jq -r '.smoke.reason' one.json)" "one child to submit: nothing to hold back"
write_spec dry.yaml "name: dry
command: [sh, -c, 'true']
parameters: {x: [1, 2, 3]}"
"$SBCTL" submit dry.yaml --smoke --dry-run > dry.out
expect "a dry run shows the smoke chunk, then the rest" \
	"$(grep -c '^== chunk 0 (the smoke test' dry.out) $(grep -c '^== chunk 1:' dry.out)" "1 1"
"$SBCTL" submit dry.yaml --smoke=abc > /dev/null 2>&1
expect "--smoke=abc: exit 2" "$?" 2

# ---- with a lane and a check: the check watches the rest ------------------------------
write_spec lane.yaml "name: lane
command: [sh, -c, 'exit 0']
parameters: {x: [1, 2, 3]}"
"$SBCTL" submit lane.yaml --smoke=60 --check=60 --lane gse --json > lane.json
expect "smoke, check and lane: exit 0" "$?" 0
expect "passed, healthy, every child succeeded" \
	"$(jq -c '[.smoke.outcome, .check.healthy, .check.counts.succeeded]' lane.json)" '["passed",true,3]'

# ---- Python ----------------------------------------------------------------------------
write_spec pyfail.yaml "name: pyfail
command: [sh, -c, 'exit 2']
parameters: {x: [1, 2]}"
py - pyfail.yaml > py.out 2>&1 <<'PY'
import sys, sbench
doc = sbench.submit(sys.argv[1], smoke=30)
print(doc["smoke"]["outcome"], doc["smoke"]["reason"], doc["smoke"]["held_back"], len(doc["jobs"]))
try:
    sbench.submit(sys.argv[1], smoke=-1)
except sbench.UsageError:
    print("usage")
PY
expect "Python: submit(smoke=30) returns the failure, not an exception" "$(cat py.out)" "failed exit 2 1 1
usage"
t_done
