#!/usr/bin/env bash
# sbctl log DIR on several threads prints what one thread prints: a
# benchmark of 4,500 agent logs (more than one batch of 4,096 files),
# written by tests/bench/gen_status_logs, with a log torn, a log with a
# flipped bit, two logs of another benchmark (one of 3,000 records, over
# 1 MiB) and a file that is no log among them; its text and JSON, the notes on stderr and the exit code are the
# same bytes with SB_THREADS=1, 2 and 5 and with one thread per core.
: "${SB_BUILD:?}"
. "$SB_SRC/tests/e2e/lib.sh"
tamper=$SB_BUILD/tests/sbtamper
gen=$SB_BUILD/tests/gen_status_logs

write_spec s.yaml "name: logthreads
command: [true]
repeats: 4500"
shim sbatch 'exit 1'
"$SBCTL" submit s.yaml >/dev/null 2>&1
dir=$(echo "$SB_ROOT"/logthreads-*)
digest=$("$SBCTL" plan s.yaml --json | jq -r .benchmark.digest)
expect "benchmark directory made" "$([ -f "$dir/benchmark.msgpack" ] && echo yes)" yes
awk -v d="$digest" 'BEGIN { for (i = 0; i < 4500; i++) printf "%d %s %d 7000 %d\n", i, d, 5000000 + i, i }' |
	"$gen" "$dir" "$digest" > /dev/null
expect "logs written" "$(find "$dir/events" -type f | wc -l)" 4500
f=$dir/events/1/1500.a0.j5001500.r0.log
head -c $(( $(stat -c %s "$f") - 7 )) "$f" > t.log && mv t.log "$f"           # torn
f=$dir/events/2/2600.a0.j5002600.r0.log
"$tamper" flip "$f" 100 t.log && mv t.log "$f"                                # bad_mac
rm "$dir/events/3/3900.a0.j5003900.r0.log"
"$tamper" write "$dir/keys/hmac.key" "$dir/events/3/3900.a0.j5003900.r0.log" 2 3900 0  # foreign
echo 'not a log' > "$dir/events/4/notes.txt"                                   # corrupt
# a log over 1 MiB (as a benchmark's outcomes log is) is read by the calling
# thread, straight to the output, between the files the workers rendered
rm "$dir/events/2/2000.a0.j5002000.r0.log"
"$tamper" write "$dir/keys/hmac.key" "$dir/events/2/2000.a0.j5002000.r0.log" 3000 2000 0
expect "a large log" "$(( $(stat -c %s "$dir/events/2/2000.a0.j5002000.r0.log") > 1048576 ))" 1

for fmt in text json; do
	flag=; [ "$fmt" = json ] && flag=--json
	SB_THREADS=1 "$SBCTL" log "$dir" $flag > "out.1.$fmt" 2> "err.1.$fmt"
	expect "$fmt, 1 thread: problems found" "$?" 3
	expect "$fmt, 1 thread: a note per problem" "$(wc -l < "err.1.$fmt")" 5
	for th in 2 5 ''; do
		SB_THREADS=$th "$SBCTL" log "$dir" $flag > "out.$th.$fmt" 2> "err.$th.$fmt"
		expect "$fmt, threads '$th': exit" "$?" 3
		expect "$fmt, threads '$th': the same output" "$(cmp "out.1.$fmt" "out.$th.$fmt" && echo same)" same
		expect "$fmt, threads '$th': the same notes" "$(cmp "err.1.$fmt" "err.$th.$fmt" && echo same)" same
	done
done
expect "JSON: every file once, in child order" \
	"$(jq -r 'select(.summary.path) | .summary.path' out.1.json | grep -c /events/)" 4501
expect "JSON: the large log's records in its place" \
	"$(jq -r 'select(.summary.path) | .summary | "\(.path) \(.records)"' out.1.json | grep -n '/2000\.a0' | sed 's|/.*/| |')" \
	"2001: 2000.a0.j5002000.r0.log 3000"
expect "JSON: the total" "$(tail -n 1 out.1.json | jq -c '.summary | [.files, .tail]')" '[4502,"foreign"]'
SB_THREADS=0 "$SBCTL" log "$dir" > /dev/null 2> err
expect "SB_THREADS=0 is refused" "$?" 2
expect_match "SB_THREADS=0: says why" "$(cat err)" "SB_THREADS '0' is not a number of threads from 1 to 64"

exit $((T_FAILS > 0))
