#!/bin/bash
# squeue, sacct and scontrol output formats.
. "$(dirname "$0")/lib.sh"
me=$(id -un)

id=$(sbatch --parsable -J queryjob -a 0-3%1 -t 60 --comment=hello --wrap 'sleep 30')
wait_for 5 squeue_is R -h -j ${id}_0 -o %t
# The running task's elapsed time is real time: on a loaded machine a few
# seconds pass between its start and the query.  below10 lets those be
# 0:00 to 0:09 in the running row (the pending rows stay exact).
below10() { sed -E "/^ *${id}_0[ |]/{s/ 0:0[0-9]( |$)/ 0:00\1/;s/[|]00:00:0[0-9]$/|00:00:00/}"; }
expect "squeue default format" "$(squeue | below10)" \
"$(printf '%18s %9s %8s %8s %2s %10s %6s %s\n' JOBID PARTITION NAME USER ST TIME NODES 'NODELIST(REASON)' \
	"${id}_[1-3%1]" debug queryjob "${me:0:8}" PD 0:00 1 '(JobArrayTaskLimit)' \
	"${id}_0" debug queryjob "${me:0:8}" R 0:00 1 node1)"
expect "squeue -h -o with widths" "$(squeue -h -r -o '%.10i|%6t|%j|%T|%r|%l|%k|%D' -t PD,R)" \
"$(printf '%10s|%-6s|queryjob|PENDING|JobArrayTaskLimit|1:00|hello|1\n' ${id}_1 PD ${id}_2 PD ${id}_3 PD)
$(printf '%10s|%-6s|queryjob|RUNNING|None|1:00|hello|1' ${id}_0 R)"
expect "squeue -t R --me" "$(squeue -h --me -t R -o '%i %A %F %K %N %R')" "${id}_0 $((id + 1)) $id 0 node1 node1"
expect "squeue -t PD" "$(squeue -h -t PD -o '%i %K')" "${id}_[1-3%1] 1-3%1"
expect "squeue -O" "$(squeue -h -t R -O ArrayJobID,ArrayTaskID,State)" \
	"$(printf '%-20s %-20s %-20s' $id 0 RUNNING)"
out=$(squeue -j 424242 2>&1); rc=$?
expect "squeue of an unknown job" "$out rc=$rc" "slurm_load_jobs error: Invalid job id specified rc=1"
out=$(squeue -t BOGUS 2>&1); rc=$?
expect "squeue bad state" "$out rc=$rc" "squeue: error: Invalid job state specified: BOGUS rc=1"

expect "sacct -P header" "$(sacct -P -X -j $id -o JobID,State,Comment | head -1)" "JobID|State|Comment"
expect "sacct -p trailing delimiter" "$(sacct -p -n -X -j ${id}_0 -o JobID,State)" "${id}_0|RUNNING|"
expect "sacct fixed width" "$(sacct -X -j ${id}_0 -o JobID,JobName%5,State)" \
"$(printf '%12s %5s %10s \n%s %s %s \n%12s %5s %10s ' JobID JobNa State ------------ ----- ---------- ${id}_0 quer+ RUNNING)"
expect "sacct pending and running times" "$(acct $id JobID,Start,End,NodeList,Elapsed | cut -d'|' -f1,3- | below10)" \
"${id}_0|Unknown|node1|00:00:00
${id}_[1-3%1]|Unknown|None assigned|00:00:00"
for f in Restarts ArrayJobID ArrayTaskID; do
	out=$(sacct -P -n -X -j $id -o JobID,$f 2>&1); rc=$?
	expect "no field $f in 22.05" "$out rc=$rc" "sacct: error: Invalid field requested: \"$f\" rc=1"
done
expect "sacct field names are case-insensitive" "$(sacct -P -n -X -j ${id}_0 -o jobid,jobidraw,STATE)" "${id}_0|$((id + 1))|RUNNING"
expect "sacct -S in the future shows no finished job" \
	"$(scancel $id; wait_for 5 all_done; sacct -P -n -X -j $id -S now+1hours -o JobID)" ""
expect "sacct -S in the past shows it" "$(sacct -P -n -X -j $id -S now-1hours -o JobID,State | head -1)" "${id}_0|CANCELLED by $T_UID"
expect "sacct -s CA" "$(sacct -P -n -X -s CA -o JobID | head -1)" "${id}_0"
expect "squeue -t CA within MinJobAge" "$(squeue -h -t CA -o '%i %T' | head -1)" "${id}_0 CANCELLED"

# without -X: the batch step after each run that started
b=$(sbatch --parsable -o /dev/null --wrap 'exit 3')
wait_for 5 all_done
expect "batch step rows" "$(sacct -P -n -j $b -o JobID,JobIDRaw,JobName,State,ExitCode)" \
"$b|$b|wrap|FAILED|3:0
$b.batch|$b.batch|batch|FAILED|3:0"
expect "a cancelled array: steps of the runs that started only" \
	"$(sacct -P -n -j $id -o JobID,State | grep -c batch)" "1"

# --name, as sbctl looks its jobs up by name
n=$(sbatch --parsable -J lookup-me --begin=now+60 --wrap true)
expect "squeue --name" "$(squeue -h --name=lookup-me -o %F)" "$n"
expect "sacct --name" "$(sacct -n -X -P --name=lookup-me -S now-1hours --format=JobID)" "$n"
expect "no such name" "$(squeue -h --name=nobody -o %F; sacct -n -X -P --name=nobody --format=JobID)" ""
scancel $n

expect "scontrol show config: MaxArraySize" "$(scontrol show config | grep -E '^(MaxArraySize|KillWait)')" \
"KillWait                = 1 sec
MaxArraySize            = 1001"
expect "MaxArraySize settable" "$(SB_FAKE_MAX_ARRAY_SIZE=40001 scontrol show config | grep ^MaxArraySize)" \
	"MaxArraySize            = 40001"
expect_match "scontrol show job" "$(scontrol show job ${id}_0 | head -1)" "^JobId=$((id + 1)) ArrayJobId=$id ArrayTaskId=0 JobName=queryjob$"
t_done
