#!/bin/bash
# sbctl watch on a 30-child benchmark started after submit: every record of
# the logs shown exactly once (from the files or live), verified, with
# "live", each log's in order; --until-done exits with status's exit code;
# the endpoint file is there while it runs and gone after; two watchers at
# once see the same.
. "$(dirname "$0")/lib.sh"

write_spec w.yaml "name: w
command: [sh, -c, 'while [ ! -e $PWD/go ]; do sleep 0.1; done; sleep {nap}; [ {i} != 7 ]']
parameters:
  i: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]
  nap: [2]
heartbeat: 1"
dir=$(submit_spec w "$(cat w.yaml)") || exit 1

"$SBCTL" watch "$dir" --json --until-done --timeout 90 > a.json 2> a.err &
wa=$!
"$SBCTL" watch "$dir" --json --until-done --timeout 90 > b.json 2> b.err &
wb=$!
wait_for 10 has_endpoint "$dir" "$wa"
wait_for 10 has_endpoint "$dir" "$wb"
# the children's commands start only now: on a loaded machine the watchers
# could otherwise come up after every child had finished, and nothing would
# be live (their agents look for watchers at start and at each heartbeat)
touch go
ep=$(endpoint_of "$dir" "$wa")
expect "the endpoint file is the owner's alone" "$(stat -c %a "$ep")" 600
expect_match "it names an endpoint and a key" "$(cat "$ep")" $'^endpoint tcp://[^ ]+:[0-9]+\nserver_key .{40}$'
expect "watch/ is 0700" "$(stat -c %a "$dir/watch")" 700
expect "keys/watch.key is 0600" "$(stat -c %a "$dir/keys/watch.key")" 600
wait "$wa"; rca=$?
wait "$wb"; rcb=$?
"$SBCTL" status "$dir" --json > st.json; rcs=$?
expect "status finds a failed child (exit 3)" "$rcs" 3
expect "watch --until-done exits with status's code" "$rca" "$rcs"
expect "the second watcher too" "$rcb" "$rcs"
expect "no error on stderr" "$(cat a.err b.err)" ""
expect "the endpoint files are gone" "$(ls -A "$dir/watch")" ""

log_records "$dir" > want.txt
records a.json > got.txt
expect "30 children, each with start, heartbeats and finish" \
	"$(grep -c ' finish$' want.txt) $(grep -c ' start$' want.txt)" "30 30"
expect "every record of the logs, exactly once" "$(diff want.txt got.txt && echo same)" same
expect "the second watcher saw the same" "$(records b.json | diff want.txt - && echo same)" same
for f in a.json b.json; do
	expect "$f: each log's records in order, live or from its file" \
		"$(jq -s -r '[.[] | select(.type and .child != null)] | group_by([.child, .attempt, .job_id, .restart]) |
			map([.[].seq] == [range(0; length)]) | all' "$f")" true
done
expect "every record shown is verified" "$(jq -r 'select(.type) | .verified' a.json | sort -u)" true
expect "every record says live or not" "$(jq -r 'select(.type) | .live | type' a.json | sort -u)" boolean
expect_match "some came live ($(jq -r 'select(.type and .live) | 1' a.json | wc -l))" \
	"$(jq -r 'select(.type and .live) | 1' a.json | wc -l)" '^[1-9][0-9]*$'
expect "every line is one JSON object with format 1" "$(jq -r '.format' a.json | sort -u)" 1
# an agent finds the watcher at its start or at a heartbeat: each child's
# heartbeats carry watch_dropped from the first one written after it found
# it (on a loaded machine a job may start before the watchers are up)
expect "heartbeats carry watch_dropped once the agent found the watcher" \
	"$(jq -s -c '[.[] | select(.type == "heartbeat")] | group_by(.child) |
		map(sort_by(.seq) | [.[] | has("watch_dropped")]) | [(map(. == sort) | all), (map(any) | any)]' a.json)" '[true,true]'
expect "... each a number" \
	"$(jq -r 'select(.type == "heartbeat" and has("watch_dropped")) | .watch_dropped | type' a.json | sort -u)" number
expect "the live records are the file's, byte for byte (same tags)" \
	"$(jq -r 'select(.type) | .tag' a.json | sort | uniq -d | wc -l)" 0

# a watch of a benchmark that is over: the file records, then the exit
"$SBCTL" watch "$dir" --json --until-done --timeout 60 > c.json; rcc=$?
expect "a finished benchmark: exits with status's code" "$rcc" 3
expect "and shows every record, none live" \
	"$(records c.json | diff want.txt - && echo same) $(jq -r 'select(.type) | .live' c.json | sort -u)" "same false"

# a stale endpoint file (dead pid, this host) is removed by the next watcher
dead=$(sh -c 'echo $$') # a pid that is gone
printf 'endpoint tcp://127.0.0.1:9\nserver_key %s\n' "$(head -c 40 /dev/zero | tr '\0' a)" > "$(endpoint_of "$dir" $dead)"
chmod 600 "$(endpoint_of "$dir" $dead)"
"$SBCTL" watch "$dir" --json --timeout 1 > /dev/null
expect "the next watcher removed the stale endpoint file" "$(ls -A "$dir/watch")" ""

# the plain lines in a pipe
"$SBCTL" watch "$dir" --until-done --timeout 60 > plain.txt; rcp=$?
expect "plain lines: same exit" "$rcp" 3
expect_match "plain lines name the child and the record" "$(head -n 1 plain.txt)" '^child [0-9]+ attempt 0 \(file\): '
expect "no line names a child -1 (the benchmark's own records say benchmark)" "$(grep -c 'child -1' plain.txt)" 0
expect "usage error" "$("$SBCTL" watch 2>/dev/null; echo $?)" 2
expect "no such benchmark" "$("$SBCTL" watch /nonexistent 2>/dev/null; echo $?)" 2
t_done
