#!/bin/bash
# sbctl status on the fake Slurm when things go wrong: stale (a hung agent),
# killed (time limit, OOM, node failure, preemption, scancel), failed before
# sbagent started, incomplete (sbagent SIGKILLed), missing (sbatch refused by
# a limit; a job the scheduler lost that left no log), inconsistent (the
# scheduler contradicts a verified exit 0).  Each asserts the class and the
# reason in `status --json`.
. "$(dirname "$0")/lib.sh"

TAMPER=${SB_BUILD:?SB_BUILD must name the build directory}/tests/sbtamper
# the first job of this fresh fake state gets id 1234: the job id sbtamper
# writes into the records it crafts (the stale case below)
export SB_FAKE_FIRST_JOB_ID=1234
# finished jobs leave squeue at once (MinJobAge 0): only sacct, and what
# status recorded, remember them; a lost accounting record is then really lost
export SB_FAKE_MIN_JOB_AGE=0

# -- stale: the agent hangs while the scheduler says RUNNING ---------------
# A hung sbagent (node or NFS hang) stops heartbeating while its job goes on
# RUNNING.  Waiting for 3 heartbeats + 120 s of silence would take minutes,
# so we freeze the agent (SIGSTOP: no more heartbeats) and then age its log:
# the log is rewritten as a start record dated 2023 (sbtamper, signed with
# the benchmark's own key, for the same benchmark, child, attempt and job id
# 1234, so it verifies exactly as the agent's own would), and its mtime set
# to the same day.  The only thing faked is the passing of time.
dir=$(submit_spec stale "name: stale
command: [sleep, '60']
heartbeat: 1")
wait_for 10 started "$dir" 0
expect "the stale child runs as job 1234" "$(jq -r '.jobs[0].job_id' stale.submit.json)" 1234
apid=$(agent_pid "$dir" 0)
kill -STOP "$apid"
f=$(log_of "$dir" 0)
"$TAMPER" write "$dir/keys/hmac.key" aged.log 1 0 0 "$(jqf stale.submit.json .benchmark.digest)"
mv aged.log "$f"
touch -d '2023-11-14 22:13:21' "$f"
expect "the aged log verifies" "$(log_types "$f")" "start "
st s.json "$dir"
expect "stale: exit 3" "$?" 3
expect_child s.json 0 stale '^no sign of life for [0-9]+ s \(heartbeat every 1 s\); the scheduler still says RUNNING$'
expect "stale: counts" "$(jqf s.json .counts.stale)" 1
expect "stale: scheduler_state" "$(jqf s.json '.children[0].scheduler_state')" RUNNING
# a rerun of the stale child while its job still runs would run it twice at
# once, in the same run directory: refused, nothing submitted
"$SBCTL" rerun "$dir" --only stale > r.out 2> r.err
expect "stale: rerun refused (exit 2)" "$?" 2
expect_match "stale: rerun says why and the way out" "$(cat r.err)" \
	"child 0 \(stale\) is still RUNNING in the scheduler as job $(array_of stale)_0: a rerun now would run it twice at once; nothing was submitted"
expect "stale: no second attempt recorded" "$("$SBCTL" status "$dir" --json | jq '.children[0].attempts|length')" 1
scancel "$(array_of stale)"
kill -CONT "$apid"

# -- killed: the scheduler ended it -----------------------------------------
# five children that would sleep for 60 s under a 20 s limit (SB_FAKE_TIME_UNIT=s):
# long enough that the other four are killed before their limit, even on a
# loaded machine (an OOM kill that came after the limit would end as TIMEOUT:
# 8 s were not enough once, with the starts taking most of them).  The shell
# execs sleep: with two processes of the same size the OOM victim could be
# the shell, and sbagent then waits for its orphaned sleep until the limit.
dir=$(submit_spec kill "name: kill
command: [sh, -c, 'exec sleep 60 # {how}']
parameters:
  how: [timeout, oom, node, preempt, cancel]
heartbeat: 1
slurm: {time: '20'}")
a=$(array_of kill)
# each fault as soon as its child has started, not after all five: a limit
# counts from the child's own start, so a slow start of another child cannot
# push a fault past it (CI once saw child 1's OOM arrive after its limit)
wait_for 10 started "$dir" 1; sbfake oom "${a}_1" > /dev/null
wait_for 10 started "$dir" 2; sbfake fail-node "${a}_2" > /dev/null
wait_for 10 started "$dir" 3; sbfake preempt "${a}_3" > /dev/null
wait_for 10 started "$dir" 4; scancel "${a}_4"
wait_for 10 started "$dir" 0
wait_for 40 all_done
st k.json "$dir" --settle 0
expect "killed: exit 3" "$?" 3
# sbagent forwards the SIGTERM of the time limit and records how the command ended
expect_child k.json 0 killed '^TIMEOUT; the command was killed by signal 15$'
expect_child k.json 1 killed '^OUT_OF_MEMORY; '
expect_child k.json 2 killed '^NODE_FAIL; the command was still running \(no finish record\)$'
expect_child k.json 3 killed '^PREEMPTED; '
expect_child k.json 4 killed "^CANCELLED by uid $T_UID; "
expect "killed: scheduler states" "$(jq -r '[.children[].scheduler_state]|join(" ")' k.json)" \
	"TIMEOUT OUT_OF_MEMORY NODE_FAIL PREEMPTED CANCELLED by $T_UID"
expect "killed: counts" "$(jqf k.json .counts.killed)" 5
"$SBCTL" status "$dir" > k.txt
expect "killed: human output exits 3" "$?" 3
expect_match "killed: human output lists the count" "$(cat k.txt)" $'\n  killed +5\n'
expect_match "killed: human output gives child 0's reason, parameters and job" "$(cat k.txt)" \
	$'\n1 killed: TIMEOUT; the command was killed by signal 15 — how=timeout\n  0 +'"${a}_0"$'\n'

# -- failed before sbagent started -------------------------------------------
# The batch script execs an sbagent that is not there (not installed on the
# compute node): the job fails with the shell's exit 127 and leaves no log.
dir=$(SB_AGENT=/nonexistent/bin/sbagent submit_spec noagent "name: noagent
command: [true]")
a=$(array_of noagent)
wait_for 10 all_done
st n.json "$dir" --settle 0
expect_child n.json 0 failed "^job ${a}_0 FAILED \\(ExitCode 127:0\\) before sbagent started$"
expect "failed before start: no log" "$(jqf n.json '.children[0].log')" null
"$SBCTL" status "$dir" --settle 0 > n.txt
expect_match "failed before start: the human output shows the tail of the job's stderr" \
	"$(cat n.txt)" '\| .*/nonexistent/bin/sbagent.*not found'

# -- incomplete: sbagent SIGKILLed mid-run -----------------------------------
dir=$(submit_spec sigkill "name: sigkill
command: [sleep, '30']
heartbeat: 1")
a=$(array_of sigkill)
wait_for 10 started "$dir" 0
kill -KILL "$(agent_pid "$dir" 0)"
wait_for 10 all_done
st i.json "$dir" --settle 0
expect_child i.json 0 incomplete "^started, but no finish record, and job ${a}_0 is FAILED$"
expect "incomplete: the log has no finish" "$(log_types "$(log_of "$dir" 0)")" "start "

# -- missing -----------------------------------------------------------------
# (a) sbatch refused by a submit limit: the child was never submitted
sbfake limit 0 > /dev/null
write_spec limited.yaml "name: limited
command: [true]"
"$SBCTL" submit limited.yaml --json > limited.json 2> limited.err
expect "limited submit exits 1" "$?" 1
sbfake limit off > /dev/null
st m.json "$(ls -d "$SB_ROOT"/limited-*)"
expect "missing: exit 3" "$?" 3
expect_child m.json 0 missing '^never submitted$'
expect "missing: no job id" "$(jqf m.json '.children[0].job_id')" null
# (b) the job failed before sbagent started and accounting lost it: nothing
#     at all is left once the settle time has passed
dir=$(SB_AGENT=/nonexistent/bin/sbagent submit_spec lost "name: lost
command: [true]")
sbfake lose "$(array_of lost)" > /dev/null
wait_for 10 all_done
st m2.json "$dir" --settle 60
expect_child m2.json 0 pending '^submitted [0-9]+ s ago; waiting for the scheduler to show it$'
st m2.json "$dir" --settle 0
expect_child m2.json 0 missing '^no scheduler record, no reconciled outcome and no log$'

# -- inconsistent: the scheduler contradicts a verified exit 0 ---------------
dir=$(submit_spec lies "name: lies
command: [sh, -c, 'sleep 1 # {lie}']
parameters:
  lie: [failed, running, lost]")
a=$(array_of lies)
sbfake lie "${a}_0" FAILED 1:0 > /dev/null
sbfake lie "${a}_1" RUNNING > /dev/null
sbfake lose "${a}_2" > /dev/null
wait_for 10 all_done
wait_for 10 acct_is "${a}_0" State FAILED
st l.json "$dir" --settle 0
expect "inconsistent: exit 3" "$?" 3
expect_child l.json 0 inconsistent "^the command finished with exit 0, but the scheduler says job ${a}_0 FAILED \\(ExitCode 1:0\\)$"
expect_child l.json 1 inconsistent "^the finish record is [0-9]+ s old, but the scheduler still says job ${a}_1 is RUNNING$"
expect_child l.json 2 inconsistent '^the command finished with exit 0, but the scheduler has no record of the job$'
expect "inconsistent: every log has exit 0" \
	"$(for c in 0 1 2; do "$SBCTL" log "$(log_of "$dir" $c)" --json | jq -r 'select(.type=="finish") | .exit_code'; done | tr '\n' ' ')" "0 0 0 "
# within the settle time the lost job is not yet judged
st l2.json "$dir" --settle 60
expect_child l2.json 2 running '^finished with exit 0; waiting up to 60 s for the scheduler to confirm$'

# -- requeued: the latest restart is classified, not the log of the one before
# A running job requeued (scontrol requeue): its first run's log ends with
# the SIGTERM of the requeue; while the job waits to run again, the child is
# pending, not failed, and wait does not return before the new run is over.
export SB_FAKE_REQUEUE_DELAY=2
dir=$(submit_spec rq "name: rq
command: [sleep, '2']
heartbeat: 1")
a=$(array_of rq)
wait_for 10 started "$dir" 0
sbfake requeue "${a}_0" > /dev/null
wait_for 10 acct_is "${a}_0" State PENDING
st q.json "$dir" --settle 0
expect_child q.json 0 pending '^PENDING'
expect "requeued: the earlier run's log is not the latest run's" "$(jqf q.json '.children[0].log')" null
"$SBCTL" wait "$dir" --interval 0.2 --timeout 30 --settle 0 > rqwait.txt
expect "requeued: wait returns once the new run is over, all succeeded" "$?" 0 || cat rqwait.txt
st q.json "$dir" --settle 0
expect_child q.json 0 succeeded '^$'
expect_match "requeued: the log of restart 1 is read" "$(jqf q.json '.children[0].log')" '\.r1\.log$'
export SB_FAKE_REQUEUE_DELAY=0.3

t_done
