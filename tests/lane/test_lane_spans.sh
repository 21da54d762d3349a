#!/bin/bash
# Spans and resources: status --json gives each child its submitted,
# started and ended times (those of the fake's accounting), queue wait and
# run time, and the wall time, peak memory and CPU time of its verified
# finish; the benchmark its first submission, last end and makespan (null
# while a child runs); analyze the resource statistics per group over the
# succeeded children; status --spans the same as text.
. "$(dirname "$0")/../e2e/lib.sh"

write_spec spans.yaml "name: spans
command: [sh, -c, 'sleep \$0', '{nap}']
parameters:
  nap: [1, 2]
repeats: 2"
"$SBCTL" submit spans.yaml --json > s.json
dir=$(jqf s.json .benchmark.dir)
job=$(jqf s.json '.jobs[0].job_id')

# while a child runs: makespan is null, a running child has no end (a
# benchmark of its own, whose child sleeps a minute, then is cancelled)
write_spec long.yaml "name: long
command: [sh, -c, 'sleep 60']"
"$SBCTL" submit long.yaml --json > long.json
ldir=$(jqf long.json .benchmark.dir)
wait_for 20 started "$ldir" 0
st run.json "$ldir"
expect "while running: makespan_s is null" "$(jqf run.json .benchmark.makespan_s)" null
expect "while running: first_submitted is known" \
	"$(jq -r '.benchmark.first_submitted | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$")' run.json)" true
expect "a running child has started but not ended, and runs for some time already" \
	"$(jq -r '.children[0] | [.started != null, .ended, .run_s >= 0] | @tsv' run.json)" "$(printf 'true\t\ttrue')"
scancel "$(jqf long.json '.jobs[0].job_id')"

wait_for 30 all_done
st o.json "$dir" --settle 0
expect "status exits 0" "$?" 0
epoch() { date -u -d "$1" +%s; }
ok=0
for c in 0 1 2 3; do
	IFS='|' read -r sub start end < <(sacct -P -n -X -j "${job}_$c" --format=Submit,Start,End)
	row=$(jq -r ".children[$c] | [.submitted, .started, .ended] | map(sub(\"\\\\.[0-9]+Z$\"; \"Z\")) | join(\" \")" o.json)
	read -r js jb je <<<"$row"
	if [ "$(epoch "$js")" = "$(date -d "$sub" +%s)" ] && [ "$(epoch "$jb")" = "$(date -d "$start" +%s)" ] &&
	   [ "$(epoch "$je")" = "$(date -d "$end" +%s)" ]; then
		ok=$((ok + 1))
	else
		echo "# child $c: status $row, sacct $sub $start $end"
	fi
done
expect "every child's submitted, started and ended are the fake's Submit, Start and End" "$ok" 4
expect "queue_s = started - submitted, run_s = ended - started" \
	"$(jq -r '[.children[] | ((.started | sub("\\.[0-9]+Z$"; "Z") | fromdate) - (.submitted | sub("\\.[0-9]+Z$"; "Z") | fromdate) == .queue_s) and ((.ended | sub("\\.[0-9]+Z$"; "Z") | fromdate) - (.started | sub("\\.[0-9]+Z$"; "Z") | fromdate) == .run_s)] | all' o.json)" true
expect "the 2 s children run at least 2 s, the 1 s ones at least 1 s" \
	"$(jq -r '[.children[] | .run_s >= (.params.nap)] | all' o.json)" true
expect "wall_s, max_rss_kb and cpu_s come from the verified finish" \
	"$(jq -r '[.children[] | (.wall_s >= .params.nap) and (.max_rss_kb > 0) and (.cpu_s >= 0)] | all' o.json)" true
expect "makespan_s = last_ended - first_submitted" \
	"$(jq -r '.benchmark | ((.last_ended | sub("\\.[0-9]+Z$"; "Z") | fromdate) - (.first_submitted | sub("\\.[0-9]+Z$"; "Z") | fromdate)) == .makespan_s' o.json)" true
expect "last_ended is the latest child's end" \
	"$(jq -r '.benchmark.last_ended == ([.children[].ended] | max)' o.json)" true
expect "first_submitted is the earliest child's submission" \
	"$(jq -r '.benchmark.first_submitted == ([.children[].submitted] | min)' o.json)" true

"$SBCTL" analyze "$dir" --json > an.json
expect "analyze: resources per group over the succeeded children" \
	"$(jq -c '[.groups[] | .resources | [.wall_s.n, .max_rss_kb.n, .cpu_s.n]]' an.json)" '[[2,2,2],[2,2,2]]'
expect "analyze: the wall time of the 2 s group is at least 2 s" \
	"$(jq -r '.groups[] | select(.params.nap == 2) | .resources.wall_s.min >= 2' an.json)" true
expect "analyze: resource stats have mean, stddev, min, median, max" \
	"$(jq -r '.groups[0].resources.max_rss_kb | keys | join(",")' an.json)" "max,mean,median,min,n,stddev"

"$SBCTL" status "$dir" --spans > spans.txt
expect "status --spans exits 0" "$?" 0
expect "status --spans: a line per child" "$(grep -cE '^  [0-3] +succeeded +[0-9]{4}-' spans.txt)" 4
expect_match "status --spans: the makespan" "$(tail -n 1 spans.txt)" 'makespan [0-9]+\.[0-9] s$'

t_done
