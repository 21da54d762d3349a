#!/bin/bash
# A rerun never runs a child twice at once (docs/sbctl-rerun.md, "Jobs
# still in the queue"): a child in a rerunnable class whose job the
# scheduler still has (here: invalid, its log damaged while it runs) is
# refused, nothing submitted, with the way out; --cancel-running cancels
# that job, waits for its end and says so, then submits the new attempt.
. "$(dirname "$0")/lib.sh"

dir=$(submit_spec live 'name: live
command: [sh, -c, "sleep 60"]
heartbeat: 300
parameters:
  i: [0, 1]')
a=$(array_of live)
wait_for 20 started "$dir" 0
wait_for 20 started "$dir" 1
# the log no longer verifies (no heartbeat comes to write over the bytes
# before the test ends: sbagent writes each record at its own offset)
printf 'garbage' >> "$(log_of "$dir" 0)"
st s.json "$dir"
expect_child s.json 0 invalid "^the log does not verify"
expect "its job is still running" "$(jq -r '.children[0].scheduler_state' s.json)" RUNNING

"$SBCTL" rerun "$dir" --only invalid > r.out 2> r.err
expect "rerun of a child whose job still runs: refused (exit 2)" "$?" 2
expect_match "it names the child, its job and the way out" "$(cat r.err)" \
	"^sbctl rerun: child 0 \(invalid\) is still RUNNING in the scheduler as job ${a}_0: a rerun now would run it twice at once; nothing was submitted \(wait for it, or add --cancel-running to cancel it first\)"
expect "no attempt 1 was made" "$(ls "$dir/jobs")" a0
"$SBCTL" rerun "$dir" --only invalid --dry-run > /dev/null 2>&1
expect "a dry run says the same (exit 2)" "$?" 2
py - > py.out 2>&1 <<PY
import sbench
try:
    sbench.rerun("$dir", "invalid")
except sbench.UsageError as e:
    print("refused:", "still RUNNING" in str(e))
PY
expect "python: the same refusal" "$(tail -n 1 py.out)" "refused: True"

"$SBCTL" rerun "$dir" --only invalid --cancel-running --json > c.json 2> c.err
expect "--cancel-running: exit 0" "$?" 0
expect_match "it says what it cancelled and that it waited" "$(cat c.err)" \
	"sbctl rerun: cancelled job ${a}_0 \(still pending or running in the scheduler\) and waited [0-9.]+ s for it to end before the rerun"
expect "the old job ended before the new one was submitted" "$(acct "${a}_0" State | cut -d' ' -f1)" CANCELLED
expect "child 0 runs again as attempt 1" "$(jq -c '[.jobs[].children[]]' c.json)" "[0]"
expect "child 1 was not touched" "$(squeue -h -r -j "${a}_1" -o %T)" RUNNING
scancel "$a" "$(jqf c.json '.jobs[0].job_id')"
t_done
