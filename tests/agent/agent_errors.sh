#!/usr/bin/env bash
# 126/127 with a finish record; sbagent's own failures (bad key, existing or
# unwritable log, usage) exit 125 before the command runs and write nothing.
. "$(dirname "$0")/lib.sh"

# 127: not found
rc=0
"$AGENT" --key "$K" --log "$T/nf" -- ./no-such-command 2>err || rc=$?
check "not found: exit 127 (got $rc)" test "$rc" -eq 127
check "not found: says so on stderr" grep -q "^sbagent: cannot execute './no-such-command': No such file or directory" err
logjson "$T/nf"
fin=$(record finish <<<"$OUT")
check "not found: finish error" test "$(field error <<<"$fin")" = '"exec failed: No such file or directory"'
check "not found: finish exit_code 127" test "$(field exit_code <<<"$fin")" = 127
check "not found: log verifies" test "$LOGRC" -eq 0

# 126: found, not executable
printf '#!/bin/sh\necho ran > ran\n' > noexec.sh
chmod 644 noexec.sh
rc=0
"$AGENT" --key "$K" --log "$T/nx" -- ./noexec.sh 2>err || rc=$?
check "not executable: exit 126 (got $rc)" test "$rc" -eq 126
check "not executable: did not run" test ! -e ran
logjson "$T/nx"
fin=$(record finish <<<"$OUT")
check "not executable: finish error" test "$(field error <<<"$fin")" = '"exec failed: Permission denied"'
check "not executable: finish exit_code 126" test "$(field exit_code <<<"$fin")" = 126

# 125: the command must not run and no log may appear.
refused() { # refused NAME LOG ARGS...: sbagent exits 125 without running
	local name=$1 log=$2 rc=0
	shift 2
	rm -f marker
	"$AGENT" "$@" -- sh -c 'echo ran > marker' 2>err || rc=$?
	check "$name: exit 125 (got $rc)" test "$rc" -eq 125
	check "$name: the command did not run" test ! -e marker
	check "$name: message on stderr" grep -q '^sbagent: ' err
	if [ -n "$log" ]; then check "$name: no log written" test ! -e "$log"; fi
}
refused "missing key" "$T/l1" --key "$T/nokey" --log "$T/l1"
ln -s "$K" keylink
refused "symlinked key" "$T/l2" --key keylink --log "$T/l2"
cp "$K" k640 && chmod 640 k640
refused "group-readable key" "$T/l3" --key k640 --log "$T/l3"
cp "$K" k604 && chmod 604 k604
refused "other-readable key" "$T/l4" --key k604 --log "$T/l4"
head -c 31 "$K" > kshort && chmod 600 kshort
refused "short key" "$T/l5" --key kshort --log "$T/l5"
if [ "$(id -u)" -eq 0 ]; then
	cp "$K" knobody && chown 65534 knobody
	refused "key owned by someone else" "$T/l6" --key knobody --log "$T/l6"
fi

echo "earlier run" > existing
refused "existing log" "" --key "$K" --log existing
check "existing log: left unchanged" test "$(cat existing)" = "earlier run"
ln -s existing loglink
refused "log path is a symlink" "" --key "$K" --log loglink
check "symlinked log: target unchanged" test "$(cat existing)" = "earlier run"
refused "log in a missing directory" "" --key "$K" --log "$T/no/such/dir/log"

refused "no --key" "$T/l7" --log "$T/l7"
refused "no --log" "" --key "$K"
refused "bad --heartbeat" "$T/l8" --key "$K" --log "$T/l8" --heartbeat abc
refused "too short --heartbeat" "$T/l12" --key "$K" --log "$T/l12" --heartbeat 0.01
refused "negative --kill-wait" "$T/l9" --key "$K" --log "$T/l9" --kill-wait -1
refused "unknown option" "$T/l10" --key "$K" --log "$T/l10" --frobnicate
rc=0
"$AGENT" --key "$K" --log "$T/l11" 2>err || rc=$?
check "no command: exit 125 (got $rc)" test "$rc" -eq 125
check "no command: no log" test ! -e "$T/l11"
# The finish record cannot be written (here: the file size limit, so the
# start record fits and the finish, with a large metrics map, does not):
# said on stderr, retried, and sbagent exits 124, not the command's status:
# a finish that is not on disk proves nothing, so even a command that
# exited 0 must not look like a success to the scheduler.
{
	printf '{'
	for i in $(seq 200); do printf '"metric_%03d": %d, ' "$i" "$i"; done
	printf '"last": 0}\n'
} > big-metrics.json
for code in 0 3; do
	rc=0
	(ulimit -f 1; exec "$AGENT" --key "$K" --log "$T/nofinish$code" --metrics big-metrics.json -- sh -c "exit $code") 2>err || rc=$?
	check "finish not written, command exit $code: sbagent exits 124 (got $rc)" test "$rc" -eq 124
	check "finish not written: said on stderr" grep -q "^sbagent: cannot write the finish record to '$T/nofinish$code'.*exiting 124" err
	check "finish not written: tried again" grep -q "trying again" err
done
mv "$T/nofinish0" "$T/nofinish"
logjson "$T/nofinish"
check "finish not written: the start record verifies, no finish" \
	test "$(count_type start <<<"$OUT")" -eq 1 -a "$(count_type finish <<<"$OUT")" -eq 0
tl=$(tail_of <<<"$OUT")
check "finish not written: tail ok or torn_tail (got $tl)" test "$tl" = ok -o "$tl" = torn_tail
finish_tests
