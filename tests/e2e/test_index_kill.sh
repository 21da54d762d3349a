#!/bin/bash
# An sbctl killed with SIGKILL inside a write transaction of the local index
# slows and breaks nothing: its fcntl locks die with it, so `sbctl list` and
# `sbctl status` run at once (before, the unix-dotfile VFS left a lock
# directory: list failed after 10 s with "database is locked", status waited
# 20 s and ran without rollback detection), and its hot journal is rolled
# back.  A lock directory left by that older scheme is ignored.
. "$(dirname "$0")/lib.sh"
KILLED=${SB_BUILD:?SB_BUILD must name the build directory}/tests/index_killed_writer
TAMPER=$SB_BUILD/tests/sbtamper

dir=$(submit_spec ik "name: ik
command: [echo, '{x}']
parameters:
  x: [a, b]")
# every job over, then every child succeeded (polled: no fixed sleep)
succeeded() { "$SBCTL" status "$1" --settle 0 > /dev/null 2>&1; }
wait_for 30 all_done && wait_for 10 succeeded "$dir" && echo "ok - the benchmark succeeds"
"$SBCTL" status "$dir" --settle 0 > /dev/null 2>&1  # the index learns the heads
f=$(log_of "$dir" 1)
cp "$f" orig.1.log
second=$("$TAMPER" frames orig.1.log | awk 'NR == 2 { print $2 }')

# timed CMD...: runs CMD, output in c.out / c.err, exit code in $rc, milliseconds in $t
timed() {
	local t0
	t0=$(date +%s%N)
	"$@" > c.out 2> c.err
	rc=$?
	t=$(( ($(date +%s%N) - t0) / 1000000 ))
}

for round in killed stale-lock-dir; do
	if [ $round = killed ]; then
		j=$("$KILLED" "$SB_INDEX")
		expect "$round: the writer died inside its transaction" "$?" 0
		expect_match "$round: it left a hot journal ($j bytes)" "$j" '^[1-9][0-9]*$'
	else
		mkdir "$SB_INDEX.lock"  # what unix-dotfile left after a kill
	fi
	timed "$SBCTL" list --json
	expect "$round: list works" "$rc" 0
	expect_match "$round: list does not wait for a lock ($t ms)" "$t" '^[0-9]{1,4}$'
	expect "$round: list shows the benchmark, not the killed writer's rows" \
		"$(jq -r '[.benchmarks[].name] | join(" ")' c.out)" ik
	# a rollback of child 1's log: detected, so the index's heads are there
	"$TAMPER" truncate orig.1.log "$second" t.log && mv t.log "$f"
	timed "$SBCTL" status "$dir" --settle 0 --json
	expect "$round: status exits 3" "$rc" 3
	expect_match "$round: status does not wait for a lock ($t ms)" "$t" '^[0-9]{1,4}$'
	expect "$round: rollback detection works" \
		"$(jq -r '.children[1] | .class + ": " + .reason' c.out)" "invalid: the log does not verify: rollback"
	cp orig.1.log "$f"
done

# killed again, then list and status at the same moment
"$KILLED" "$SB_INDEX" > /dev/null
t0=$(date +%s%N)
"$SBCTL" list > l.out 2>&1 & lp=$!
"$SBCTL" status "$dir" --settle 0 > s.out 2>&1 & sp=$!
wait $lp; lrc=$?
wait $sp; src=$?
t=$(( ($(date +%s%N) - t0) / 1000000 ))
expect "together: list works" "$lrc" 0
expect "together: status works" "$src" 0
expect_match "together: neither waits for a lock ($t ms)" "$t" '^[0-9]{1,4}$'

t_done
