#!/bin/bash
# sbctl status's text scales: the counts first; the children that are over
# and did not succeed grouped by identical reason with the parameter values
# they share ("12 failed: exit 3 — lr=1.2 (all 12)") and their own, a few
# per group; pending and running children counted, not listed, unless
# --class asks; --class lists every child of those classes and keeps the
# counts.  The JSON is not touched by any of it.  The stderr tail shown
# is text: control characters as '?', no line cut short by its window.
. "$(dirname "$0")/../e2e/lib.sh"

dir=$(submit_spec sweep "name: sweep
command: [sh, -c, 'if [ {lr} = 1.2 ]; then echo diverged at lr {lr} >&2; exit 3; fi']
parameters:
  lr: [0.1, 1.2]
  model: [a, b, c, d]
repeats: 3")
settled() { "$SBCTL" status "$1" --json 2>/dev/null | jq -e '.counts.pending + .counts.running == 0' >/dev/null; }
wait_for 60 settled "$dir"

"$SBCTL" status "$dir" > s.txt
expect "status: exit 3" "$?" 3
expect_match "counts first" "$(head -n 3 s.txt)" \
	"^sweep \\([0-9a-f]{12}\\): 24 children, scheduler consulted
  succeeded +12
  failed +12$"
expect "one group, its shared parameters" "$(grep -c '^12 failed: exit 3 — lr=1.2 (all 12)$' s.txt)" 1
expect_match "each listed child with its job id and own parameters" "$(cat s.txt)" \
	$'\n  13 +[0-9]+_13 +model=a repeat=1\n  14 +[0-9]+_14 +model=a repeat=2\n  15 +[0-9]+_15 +model=b repeat=0\n'
expect "five children listed, the others counted" "$(grep -c '^  [0-9]' s.txt)" 5
expect "the others counted" "$(grep -c '^  \.\.\. and 7 more (--class failed lists them all)$' s.txt)" 1
expect_match "the first child's stderr tail" "$(cat s.txt)" $'stderr of 12:\n      \\| diverged at lr 1.2\n      output: .*/jobs/a0/c0/slurm-[0-9]+_12.\\{out,err\\}'
# (a status that records the scheduler's final states says so in one more
# paragraph, on a loaded machine maybe this one)
view=$(grep -v '^(recorded the scheduler' s.txt)
expect "scales: lines of the whole view" "$(printf '%s\n' "$view" | wc -l)" 14

"$SBCTL" status "$dir" --class failed > f.txt
expect "--class: exit as without" "$?" 3
expect "--class: counts stay" "$(head -n 3 f.txt)" "$(head -n 3 s.txt)"
expect "--class failed: every failed child" "$(grep -c '^  [0-9]' f.txt)" 12
"$SBCTL" status "$dir" --class succeeded > ok.txt
expect "--class succeeded: the successes, with what they share" "$(grep -c '^12 succeeded — lr=0.1 (all 12)$' ok.txt)" 1
expect "--class succeeded: no failure shown" "$(grep -c 'failed:' ok.txt)" 0
"$SBCTL" status "$dir" --class killed > k.txt
expect "--class of an empty class says so" "$(tail -n 1 k.txt)" "no killed child"
"$SBCTL" status "$dir" --class faild > /dev/null 2> e.txt
expect "--class misspelt: exit 2" "$?" 2
expect "--class misspelt: did you mean" "$(head -n 1 e.txt)" "sbctl status: --class: 'faild' is not a class (did you mean 'failed'?)"
"$SBCTL" status "$dir" --json > a.json
"$SBCTL" status "$dir" --json --class failed > b.json
expect "--class leaves the JSON alone" "$(cmp -s a.json b.json && echo same)" same

# -- running and pending: counted, not listed unless asked -----------------
busy=$(submit_spec busy "name: busy
command: [sleep, '30']
heartbeat: 1
parameters:
  x: [1, 2, 3]
slurm: {array_throttle: 1}")
running() { "$SBCTL" status "$1" --json 2>/dev/null | jq -e '.counts.running == 1' >/dev/null; }
wait_for 30 running "$busy"
"$SBCTL" status "$busy" > b.txt
expect "busy: counted, not listed" "$(tail -n 1 b.txt)" "not listed: 1 running, 2 pending (--class running,pending lists them)"
expect "busy: no child line" "$(grep -c '^  [0-9]' b.txt)" 0
"$SBCTL" status "$busy" --class running,pending > bl.txt
expect_match "busy: --class running lists it with its parameters" "$(cat bl.txt)" $'\n1 running: RUNNING on node1 — x=1\n  0 +[0-9]+_0$'
expect_match "busy: --class pending groups the pending ones" "$(cat bl.txt)" $'\n2 pending: PENDING \\(JobArrayTaskLimit\\)\n  1 +[0-9]+_1 +x=2\n  2 +[0-9]+_2 +x=3\n'
"$SBCTL" cancel "$busy" > /dev/null 2>&1

# the stderr tail is shown as text: a terminal escape as '?', the line the
# 4 KiB window cuts into left out
cat > esc.sh <<'SH'
head -c 5000 /dev/zero | tr '\0' x >&2
printf '\nred \033[31mtext\n' >&2
exit 1
SH
esc=$(submit_spec esc "name: esc
command: [sh, '{spec_dir}/esc.sh']")
wait_for 60 settled "$esc"
"$SBCTL" status "$esc" > e.txt
expect_match "tail: the escape shown as ?, the cut line left out" "$(cat e.txt)" \
	$'_0\n      \\| red \\?\\[31mtext\n      output: '
t_done
