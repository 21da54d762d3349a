#!/bin/bash
# sbctl status reads sacct's output as it comes, never whole: an answer
# larger than any buffer sbctl would keep (over 64 MiB: the accounting of a
# million array tasks is about 90 MB) is parsed line by line and the
# benchmark's own rows are found in it; a line longer than 1 MiB is refused
# with a clear error (exit 1), not cut short; an answer without a final
# newline still counts its last line.
. "$(dirname "$0")/lib.sh"

# a benchmark of two children that ran, and whose outcomes no status has
# recorded yet (so its classes rest on what sacct answers now)
ran() {
	local d
	d=$(submit_spec "$1" "name: $1
command: [true]
repeats: 2")
	"$SBCTL" wait "$d" --timeout 60 --interval 1 > /dev/null 2>&1
	expect "$1: the benchmark ran" "$?" 0
	echo "$d" > "$1.dir"
}
ran big
ran nonl
dir=$(cat big.dir)
a=$(array_of big)


# 90,000 rows of other jobs, each with a node list of 800 characters,
# before the benchmark's own
cat > "$SHIM/sacct" <<SHIM
#!/bin/bash
awk 'BEGIN { nodes = "n0"; for (k = 1; k < 160; k++) nodes = nodes ",n" k "00";
	for (i = 0; i < 90000; i++)
	printf "900_%d|%d|other-job-name|COMPLETED|0:0|2026-11-30T13:00:00|2026-11-30T13:00:01|2026-11-30T13:00:05|%s\n", i, 2000000 + i, nodes }'
exec "$SB_FAKE_BIN/sacct" "\$@"
SHIM
chmod +x "$SHIM/sacct"
bytes=$("$SHIM/sacct" -P -n -X -D -j "$a" --format=JobID | wc -c)
expect "the answer is larger than 64 MiB" "$((bytes > 64 * 1024 * 1024))" 1
st s.json "$dir"
expect "a 70 MB answer: status exits 0" "$?" 0
expect "a 70 MB answer: both children succeeded" "$(classes s.json)" "0:succeeded 1:succeeded"
expect "a 70 MB answer: the rows are sacct's" "$(jq -r '[.children[].scheduler_state] | join(" ")' s.json)" "COMPLETED COMPLETED"

# a line over 1 MiB
cat > "$SHIM/sacct" <<SHIM
#!/bin/bash
head -c 2000000 /dev/zero | tr '\0' x
echo
exec "$SB_FAKE_BIN/sacct" "\$@"
SHIM
"$SBCTL" status "$dir" --json > l.json 2> l.err
expect "a 2 MB line: status exits 1" "$?" 1
expect_match "a 2 MB line: says why" "$(cat l.err)" "sacct.*a line of its output is longer than 1048576 bytes"

# no newline at the end: the last row counts
cat > "$SHIM/sacct" <<SHIM
#!/bin/bash
"$SB_FAKE_BIN/sacct" "\$@" | head -c -1
SHIM
st n.json "$(cat nonl.dir)"
expect "no final newline: status exits 0" "$?" 0
expect "no final newline: both children succeeded" "$(classes n.json)" "0:succeeded 1:succeeded"
expect "no final newline: the last row is read" "$(jq -r '[.children[].scheduler_state] | join(" ")' n.json)" "COMPLETED COMPLETED"
exit $((T_FAILS > 0))
