#!/bin/bash
# The scheduler's word, not a guess (docs/classification.md, rows 3c and
# "The newer run wins"): while accounting lags behind the queue, no status
# shows a final class that a later one changes.  Every status seen during
# the window is checked, not only the last.
# (a) scancel under lag: the command dies of signal 15 and its finish is
#     written before accounting says CANCELLED: running (waiting), then
#     killed; never failed.
# (b) a requeue under lag: accounting still shows the old run while the
#     queue holds the new one and its log grows: running or pending, then
#     succeeded; never incomplete, killed or failed.
. "$(dirname "$0")/lib.sh"

# classes_during SECONDS DIR CHILD: every class status gives CHILD, polling
classes_during() {
	local end=$(( $(date +%s%N) + $1 * 1000000000 )) seen=""
	while [ "$(date +%s%N)" -lt "$end" ]; do
		st poll.json "$2" --settle 10 2> /dev/null
		seen="$seen $(jq -r ".children[$3].class" poll.json)"
		sleep 0.3
	done
	echo $seen
}

# ---- (a) scancel while accounting lags --------------------------------------------
dir=$(submit_spec cancel 'name: cancel
command: [sh, -c, "sleep 60"]
parameters:
  i: [0, 1]')
a=$(array_of cancel)
wait_for 20 started "$dir" 1
sbfake lag 4 > /dev/null
scancel "${a}_1"
seen=$(classes_during 6 "$dir" 1)
expect "(a) while accounting lags, child 1 is never failed: $seen" \
	"$(tr ' ' '\n' <<< "$seen" | grep -cv '^running$\|^killed$')" 0
expect_match "(a) it was seen waiting for the scheduler" "$seen" "running"
st a.json "$dir" --settle 10
expect_child a.json 1 killed "^CANCELLED by uid [0-9]+; the command was killed by signal 15$"
expect "(a) child 0 still runs" "$(jq -r '.children[0].class' a.json)" running
sbfake lag 0 > /dev/null
scancel "$a"

# ---- (b) a requeue while accounting lags ------------------------------------------
dir=$(submit_spec requeue 'name: requeue
command: [sh, -c, "sleep 3"]')
a=$(array_of requeue)
wait_for 20 started "$dir" 0
sbfake lag 5 > /dev/null
sbfake requeue "${a}_0" > /dev/null
seen=$(classes_during 6 "$dir" 0)
expect "(b) during the requeue, only running or pending: $seen" \
	"$(tr ' ' '\n' <<< "$seen" | grep -cv '^running$\|^pending$')" 0
sbfake lag 0 > /dev/null
"$SBCTL" wait "$dir" --interval 0.3 --timeout 60 > /dev/null
expect "(b) the new run succeeds" "$?" 0
expect "(b) from the restart's log" "$(ls "$dir"/events/*/0.a0.*.r1.log | wc -l)" 1
t_done
