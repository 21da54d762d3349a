#!/bin/bash
# The fault shim itself (tests/faults/README.md), on sbagent-dyn's standalone
# run: what it counts and traces, that it fails exactly the Nth counted call
# once, a short write, the path and executable filters, and that the command
# sbagent runs inherits neither LD_PRELOAD nor SB_FAULT_*.
. "$(dirname "$0")/../fake/lib.sh"
: "${SB_BIN:?}" "${SB_FAULT_SHIM:?}" "${SB_AGENT_DYN:?}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}:verify_asan_link_order=0"
W=$T_ROOT/work
"$SB_BIN/sbctl" keygen "$W/key" >/dev/null

# agent TAG [VAR=VALUE...]: sbagent-dyn under the shim (a 0.35 s command, 0.1 s heartbeats)
agent() {
	local tag=$1
	shift
	rm -f "$W/$tag.log" "$W/$tag.trace"
	env LD_PRELOAD="$SB_FAULT_SHIM" SB_FAULT_EXE=sbagent-dyn SB_FAULT_PATH="$W/" \
		SB_FAULT_TRACE="$W/$tag.trace" "$@" "$SB_AGENT_DYN" --key "$W/key" --log "$W/$tag.log" \
		--heartbeat 0.1 -- sh -c 'env > env.txt; sleep 0.35' > "$W/$tag.out" 2> "$W/$tag.err"
	echo $? > "$W/$tag.rc"
}
# on TRACE KIND: the traced calls of KIND on the log, "INDEX:RESULT" each
on() { awk -v k="$2" -v p="$W/${1%.trace}.log" '$2 == k && $5 == p { printf "%s:%s ", $3, $4 }' "$W/$1"; }

agent count SB_FAULT_CALL=fdatasync SB_FAULT_N=0
expect "counting only: sbagent exits 0" "$(cat count.rc)" 0
expect "the key and the log are opened (path filter: the work dir only)" \
	"$(awk '$2 == "open" { print $5 }' count.trace | sed "s|$W/||" | tr '\n' ' ')" "key count.log "
expect_match "every fdatasync of the log is counted, in order" "$(on count.trace fdatasync)" \
	'^1:ok 2:ok 3:ok (4:ok )+'
expect_match "writes are traced but not counted" "$(on count.trace write)" '^0:ok 0:ok 0:ok '
expect "the command runs without the shim" "$(grep -c -E '^(LD_PRELOAD|SB_FAULT_(EXE|CALL|N|ERRNO|PATH|TRACE))=' env.txt)" 0

agent eio SB_FAULT_CALL=fdatasync SB_FAULT_N=2 SB_FAULT_ERRNO=EIO
expect_match "the 2nd fdatasync fails, once; the real call is not made" "$(on eio.trace fdatasync)" \
	'^1:ok 2:INJ-EIO '
expect_match "sbagent saw EIO" "$(cat eio.err)" 'Input/output error'

agent short SB_FAULT_CALL=write SB_FAULT_N=1 SB_FAULT_ERRNO=SHORT
expect_match "a short first write, then the writer writes the rest" "$(on short.trace write)" \
	'^1:INJ-SHORT 2:ok 3:ok '
expect "a short write loses nothing" "$("$SB_BIN/sbctl" log "$W/short.log" --key "$W/key" --json | tail -n 1 | jq -r .summary.tail)" ok

agent nospc SB_FAULT_CALL=write,fdatasync SB_FAULT_N=3 SB_FAULT_ERRNO=ENOSPC
expect_match "two kinds counted together: the 3rd of them fails" \
	"$(awk '$5 ~ /nospc.log$/ && $3 > 0 { printf "%s:%s:%s ", $2, $3, $4 }' nospc.trace)" \
	'^write:1:ok fdatasync:2:ok write:3:INJ-ENOSPC '

agent other SB_FAULT_EXE=sbctl SB_FAULT_CALL=write SB_FAULT_N=1
expect "a process that does not match SB_FAULT_EXE is left alone" "$(cat other.rc)$([ -e other.trace ] && echo ' traced')" 0
expect "and it hands the shim on to its children" "$(grep -c '^LD_PRELOAD=' env.txt)" 1

agent path SB_FAULT_PATH=/nowhere/ SB_FAULT_CALL=write SB_FAULT_N=1
expect "no call on a path outside SB_FAULT_PATH is failed or traced" "$(cat path.rc)$([ -e path.trace ] && echo ' traced')" 0

# The suite's own hang test (lib.sh, bounded): a command's exit 124 before its
# bound is its status (sbagent's "the finish could not be made durable", which
# a full disk gives within seconds), not a hang; a command that outlives its
# bound is one.  (Before: any 124 was a hang.)
. "$(dirname "$0")/lib.sh"
case_begin lib bounded
bounded 30 own sh -c 'echo finish not durable >&2; exit 124'
expect "an exit 124 within the bound is the command's status" "$RC:$(cat violations)" 124:
exit_ok own " 0 124 "
expect "... and a documented exit code" "$(cat violations)" ""
bounded 1 slow sleep 10
expect_match "a command still running at its bound is a hang" "$(cat violations)" '^hang slow: still running after 1s'
cd "$W" || exit 1

t_done
