#!/usr/bin/env bash
# sbagent when writing its log fails (docs/sbagent.md, "Faults"): a
# dynamically linked copy (agent_fault_sbagent) with an LD_PRELOAD shim
# (fault_shim.c) that fails chosen write(2)/fdatasync(2) calls on the log.
# A transient failure of a heartbeat does not lose the finish; a finish that
# cannot be made durable makes sbagent exit 124, never the command's 0; a
# start that cannot be made durable means the command does not run (125).
. "$(dirname "$0")/lib.sh"
: "${SB_BUILD:?SB_BUILD must name the build directory}"
DYN=$SB_BUILD/tests/agent_fault_sbagent
SHIM=$SB_BUILD/tests/agent_fault_shim.so
# the shim is preloaded before a sanitizer runtime in the sanitizer build
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# faulty NAME OP NTH TIMES ERRNO AGENT-ARGS... : runs agent_fault_sbagent with log
# $T/NAME.log, the shim failing calls NTH.. NTH+TIMES-1 of OP on it; sets RC.
faulty() {
	local name=$1 op=$2 nth=$3 times=$4 e=$5
	shift 5
	RC=0
	env LD_PRELOAD="$SHIM" SBF_PATH="/$name.log" SBF_OP="$op" SBF_NTH="$nth" \
		SBF_TIMES="$times" SBF_ERRNO="$e" \
		"$DYN" --key "$K" --log "$T/$name.log" "$@" 2>"$T/$name.err" || RC=$?
}
# complete NAME: the log verifies (tail ok) and ends with a finish whose
# `records` is the number of verified records
complete() {
	local fin n
	logjson "$T/$1.log"
	fin=$(record finish <<<"$OUT")
	n=$(grep -c '"verified":true' <<<"$OUT" || true)
	check "$1: log verifies, tail ok" test "$LOGRC" -eq 0 -a "$(tail_of <<<"$OUT")" = ok
	check "$1: finish present" test -n "$fin"
	check "$1: finish counts the $n verified records" test "$(field records <<<"$fin")" = "$n"
}

# The shim works: without it agent_fault_sbagent behaves like sbagent.
RC=0
"$DYN" --key "$K" --log "$T/plain.log" -- true || RC=$?
check "agent_fault_sbagent without faults: exit 0" test "$RC" -eq 0
complete plain

# A heartbeat's write fails once (ENOSPC that clears, EIO): the command goes
# on, the heartbeat is written again with the next record, the finish is
# there.  (Before: the writer refused every later record, no finish.)
for e in ENOSPC EIO; do
	faulty "hbw-$e" write 2 1 "$e" --heartbeat 0.1 -- sleep 0.6
	check "heartbeat write $e: exit 0 (got $RC)" test "$RC" -eq 0
	check "heartbeat write $e: said on stderr" grep -q "cannot write heartbeat record" "$T/hbw-$e.err"
	complete "hbw-$e"
done
# ... and its sync fails once (EIO): the heartbeat is written again, the
# same bytes at the same offset, then synced.
faulty hbs2 fdatasync 2 1 EIO --heartbeat 0.1 -- sleep 0.6
check "heartbeat sync EIO: exit 0 (got $RC)" test "$RC" -eq 0
complete hbs2
# Several failures in a row: heartbeats skipped while one is pending are
# counted in the finish, and the chain has no gap.
faulty hbmany write 2 4 EIO --heartbeat 0.1 -- sleep 1.2
check "four failed writes: exit 0 (got $RC)" test "$RC" -eq 0
complete hbmany
# writes 2..5 fail: heartbeat 1 stays pending through the next three
# heartbeats, which are skipped; the fifth writes it, then itself
sk=$(record finish <<<"$OUT" | field skipped_records)
nhb=$(count_type heartbeat <<<"$OUT")
check "four failed writes: heartbeats went on ($nhb written)" test "$nhb" -ge 2
check "four failed writes: the 3 skipped heartbeats counted (got '$sk')" test "$sk" = 3
# A learning curve's point is not lost with a skipped heartbeat: the metrics
# change while heartbeats are skipped (writes 2..5 fail), and a later
# heartbeat carries the new numbers though the file did not move again.
faulty hbcurve write 2 4 EIO --heartbeat 0.1 --metrics m.json -- \
	sh -c 'echo "{\"a\": 1}" > m.json; sleep 0.15; echo "{\"a\": 2}" > m.json; sleep 1.1'
check "skipped heartbeats with metrics: exit 0 (got $RC)" test "$RC" -eq 0
complete hbcurve
check "skipped heartbeats with metrics: a heartbeat carries the new numbers" \
	grep -q '"type":"heartbeat".*"metrics":{"a":2}' <<<"$OUT"
# The signal record of a TERM fails once: written before the finish.
rm -f ready
env LD_PRELOAD="$SHIM" SBF_PATH=/sig.log SBF_OP=write SBF_NTH=2 SBF_ERRNO=EIO \
	"$DYN" --key "$K" --log "$T/sig.log" --heartbeat 0 -- \
	sh -c 'echo > ready; exec sleep 30' 2>"$T/sig.err" &
pid=$!
wait_for ready || fail "signal: the command did not start"
sleep 0.1
kill -TERM "$pid"
RC=0
wait "$pid" || RC=$?
check "signal record write fails once: sbagent dies of TERM like the command (got $RC)" \
	test "$RC" -eq 143
check "signal record write fails once: said on stderr" grep -q "cannot write signal record" "$T/sig.err"
complete sig
check "signal record write fails once: the signal record is there" \
	test "$(record signal <<<"$OUT" | field name)" = '"TERM"'

# Short writes and EINTR: the write loop goes on, nothing is lost.
faulty short write 1 -1 SHORT --heartbeat 0.1 -- sleep 0.3
check "every write short: exit 0 (got $RC)" test "$RC" -eq 0
complete short
faulty eintr write 1 8 EINTR --heartbeat 0.1 -- sleep 0.3
check "EINTR: exit 0 (got $RC)" test "$RC" -eq 0
complete eintr

# The finish's sync fails once, or its write twice: retried, exit 0.
faulty fin1 fdatasync 2 1 EIO --heartbeat 0 -- true
check "finish sync fails once: exit 0 after a retry (got $RC)" test "$RC" -eq 0
check "finish sync fails once: retried" grep -q "trying again" "$T/fin1.err"
complete fin1
faulty fin2 write 2 2 ENOSPC --heartbeat 0 -- true
check "finish write fails twice: exit 0 after retries (got $RC)" test "$RC" -eq 0
complete fin2

# The finish can never be synced: sbagent exits 124 although the command
# exited 0, so that the scheduler says FAILED and the finish (whose bytes may
# be in the file, unproven) is never the basis of `succeeded`.
faulty finx fdatasync 2 -1 EIO --heartbeat 0 -- true
check "finish never synced: exit 124, not the command's 0 (got $RC)" test "$RC" -eq 124
check "finish never synced: said on stderr" \
	grep -q "cannot write the finish record to .*exiting 124" "$T/finx.err"
faulty finw write 2 -1 ENOSPC --heartbeat 0 -- true
check "finish never written: exit 124 (got $RC)" test "$RC" -eq 124
logjson "$T/finw.log"
check "finish never written: the start verifies, no finish" \
	test "$(count_type start <<<"$OUT")" -eq 1 -a "$(count_type finish <<<"$OUT")" -eq 0

# The disk fills during the run and stays full (a half write into the last
# free space, then ENOSPC for good): the heartbeats fail and the command runs
# to its end, the finish is retried five times and sbagent ends at once with
# 124; the log is a valid prefix (the records before, a torn tail).
rm -f marker
t0=$(date +%s)
faulty full write 3 -1 FULL --heartbeat 0.1 -- sh -c 'sleep 1; echo ran > marker'
t1=$(date +%s)
check "disk full for good during the run: exit 124 (got $RC)" test "$RC" -eq 124
check "disk full for good during the run: ends within 20 s (took $((t1 - t0)) s)" \
	test $((t1 - t0)) -lt 20
check "disk full for good during the run: the command ran to its end" test -e marker
check "disk full for good during the run: the heartbeats said so" \
	grep -q "cannot write heartbeat record" "$T/full.err"
check "disk full for good during the run: the finish said so" \
	grep -q "cannot write the finish record to .*exiting 124" "$T/full.err"
logjson "$T/full.log"
check "disk full for good during the run: a valid prefix with a torn tail" \
	test "$(tail_of <<<"$OUT")" = torn_tail
check "disk full for good during the run: start and first heartbeat verify, no finish" \
	test "$(count_type start <<<"$OUT")" -eq 1 -a "$(count_type heartbeat <<<"$OUT")" -eq 1 \
	-a "$(count_type finish <<<"$OUT")" -eq 0
# ... and full from the start: 125 after the retries, the command never ran.
rm -f marker
t0=$(date +%s)
faulty full0 write 1 -1 FULL --heartbeat 0.1 -- sh -c 'echo ran > marker'
t1=$(date +%s)
check "disk full from the start: exit 125 (got $RC)" test "$RC" -eq 125
check "disk full from the start: ends within 20 s (took $((t1 - t0)) s)" test $((t1 - t0)) -lt 20
check "disk full from the start: the command did not run" test ! -e marker
check "disk full from the start: said on stderr" \
	grep -q "cannot write the start record to .*the command did not run" "$T/full0.err"
logjson "$T/full0.log"
check "disk full from the start: a torn tail, no record" \
	test "$(tail_of <<<"$OUT")" = torn_tail -a "$(count_type start <<<"$OUT")" -eq 0

# The start cannot be made durable: the command does not run (125).
rm -f marker
faulty nostart fdatasync 1 -1 EIO -- sh -c 'echo ran > marker'
check "start never synced: exit 125 (got $RC)" test "$RC" -eq 125
check "start never synced: the command did not run" test ! -e marker
# ... unless it is transient: retried, and the run goes on.
faulty start1 fdatasync 1 1 EIO -- sh -c 'echo ran > marker'
check "start synced on retry: exit 0 (got $RC)" test "$RC" -eq 0
check "start synced on retry: the command ran" test -e marker
complete start1
finish_tests
