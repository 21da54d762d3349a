# Helpers for the sbagent shell tests: sourced, not run.
# Needs SB_BIN (build/bin).  Records are checked through `sbctl log --json`,
# one JSON object per line, with plain text tools (no jq).
set -euo pipefail
: "${SB_BIN:?SB_BIN must name the build/bin directory}"
AGENT=$SB_BIN/sbagent
SBCTL=$SB_BIN/sbctl
T=$(mktemp -d "${TMPDIR:-/tmp}/sbagent-test.XXXXXX")
T=$(cd "$T" && pwd -P)
trap 'rm -rf "$T"' EXIT
cd "$T"
"$SBCTL" keygen "$T/key" >/dev/null
K=$T/key
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
check() { # check DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}
finish_tests() {
	if [ "$failures" -ne 0 ]; then
		echo "$failures check(s) failed" >&2
		exit 1
	fi
	echo "all checks passed"
}

# logjson LOG: sets OUT to the JSON lines of the log and LOGRC to the exit
# status of sbctl log.
logjson() {
	LOGRC=0
	OUT=$("$SBCTL" log "$1" --key "$K" --json) || LOGRC=$?
}
# record TYPE < json: the lines of records of TYPE
record() { grep "\"type\":\"$1\"" || true; }
# field KEY < line: the scalar value of KEY (strings keep their quotes)
field() { sed -n "s/.*\"$1\":\(\"[^\"]*\"\|[^,}]*\).*/\1/p" | head -n 1; }
# count_type TYPE < json
count_type() { grep -c "\"type\":\"$1\"" || true; }
# tail_of < json: the summary's tail
tail_of() { grep '"summary"' | tail -n 1 | sed -n 's/.*"tail":"\([a-z_]*\)".*/\1/p'; }

# wait_for FILE [SECONDS]: until FILE exists
wait_for() {
	local i n=$(( ${2:-10} * 20 ))
	for ((i = 0; i < n; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	return 1
}
