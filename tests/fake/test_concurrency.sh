#!/bin/bash
# Many commands at once: unique ids, consistent answers, nothing lost.
. "$(dirname "$0")/lib.sh"
export SB_FAKE_CPUS=4

# 20 parallel submissions (plain jobs and arrays)
for i in $(seq 1 20); do
	if [ $((i % 2)) = 0 ]; then
		sbatch --parsable -J "c$i" -a 0-2%2 --wrap 'sleep 0.3' > "id.$i" &
	else
		sbatch --parsable -J "c$i" --wrap 'sleep 0.3' > "id.$i" &
	fi
done
wait
expect "20 unique ids" "$(cat id.* | sort -u | wc -l)" "20"
# (array tasks take new ids as they start, so the ids need not be consecutive)
expect "first id" "$(cat id.* | sort -n | head -1)" "1000"

# 20 parallel sacct and 20 parallel squeue calls while jobs start and end
for i in $(seq 1 20); do
	sacct -P -n -X -o JobID,State > "sa.$i" 2>"sa.err.$i" &
	squeue -h -r -o '%i %T' > "sq.$i" 2>"sq.err.$i" &
done
wait
expect "no errors" "$(cat sa.err.* sq.err.*)" ""
bad=0
for i in $(seq 1 20); do
	# every answer names every array task or collapsed range exactly once
	n=$(cut -d'|' -f1 "sa.$i" | sort | uniq -d | wc -l)
	[ "$n" = 0 ] || bad=$((bad + 1))
	# never more than SB_FAKE_CPUS running
	r=$(grep -c RUNNING "sq.$i")
	[ "$r" -le 4 ] || bad=$((bad + 1))
done
expect "consistent answers" "$bad" "0"

# parallel cancels of half the arrays while the rest finish
for i in $(seq 2 4 20); do scancel "$(cat id.$i)" 2>/dev/null & done
wait
wait_for 30 all_done
expect "every task has one final row" "$(sacct -P -n -X -o JobID | sort | uniq -d)" ""
expect "no task lost" "$(sacct -P -n -X -o State | grep -c -v -e COMPLETED -e CANCELLED)" "0"
expect "plain jobs all completed" "$(for i in $(seq 1 2 20); do acct "$(cat id.$i)" State; done | sort -u)" "COMPLETED"
expect "uncancelled arrays completed" "$(for i in $(seq 4 4 20); do acct "$(cat id.$i)" State; done | sort -u)" "COMPLETED"
t_done
