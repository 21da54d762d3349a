#!/bin/bash
# Fault injection: node failure, OOM, preemption, accounting lag, lost
# record, contradicting state, submit limit, controller/database down.
. "$(dirname "$0")/lib.sh"

cat > run.sh <<'SCRIPT'
#!/bin/bash
trap 'echo TERM; exit 0' TERM
echo "run $SLURM_JOB_ID"
sleep 30 & wait
SCRIPT
# running JOBID OUTFILE: the script is up (its trap is set)
running() { grep -q "^run" "$2" 2>/dev/null; }

# node failure: processes killed at once (no TERM), NODE_FAIL
nf=$(sbatch --parsable -o nf.out run.sh)
wait_for 5 running $nf nf.out
sbfake fail-node $nf
wait_for 5 all_done
expect "NODE_FAIL" "$(acct $nf State,ExitCode)" "NODE_FAIL|0:0"
expect "killed without TERM" "$(cat nf.out)" "run $nf"

# OOM: the largest process is killed; the job ends as OUT_OF_MEMORY 0:125
cat > mem.sh <<'SCRIPT'
#!/bin/bash
perl -e '$x = "x" x (64 << 20); sleep 30'
echo "child status $?"
exit 0
SCRIPT
oom=$(sbatch --parsable -o oom.out mem.sh)
wait_for 5 squeue_is R -h -j $oom -o %t
sleep 0.3
sbfake oom $oom
wait_for 5 all_done
expect "OUT_OF_MEMORY" "$(acct $oom State,ExitCode)" "OUT_OF_MEMORY|0:125"
# slurmstepd's notice comes at the end of the step, as on Slurm 22.05 (tests/cluster)
expect "slurmstepd's notice" "$(tail -1 oom.out)" \
	"slurmstepd-node1: error: Detected 1 oom-kill event(s) in StepId=$oom.batch. Some of your processes may have been killed by the cgroup out-of-memory handler."
expect "script went on after its child was killed" "$(grep "^child status" oom.out)" "child status 137"

# preemption: SIGTERM, then PREEMPTED
pr=$(sbatch --parsable -o pr.out run.sh)
wait_for 5 running $pr pr.out
sbfake preempt $pr
wait_for 5 all_done
expect "PREEMPTED" "$(acct $pr State,ExitCode) $(tail -1 pr.out)" "PREEMPTED|0:0 TERM"

# a supervisor that vanishes (the node died under it) is noticed
dead=$(sbatch --parsable run.sh)
wait_for 5 running $dead slurm-$dead.out
kill -9 "$(sbfake dump | awk -F'|' -v id=$dead '$1 == id {print $8}')"
wait_for 5 all_done
expect "vanished supervisor: NODE_FAIL" "$(acct $dead State)" "NODE_FAIL"

# accounting lag: sacct keeps the old state for N seconds
lag=$(sbatch --parsable run.sh)
wait_for 5 running $lag slurm-$lag.out
expect "before lag" "$(acct $lag State)" "RUNNING"
sbfake lag 3
scancel $lag
expect "lagging sacct still says RUNNING" "$(acct $lag State)" "RUNNING"
expect "squeue already knows" "$(squeue -h -t all -j $lag -o %T | sed 's/COMPLETING/CANCELLED/')" "CANCELLED"
wait_for 6 acct_is $lag State "CANCELLED by $T_UID"
sbfake lag 0
# a job submitted during a lag is not in the database at all yet
sbfake lag 2
new=$(sbatch --parsable --begin=now+60 --wrap true)
expect "new job not yet in sacct" "$(acct $new JobID)" ""
wait_for 5 acct_is $new State PENDING
sbfake lag 0
scancel $new

# a lost record and a state that contradicts the job
lost=$(sbatch --parsable --wrap 'exit 0')
liar=$(sbatch --parsable --wrap 'exit 0')
sbfake lose $lost
sbfake lie $liar FAILED 1:0
wait_for 5 all_done
expect "lost record" "$(acct $lost State)" ""
expect "lying record" "$(acct $liar State,ExitCode)" "FAILED|1:0"

# submit limit (MaxSubmitJobs)
sbfake limit 2
a=$(sbatch --parsable --begin=now+60 -a 0-1 --wrap true)
out=$(sbatch --wrap true 2>&1); rc=$?
expect "submit limit" "$out rc=$rc" \
	"sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits) rc=1"
sbfake limit off
scancel $a
expect "limit lifted" "$(sbatch --wrap true >/dev/null; echo $?)" "0"

# slurmctld and slurmdbd unreachable
sbfake down
out=$(squeue 2>&1); rc=$?
expect "squeue with controller down" "$out rc=$rc" "slurm_load_jobs error: Unable to contact slurm controller (connect failure) rc=1"
out=$(sbatch --wrap true 2>&1); rc=$?
expect "sbatch with controller down" "$out rc=$rc" "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure) rc=1"
sbfake up
sbfake dbdown
out=$(sacct -X -n 2>&1); rc=$?
expect "sacct with database down" "$(echo "$out" | tail -1) rc=$rc" "sacct: error: Problem talking to the database: Connection refused rc=1"
sbfake dbup
t_done
