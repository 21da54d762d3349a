#!/bin/bash
# Time limits, scancel, exit codes.
. "$(dirname "$0")/lib.sh"

cat > trap.sh <<'SCRIPT'
#!/bin/bash
trap 'echo "TERM"; sleep 5; echo "survived KillWait"' TERM
echo started
sleep 30 & wait
echo "not reached"
SCRIPT

# --time: SIGTERM at the limit (the trap runs), SIGKILL after KillWait
id=$(SB_FAKE_KILLWAIT=1 sbatch --parsable -t 1 -o to.out trap.sh)
wait_for 3 squeue_is "CG COMPLETING" -h -j $id -o '%t %T'
expect "sacct already says TIMEOUT" "$(acct $id State,ExitCode)" "TIMEOUT|0:0"
wait_for 5 all_done
# slurmstepd's notice (Slurm 22.05, tests/cluster), in the output as stderr joins it
expect_match "time limit notice" "$(grep '^slurmstepd-' to.out)" \
	"^slurmstepd-node1: error: \\*\\*\\* JOB $id ON node1 CANCELLED AT [0-9T:-]+ DUE TO TIME LIMIT \\*\\*\\*$"
expect "TERM first, then KILL" "$(grep -v '^slurmstepd-' to.out)" "started
TERM"
expect "TIMEOUT" "$(acct $id State,ExitCode,Elapsed,Timelimit)" "TIMEOUT|0:0|00:00:01|00:00:01"

# exit codes: low 7 bits of the status; a signal is 0:N
cat > codes.sh <<'SCRIPT'
#!/bin/bash
case $SLURM_ARRAY_TASK_ID in
0) exit 0 ;;
1) exit 3 ;;
2) exit 139 ;;
3) kill -9 $$ ;;
4) exit 200 ;;
5) kill -SEGV $$ ;;
6) exit 128 ;;
esac
SCRIPT
id=$(sbatch --parsable -a 0-6 codes.sh)
wait_for 5 all_done
expect "exit codes" "$(acct $id JobID,State,ExitCode)" "$id""_0|COMPLETED|0:0
$id""_1|FAILED|3:0
$id""_2|FAILED|11:0
$id""_3|FAILED|0:9
$id""_4|FAILED|72:0
$id""_5|FAILED|0:11
$id""_6|FAILED|0:0"

# scancel of a running task, a pending task (no row at all) and the rest
cat > slow.sh <<'SCRIPT'
#!/bin/bash
trap 'echo "TERM in $SLURM_ARRAY_TASK_ID"; exit 0' TERM
echo up
sleep 30 & wait
SCRIPT
id=$(sbatch --parsable -a 0-5%2 -o slow-%a.out slow.sh)
# wait until both scripts have set their trap (a TERM before that kills them)
two_up() { [ "$(cat slow-0.out slow-1.out 2>/dev/null | grep -c up)" = 2 ]; }
wait_for 5 two_up
scancel ${id}_0
scancel ${id}_3
wait_for 5 grep -q TERM slow-0.out
expect_match "cancel notice" "$(grep '^slurmstepd-' slow-0.out)" \
	"^slurmstepd-node1: error: \\*\\*\\* JOB [0-9]+ ON node1 CANCELLED AT [0-9T:-]+ \\*\\*\\*$"
expect "trap saw TERM" "$(grep -v '^slurmstepd-' slow-0.out)" "up
TERM in 0"
expect "cancelled running task" "$(acct ${id}_0 State,ExitCode)" "CANCELLED by $T_UID|0:0"
expect "pending task cancelled: no row" "$(acct ${id}_3 State)" ""
expect "squeue no longer lists it" "$(squeue -h -r -j $id -o %i | grep -c _3)" "0"
scancel $id
wait_for 5 all_done
expect "whole array cancelled" "$(acct $id JobID,State | sed "s/^$id//")" "_0|CANCELLED by $T_UID
_1|CANCELLED by $T_UID
_2|CANCELLED by $T_UID
_[4-5%2]|CANCELLED by $T_UID"
# Slurm 22.05 (tests/cluster): a plain cancel of a finished or unknown job
# is silent and succeeds; with -s it fails, "Invalid job id specified"
out=$(scancel $id 2>&1); rc=$?
expect "scancel of a finished job" "$out rc=$rc" " rc=0"
out=$(scancel 99999 2>&1); rc=$?
expect "scancel of an unknown job" "$out rc=$rc" " rc=0"
out=$(scancel -s KILL $id 2>&1); rc=$?
expect "scancel -s of a finished job" "$out rc=$rc" "scancel: error: Kill job error on job id $id: Invalid job id specified rc=1"
out=$(scancel -s USR1 99999 2>&1); rc=$?
expect "scancel -s of an unknown job" "$out rc=$rc" "scancel: error: Kill job error on job id 99999: Invalid job id specified rc=1"

# scancel --signal delivers without cancelling; KillWait from the environment
cat > usr.sh <<'SCRIPT'
#!/bin/bash
trap 'echo USR1; exit 0' USR1
echo up
sleep 30 & wait
SCRIPT
id=$(sbatch --parsable -o usr.out usr.sh)
wait_for 5 grep -q up usr.out
scancel -s USR1 $id
wait_for 5 all_done
expect "scancel --signal" "$(cat usr.out | tr '\n' ' ')$(acct $id State)" "up USR1 COMPLETED"
t_done
