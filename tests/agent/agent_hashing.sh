#!/usr/bin/env bash
# A termination signal (Slurm's TERM at a time limit or scancel) that comes
# while sbagent hashes the results, after the command's tree is gone, is
# honoured within the kill-wait budget: a signal record, the file being
# hashed and those after it that no longer fit recorded not_hashed (size and
# mtime), the finish on disk before the budget ends.  (Before: signals were
# not read during hashing; an 8 GiB result kept sbagent hashing for seconds
# after the TERM, and Slurm's SIGKILL would have come first.)
. "$(dirname "$0")/lib.sh"

# A sparse 8 GiB file: nothing on disk, but seconds of SHA-256.
rm -f done
"$AGENT" --key "$K" --log "$T/hashterm" --kill-wait 2 --heartbeat 0 \
	--result big.bin --result small.txt -- sh -c '
	truncate -s 8G big.bin
	echo hello > small.txt
	echo > done' 2>err &
pid=$!
wait_for done || fail "the command did not run"
sleep 0.3 # the command has exited: sbagent is hashing big.bin
t0=$(date +%s%N)
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "TERM while hashing: sbagent exits like the command, 0 (got $rc)" test "$rc" -eq 0
check "TERM while hashing: exits within the 2 s budget (${ms} ms)" test "$ms" -lt 2000
logjson "$T/hashterm"
check "TERM while hashing: log verifies" test "$LOGRC" -eq 0
sig=$(record signal <<<"$OUT")
check "TERM while hashing: a signal record" test "$(field name <<<"$sig")" = '"TERM"'
check "TERM while hashing: not forwarded (no process left)" \
	test "$(field action <<<"$sig")" = '"not_forwarded"'
fin=$(record finish <<<"$OUT")
check "TERM while hashing: big.bin not hashed, with its size" \
	grep -q '{"mtime_ns":[0-9]*,"not_hashed":true,"path":"big.bin","size":8589934592}' <<<"$fin"
sum=$(sha256sum small.txt | cut -d' ' -f1)
check "TERM while hashing: small.txt still fits and is hashed" \
	grep -q "\"path\":\"small.txt\",\"sha256\":\"$sum\"" <<<"$fin"
ts=$(field time_ns <<<"$sig")
tf=$(field time_ns <<<"$fin")
check "TERM while hashing: finish $(( (tf - ts) / 1000000 )) ms after the signal record, inside 2 s" \
	test $(( (tf - ts) / 1000000 )) -lt 2000

# Heartbeats go on while a long hashing runs (1 GiB sparse: a second or
# more of SHA-256, after a command that took milliseconds).
rc=0
"$AGENT" --key "$K" --log "$T/hashbeat" --heartbeat 0.1 --result big2.bin -- \
	truncate -s 1G big2.bin || rc=$?
check "long hashing: exit 0 (got $rc)" test "$rc" -eq 0
logjson "$T/hashbeat"
check "long hashing: big2.bin hashed" grep -q '"path":"big2.bin","sha256"' <<<"$OUT"
n=$(count_type heartbeat <<<"$OUT")
check "long hashing: heartbeats while hashing ($n)" test "$n" -ge 2
check "long hashing: log verifies" test "$LOGRC" -eq 0
finish_tests
