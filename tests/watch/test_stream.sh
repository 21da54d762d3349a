#!/bin/bash
# sbctl watch streams (docs/sbctl-watch.md, "ORDER" and "MEMORY"): a log
# over 1 MiB (read again a frame at a time) is shown whole, in order, each
# record once, with its offsets in the file; a live frame whose log's
# records before it were not shown yet comes after them, read from its
# file; every log's records are shown in order, also when the watcher
# starts while the children run.
. "$(dirname "$0")/lib.sh"
WLOG="$SB_BIN/../tests/wlog"

dir=$(submit_spec s "name: s
command: [sh, -c, 'true']
parameters:
  i: [0, 1]") || exit 1
wait_for 60 all_done
bench=$(jq -r .benchmark.digest s.submit.json)
d0=$(jq -r '.child_list[] | select(.index == 0) | .digest' "$dir/benchmark.json")
d1=$(jq -r '.child_list[] | select(.index == 1) | .digest' "$dir/benchmark.json")

# in_order FILE: "ok" when every log's records are shown in seq order, once
in_order() {
	jq -s -r '[.[] | select(.type and .child != null)] | group_by([.child, .attempt, .job_id, .restart]) |
		map([.[].seq]) | map(. == [range(0; length)]) | if all then "ok" else "out of order" end' "$1"
}

# 1. a log of 300 records of 4 KB each: 1.2 MB, over the 1 MiB read whole
big=$("$WLOG" "$dir" "$bench" 0 "$d0" 77001 300 4000) || exit 1
expect_match "the big log is over 1 MiB" "$(stat -c %s "$big")" '^[0-9]{7,}$'
"$SBCTL" watch "$dir" --json --timeout 3 > big.json 2> big.err
expect "watch of the big log: no error" "$(cat big.err)" ""
"$SBCTL" log "$big" --json | jq -c 'select(.type) | [.seq, .offset, .tag]' > want.txt
jq -c --arg p "$big" 'select(.type and .path == $p) | [.seq, .offset, .tag]' big.json > got.txt
expect "the big log: 300 records" "$(wc -l < got.txt)" 300
expect "each once, in order, at the offsets and with the tags sbctl log gives" \
	"$(diff want.txt got.txt > /dev/null && echo same)" same
expect "every log in order" "$(in_order big.json)" ok
"$SBCTL" log "$dir" --json > log.json
expect "every record of the benchmark shown once" \
	"$(records big.json | diff - <(records log.json) > /dev/null && echo same)" same

# 2. live frames of logs whose earlier records were not shown yet: a
# watcher that has caught up, then five new logs of 10 records each, and
# only the last frame of each sent live right after its log was written
"$SBCTL" watch "$dir" --json --timeout 30 > w.json 2> w.err &
w=$!
wait_for 10 has_endpoint "$dir" "$w"
wait_for 10 grep -q '"live":false' w.json
ep=$(endpoint_of "$dir" "$w")
for j in 78001 78002 78003 78004 78005; do
	c=$((j % 2)); dg=$d0; [ "$c" = 1 ] && dg=$d1
	log=$("$WLOG" "$dir" "$bench" "$c" "$dg" "$j" 10 10) || exit 1
	"$WCLIENT" "$ep" "$dir/keys/watch.key" "$log" --only 9 --wait 200 > /dev/null
done
new_records() { jq -c 'select(.type and (.job_id // "" | startswith("7800")))' w.json | wc -l; }
wait_for 10 test "$(new_records)" -ge 50
kill "$w"; wait "$w"
expect "SIGTERM: the watch ends cleanly" "$?" 0
expect "no error on stderr" "$(cat w.err)" ""
expect "the five new logs: 10 records each, once" \
	"$(new_records) $(jq -r 'select(.type and (.job_id // "" | startswith("7800"))) | "\(.job_id) \(.seq)"' w.json | sort -u | wc -l)" "50 50"
expect "every log in order: a live frame after its log's records before it" "$(in_order w.json)" ok
expect_match "some last frames came live, the records before them from the files" \
	"$(jq -r 'select(.type and (.job_id // "" | startswith("7800")) and .live) | .seq' w.json | sort -u | tr '\n' ' ')" '^9 $'

# 3. a watcher started while the children run: each agent finds it at a
# heartbeat, so its first frame follows records the watcher has not shown
# yet (unless it read the file first); every log still in order, once
dir3=$(submit_spec r "name: r
command: [sh, -c, 'sleep 4']
parameters:
  i: [0, 1, 2, 3, 4, 5]
heartbeat: 1") || exit 1
wait_for 30 started "$dir3" 5
sleep 1.5
"$SBCTL" watch "$dir3" --json --until-done --timeout 60 > r.json 2> r.err
expect "started late: --until-done exits 0" "$?" 0
expect "no error on stderr" "$(cat r.err)" ""
"$SBCTL" log "$dir3" --json > r.log.json
expect "started late: every record once" \
	"$(records r.json | diff - <(records r.log.json) > /dev/null && echo same)" same
expect "started late: every log in order" "$(in_order r.json)" ok
expect_match "started late: some records came live" \
	"$(jq -r 'select(.type and .live) | 1' r.json | wc -l)" '^[1-9][0-9]*$'
t_done
