#!/bin/bash
# Requeue: scontrol requeue / sbfake requeue / preempt --requeue; the new run
# sees the next SLURM_RESTART_COUNT; sacct -D shows every run.
. "$(dirname "$0")/lib.sh"
export SB_FAKE_REQUEUE_DELAY=1

cat > rq.sh <<'SCRIPT'
#!/bin/bash
n=${SLURM_RESTART_COUNT-unset}
trap 'echo "TERM in run $n"; exit 0' TERM
echo "run $SLURM_JOB_ID restart $n"
[ "$n" = 2 ] && exit 0
sleep 30 & wait
SCRIPT
up() { [ "$(grep -c "restart $2" "$1" 2>/dev/null)" = 1 ]; }

id=$(sbatch --parsable -a 0-1 -o rq-%a.out rq.sh)
wait_for 5 up rq-0.out unset
raw=$(acct ${id}_0 JobIDRaw)
scontrol requeue ${id}_0
wait_for 5 squeue_is "${id}_0 $raw PENDING BeginTime" -h -r -j ${id}_0 -o '%i %A %T %r'
wait_for 5 up rq-0.out 1
sbfake requeue $raw
wait_for 5 up rq-0.out 2
wait_for 5 acct_is ${id}_0 State COMPLETED
expect "the output file is appended to across runs" "$(cat rq-0.out)" \
"run $raw restart unset
TERM in run unset
run $raw restart 1
TERM in run 1
run $raw restart 2"
expect "sacct -D: one row per run" "$(sacct -P -n -X -D -j ${id}_0 -o JobID,JobIDRaw,State,ExitCode)" \
"${id}_0|$raw|REQUEUED|0:0
${id}_0|$raw|REQUEUED|0:0
${id}_0|$raw|COMPLETED|0:0"
expect "without -D only the latest" "$(acct ${id}_0 JobID,State)" "${id}_0|COMPLETED"

# requeue of a finished job runs it again
scancel ${id}_1
wait_for 5 acct_is ${id}_1 State "CANCELLED by $T_UID"
wait_for 5 all_done
scontrol requeue ${id}_1
wait_for 5 up rq-1.out 1
expect "finished job requeued" "$(sacct -P -n -X -D -j ${id}_1 -o State | tr '\n' ' ')" "REQUEUED RUNNING "
out=$(scontrol requeue 99999 2>&1); rc=$?
expect "requeue of an unknown job" "$out rc=$rc" "Requeue of JobId=99999 failed: Invalid job id specified rc=1"
scancel $id

# preemption with requeue: PREEMPTED row, then a new run
p=$(sbatch --parsable -o pre.out rq.sh)
wait_for 5 up pre.out unset
sbfake preempt --requeue $p
wait_for 5 up pre.out 1
expect "preempted and requeued" "$(sacct -P -n -X -D -j $p -o State | tr '\n' ' ')" "PREEMPTED RUNNING "
scancel $p

# node failure with JobRequeue: NODE_FAIL row, then a new run
nf=$(sbatch --parsable -o nf.out rq.sh)
wait_for 5 up nf.out unset
sbfake fail-node --requeue $nf
wait_for 5 up nf.out 1
expect "node failure and requeue" "$(sacct -P -n -X -D -j $nf -o State | tr '\n' ' ')" "NODE_FAIL RUNNING "
expect "killed without TERM" "$(grep -c TERM nf.out)" "0"
scancel $nf
t_done
