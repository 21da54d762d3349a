#!/usr/bin/env bash
# Signals: forwarded to the command's process group with a signal record;
# a termination signal still leaves a finish record; SIGKILL of sbagent
# leaves none; a command killed by a signal makes sbagent die by it.
. "$(dirname "$0")/lib.sh"

# Each forwarded signal reaches the command, which traps it and says so.
for sig in TERM INT HUP QUIT USR1 USR2; do
	rm -f ready marker
	"$AGENT" --key "$K" --log "$T/fwd.$sig" -- sh -c "
		trap 'echo $sig > marker; exit 0' $sig
		echo > ready
		while :; do sleep 0.05; done" &
	pid=$!
	wait_for ready || fail "$sig: command did not start"
	kill -s "$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	check "$sig: the command trapped it" test "$(cat marker 2>/dev/null)" = "$sig"
	check "$sig: sbagent exits like the command (0)" test "$rc" -eq 0
	logjson "$T/fwd.$sig"
	s=$(record signal <<<"$OUT")
	check "$sig: signal record" test "$(field name <<<"$s")" = "\"$sig\""
	check "$sig: action forwarded" test "$(field action <<<"$s")" = '"forwarded"'
	check "$sig: finish record with exit 0" \
		test "$(record finish <<<"$OUT" | field exit_code)" = 0
	check "$sig: log verifies" test "$LOGRC" -eq 0
done

# SIGTERM to sbagent while the command sleeps: forwarded, sleep dies of it,
# the finish record is on disk and sbagent exits as if killed by TERM.
"$AGENT" --key "$K" --log "$T/term" -- sleep 30 &
pid=$!
sleep 0.3
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
check "TERM: sbagent's status is 143 (got $rc)" test "$rc" -eq 143
logjson "$T/term"
check "TERM: signal record" test "$(record signal <<<"$OUT" | field signal)" = 15
fin=$(record finish <<<"$OUT")
check "TERM: finish record with signal 15" test "$(field signal <<<"$fin")" = 15
check "TERM: finish exit_code null" test "$(field exit_code <<<"$fin")" = null
check "TERM: finish counts 3 records" test "$(field records <<<"$fin")" = 3
check "TERM: log verifies, tail ok" test "$LOGRC" -eq 0 -a "$(tail_of <<<"$OUT")" = ok

# SIGKILL of sbagent: no finish record, the log still verifies.
"$AGENT" --key "$K" --log "$T/killed" -- sh -c 'echo $$ > cmd.pid; exec sleep 30' &
pid=$!
wait_for cmd.pid
sleep 0.1
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
kill -KILL "$(cat cmd.pid)" 2>/dev/null || true
logjson "$T/killed"
check "SIGKILL: no finish record" test "$(count_type finish <<<"$OUT")" -eq 0
check "SIGKILL: start record verified" test "$(count_type start <<<"$OUT")" -eq 1
tl=$(tail_of <<<"$OUT")
check "SIGKILL: tail ok or torn_tail (got $tl)" test "$tl" = ok -o "$tl" = torn_tail

# A command killed by a signal makes sbagent die by the same signal.
for sig in HUP INT QUIT ILL ABRT FPE KILL USR1 SEGV USR2 PIPE ALRM TERM; do
	n=$(kill -l "$sig")
	rc=0
	"$AGENT" --key "$K" --log "$T/die.$sig" -- sh -c "kill -s $sig \$\$" 2>/dev/null || rc=$?
	check "command killed by $sig: sbagent status $((128 + n)) (got $rc)" test "$rc" -eq $((128 + n))
	logjson "$T/die.$sig"
	check "command killed by $sig: finish says signal $n" \
		test "$(record finish <<<"$OUT" | field signal)" = "$n"
done

# The command gets default dispositions and an empty mask, even when
# sbagent was started with signals ignored.
rc=0
(trap '' INT HUP USR1; exec "$AGENT" --key "$K" --log "$T/dfl" -- grep -E "^Sig(Blk|Ign)" /proc/self/status > sigs) || rc=$?
check "command's signal mask is empty" grep -q '^SigBlk:[[:space:]]*0*$' sigs
check "command ignores no signal" grep -q '^SigIgn:[[:space:]]*0*$' sigs

# Its own process group.
"$AGENT" --key "$K" --log "$T/pgrp" -- sh -c 'cut -d" " -f5 /proc/$$/stat > pg; echo $$ > me' || true
check "command leads its own process group" test "$(tr -d ' ' < pg)" = "$(cat me)"

# A command that ignores TERM is killed near the end of --kill-wait.
"$AGENT" --key "$K" --log "$T/stubborn" --kill-wait 1 -- sh -c '
	trap "" TERM
	echo > ready2
	while :; do sleep 0.05; done' &
pid=$!
wait_for ready2
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
check "kill-wait: sbagent dies of KILL like the command (got $rc)" test "$rc" -eq 137
logjson "$T/stubborn"
# the finish record's own time, against the forwarded TERM's: inside 1 s
ts=$(record signal <<<"$OUT" | head -n 1 | field time_ns)
tf=$(record finish <<<"$OUT" | field time_ns)
ms=$(( (tf - ts) / 1000000 ))
check "kill-wait: finish written within the 1 s budget (${ms} ms after TERM)" test "$ms" -lt 1000
check "kill-wait: a kill_after_killwait record" grep -q '"action":"kill_after_killwait"' <<<"$OUT"
check "kill-wait: finish with signal 9" test "$(record finish <<<"$OUT" | field signal)" = 9
check "kill-wait: log verifies" test "$LOGRC" -eq 0
# With no kill-wait budget left, results are recorded with size and mtime only.
"$AGENT" --key "$K" --log "$T/nohash" --kill-wait 0 --result big.bin -- sh -c '
	head -c 100000 /dev/zero > big.bin
	echo > ready3
	exec sleep 30' &
pid=$!
wait_for ready3
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
check "kill-wait 0: dies of TERM or KILL (got $rc)" test "$rc" -eq 143 -o "$rc" -eq 137
logjson "$T/nohash"
check "kill-wait 0: result not hashed, with size" \
	grep -q '{"mtime_ns":[0-9]*,"not_hashed":true,"path":"big.bin","size":100000}' <<<"$OUT"
check "kill-wait 0: log verifies" test "$LOGRC" -eq 0
finish_tests
