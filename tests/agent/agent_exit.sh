#!/usr/bin/env bash
# Every exit code 0..255 passes through sbagent, and the finish record says it.
. "$(dirname "$0")/lib.sh"

bad=()
for c in $(seq 0 255); do
	rc=0
	"$AGENT" --key "$K" --log "$T/exit.$c" --heartbeat 0 -- sh -c "exit $c" || rc=$?
	[ "$rc" -eq "$c" ] || bad+=("$c->$rc")
done
check "all 256 exit codes pass through (${bad[*]:-none wrong})" test ${#bad[@]} -eq 0

bad=()
for c in 0 1 2 3 125 126 127 128 200 255; do
	logjson "$T/exit.$c"
	out=$OUT
	fin=$(record finish <<<"$out")
	[ "$LOGRC" -eq 0 ] &&
		[ "$(field exit_code <<<"$fin")" = "$c" ] &&
		[ "$(field signal <<<"$fin")" = null ] &&
		[ "$(field error <<<"$fin")" = null ] &&
		[ "$(field records <<<"$fin")" = 2 ] &&
		[ "$(tail_of <<<"$out")" = ok ] || bad+=("$c")
done
check "finish records the exit code (wrong: ${bad[*]:-none})" test ${#bad[@]} -eq 0

logjson "$T/exit.7"
out=$OUT
start=$(record start <<<"$out")
check "start record holds the command" grep -q '"command":\["sh","-c","exit 7"\]' <<<"$start"
check "start record holds cwd" grep -q "\"cwd\":\"$T\"" <<<"$start"
check "start record holds the key id" grep -q '"key_id":"[0-9a-f]\{16\}"' <<<"$start"
check "standalone: bench, child, attempt are null" \
	grep -q '"bench":null,"child":null,"child_digest":null,"attempt":null' <<<"$start"
check "start before finish" test "$(grep -o '"type":"[a-z]*"' <<<"$out" | tr '\n' ' ')" = '"type":"start" "type":"finish" '
finish_tests
