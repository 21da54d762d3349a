#!/bin/bash
# Job arrays: expressions, %N throttle, raw id rules, collapsed pending rows.
. "$(dirname "$0")/lib.sh"

# The tasks wait for a gate file before their 0.4 s: the pending rows are
# read while every task but the first three surely still waits (on a loaded
# machine a fixed sleep ran out first).
cat > task.sh <<SCRIPT
#!/bin/bash
while [ ! -e '$PWD/gate' ]; do sleep 0.05; done
sleep 0.4
exit 0
SCRIPT

# throttle: never more than 3 running, and 3 do run at once
id=$(sbatch --parsable --array=0-9%3 -t 30 task.sh)
expect "first id" "$id" "1000"
expect "squeue collapses the pending tasks" "$(squeue -h -o '%i|%T|%r' -t PD)" \
	"1000_[3-9%3]|PENDING|JobArrayTaskLimit"
expect "sacct collapses them too" "$(sacct -P -n -X -j 1000 -o JobID,JobIDRaw,State | grep PENDING)" \
	"1000_[3-9%3]|1000|PENDING"
expect "squeue -r expands them" "$(squeue -h -r -t PD -o '%i' | tr '\n' ' ')" \
	"1000_3 1000_4 1000_5 1000_6 1000_7 1000_8 1000_9 "
touch gate
max=0
while [ -n "$(squeue -h -o %i)" ]; do
	n=$(squeue -h -r -t R,CG -o %i | wc -l)
	[ "$n" -gt "$max" ] && max=$n
	sleep 0.05
done
expect "at most 3 running, 3 reached" "$max" "3"
# raw ids: tasks get new ids as they start; the last one takes the array's id
expect "JobID and JobIDRaw" "$(acct 1000 JobID,JobIDRaw,State,ExitCode | tr '\n' ' ')" \
"1000_0|1001|COMPLETED|0:0 1000_1|1002|COMPLETED|0:0 1000_2|1003|COMPLETED|0:0 1000_3|1004|COMPLETED|0:0 1000_4|1005|COMPLETED|0:0 1000_5|1006|COMPLETED|0:0 1000_6|1007|COMPLETED|0:0 1000_7|1008|COMPLETED|0:0 1000_8|1009|COMPLETED|0:0 1000_9|1000|COMPLETED|0:0 "
expect "sacct -j by raw id" "$(acct 1004 JobID)" "1000_3"
expect "sacct -j by task" "$(acct 1000_9 JobIDRaw)" "1000"

# lists and steps
sbatch --parsable -a 1,3,10-16:3 --begin=now+3600 --wrap true >/dev/null
expect "list and step expression" "$(squeue -h -j 1010 -o %i) $(squeue -h -r -j 1010 -o %K | tr '\n' ,)" \
	"1010_[1,3,10,13,16] 1,3,10,13,16,"
expect "SLURM_ARRAY_TASK_STEP etc." "$(scancel 1010; sbatch --parsable -a 0-8:4 -o st-%a.out --wrap 'echo $SLURM_ARRAY_TASK_COUNT $SLURM_ARRAY_TASK_MIN $SLURM_ARRAY_TASK_MAX $SLURM_ARRAY_TASK_STEP' >/dev/null; wait_for 5 all_done; cat st-8.out)" \
	"3 0 8 4"

# dependencies: afterok waits, then runs; afterany runs after a failure too
a=$(sbatch --parsable -a 0-1 --wrap "while [ ! -e '$PWD/gate2' ]; do sleep 0.05; done; exit \$SLURM_ARRAY_TASK_ID")
ok=$(sbatch --parsable -d afterok:$a --wrap true)
any=$(sbatch --parsable -d afterany:$a -o any.out --wrap 'echo ran')
expect "dependency reason" "$(squeue -h -j $ok,$any -o '%i %r')" "$ok Dependency
$any Dependency"
touch gate2
wait_for 5 test -s any.out
expect "afterok on a failed array never runs" "$(squeue -h -j $ok -o '%T %r')" "PENDING DependencyNeverSatisfied"
expect "afterany ran" "$(acct $any State)" "COMPLETED"
scancel $ok
# CPUs of the node: the first job that does not fit waits for Resources,
# the ones behind it for Priority.  The big job holds the node until the
# reasons are read (a fixed sleep ran out first on a loaded machine).
export SB_FAKE_CPUS=2
big=$(sbatch --parsable -c 2 --wrap "while [ ! -e '$PWD/big.go' ]; do sleep 0.05; done")
r1=$(sbatch --parsable --wrap true)
r2=$(sbatch --parsable --wrap true)
expect "reasons when the node is full" "$(squeue -h -t PD -o '%i %r')" "$r1 Resources
$r2 Priority"
expect "--cpus-per-task" "$(scontrol show job $big | grep -o 'NumCPUs=[0-9]*')" "NumCPUs=2"
touch big.go
wait_for 5 all_done
expect "all ran" "$(acct $big,$r1,$r2 State | sort -u)" "COMPLETED"
t_done
