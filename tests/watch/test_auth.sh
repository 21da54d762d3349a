#!/bin/bash
# Who may talk to a watcher: a client without the benchmark's client key
# is refused at the CurveZMQ handshake (counted, shown, nothing of it
# displayed); frames that do not verify with the benchmark's HMAC key are
# refused and counted, never shown as records; genuine frames sent again
# (a replay) are not shown twice.
. "$(dirname "$0")/lib.sh"

dir=$(submit_spec a "name: a
command: [sh, -c, 'sleep 1']
parameters:
  i: [0, 1]
heartbeat: 1") || exit 1
wait_for 60 all_done
log=$(log_of "$dir" 0)

"$SBCTL" watch "$dir" --json --timeout 20 > w.json 2> w.err &
w=$!
wait_for 10 has_endpoint "$dir" "$w"
ep=$(endpoint_of "$dir" "$w")
wait_for 10 grep -q '"live":false' w.json
# every record of the files shown (they stream, one file after another)
log_records "$dir" > want.txt
wait_for 10 test "$(records w.json | wc -l)" -eq "$(wc -l < want.txt)"
before=$(records w.json | wc -l)

# no client key: refused at the handshake
"$WCLIENT" "$ep" random "$log" --wait 1500 > /dev/null
wait_for 10 grep -q '"rejected":{' w.json
expect_match "the refusal is shown, as a line without a type" \
	"$(jq -c 'select(.rejected | type == "object")' w.json | head -n 1)" '^\{"format":1,"rejected":\{"detail":"connection from .* refused: not the benchmark.s client key"\}'
expect "no line of it has a type" "$(jq -r 'select(.rejected | type == "object") | has("type")' w.json | sort -u)" false

# the client key but frames that do not verify (a tag byte flipped)
"$WCLIENT" "$ep" "$dir/keys/watch.key" "$log" --flip-tag --wait 1500 > sent.txt
n=$(cat sent.txt)
wait_for 10 test "$(jq -r 'select(.bad_frame) | 1' w.json | wc -l)" -ge "$n"
expect "every forged frame is refused, as bad_mac" \
	"$(jq -r 'select(.bad_frame) | .bad_frame.class' w.json | sort | uniq -c | tr -s ' ')" " $n bad_mac"
expect "and counted" "$(jq -r 'select(.bad_frame) | .counted.bad_frames' w.json | tail -n 1)" "$n"
expect "refused frames carry no type" "$(jq -r 'select(.bad_frame) | has("type")' w.json | sort -u)" false

# genuine frames again: verified, but shown once already
"$WCLIENT" "$ep" "$dir/keys/watch.key" "$log" --wait 1500 > /dev/null
sleep 1
kill "$w"; wait "$w"
expect "SIGTERM: the watch ends cleanly" "$?" 0
expect "no record was added by any of it" "$(records w.json | wc -l)" "$before"
expect "nothing live" "$(jq -r 'select(.type) | .live' w.json | sort -u)" false
expect "the endpoint file is gone" "$(ls -A "$dir/watch")" ""
expect "no error on stderr" "$(cat w.err)" ""

# a watch key that is not the owner's alone is refused, not used
chmod 640 "$dir/keys/watch.key"
"$SBCTL" watch "$dir" --json --timeout 1 > /dev/null 2> k.err
expect "a group-readable watch key: watch fails (1)" "$?" 1
expect_match "and says why" "$(cat k.err)" "watch.key.*refused"
chmod 600 "$dir/keys/watch.key"
# a scheduler that does not answer: a warning, asked again, then the verdict
shim sacct 'if [ "$n" -le 2 ]; then echo "sacct: error: slurmdbd: Connection refused" >&2; exit 1; fi'
"$SBCTL" watch "$dir" --json --until-done --timeout 60 > s.json 2> s.err
expect "sacct down twice: watch --until-done still ends with status's code" "$?" 0
expect_match "and warned that it retries" "$(cat s.err)" "sbctl watch: .*sacct.*retrying in 2 s"
expect "sacct was asked again" "$(count_calls sacct)" 3
rm -f "$SHIM/sacct"
expect "a bad --bind is a usage error" "$("$SBCTL" watch "$dir" --bind nonsense://x 2>/dev/null; echo $?)" 2
t_done
