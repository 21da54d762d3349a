# Shared by the shell tests of one sbctl command (tests/proto/sbctl_log.sh,
# sbctl_keygen.sh, tests/spec/sbctl_plan.sh): a scratch directory to work in,
# and checks that count failures instead of stopping at the first.
set -uo pipefail
sbctl=${SB_BIN:?}/sbctl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# run EXPECTED_RC CMD...: runs it with stdout in out, stderr in err
run() {
	local want=$1; shift
	"$@" >out 2>err
	local rc=$?
	if [ "$rc" != "$want" ]; then
		fail "'$*' exited $rc, expected $want"; sed 's/^/  stderr: /' err >&2
	fi
}

# has FILE TEXT: FILE contains TEXT
has() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2': $(head -c 600 "$1")"; }

# finish NAME [SUMMARY]: the verdict and the exit status
finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$1: $failures failure(s)" >&2
		exit 1
	fi
	echo "$1: ${2:-all passed}"
	exit 0
}
