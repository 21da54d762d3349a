# Helpers of the watch tests: the e2e helpers, and a watcher in the
# background.
. "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"
WCLIENT="$SB_BIN/../tests/wclient"

# endpoint_of DIR PID: the endpoint file of the watcher PID
endpoint_of() { echo "$1/watch/$(hostname -s)-$2.endpoint"; }

# has_endpoint DIR PID (for wait_for)
has_endpoint() { [ -f "$(endpoint_of "$1" "$2")" ]; }

# records FILE: "child attempt seq type" of every record line, sorted
records() { jq -r 'select(.type and .child != null) | "\(.child) \(.attempt) \(.seq) \(.type)"' "$1" | sort; }

# log_records DIR: the same from sbctl log
log_records() {
	"$SBCTL" log "$1" --json > "$T_ROOT/log.json"
	records "$T_ROOT/log.json"
}
