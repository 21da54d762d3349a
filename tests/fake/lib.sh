# Shared helpers of the fake Slurm's shell tests.  Source it; it gives each
# test a fresh state directory and work directory, the fake first on PATH,
# fast time limits (seconds) and a short KillWait, and kills every job of
# the test at exit.
set -u
: "${SB_FAKE_BIN:?SB_FAKE_BIN must name build/fake/bin}"
export PATH="$SB_FAKE_BIN:$PATH"
# the caller's settings must not leak in
for v in $(env | sed -n 's/^\(SB_FAKE_[A-Z_]*\)=.*/\1/p'); do
	[ "$v" = SB_FAKE_BIN ] || unset "$v"
done
unset $(env | sed -n 's/^\(SBATCH_[A-Z_]*\)=.*/\1/p') SLURM_CONF
T_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/sbfake-test.XXXXXX")
export SB_FAKE_SLURM_DIR="$T_ROOT/state"
export SB_FAKE_TIME_UNIT=s
export SB_FAKE_KILLWAIT=0.2
export SB_FAKE_REQUEUE_DELAY=0.3
export SB_FAKE_NODENAME=node1
export SB_FAKE_CLUSTER=lab
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
mkdir -p "$T_ROOT/work"
cd "$T_ROOT/work" || exit 1
T_FAILS=0
T_UID=$(id -u)

t_cleanup() {
	sbfake shutdown >/dev/null 2>&1
	rm -rf "$T_ROOT"
}
trap t_cleanup EXIT

# expect DESC ACTUAL EXPECTED
expect() {
	if [ "$2" == "$3" ]; then
		echo "ok - $1"
	else
		echo "not ok - $1"
		echo "--- expected:"; printf '%s\n' "$3"
		echo "--- actual:"; printf '%s\n' "$2"
		T_FAILS=$((T_FAILS + 1))
	fi
}

# expect_match DESC ACTUAL REGEX
expect_match() {
	if [[ "$2" =~ $3 ]]; then
		echo "ok - $1"
	else
		echo "not ok - $1: '$2' does not match /$3/"
		T_FAILS=$((T_FAILS + 1))
	fi
}

# wait_for SECONDS COMMAND...: polls every 0.05 s until COMMAND succeeds
wait_for() {
	local deadline=$(( $(date +%s%N) + ${1%.*} * 1000000000 )) ; shift
	until "$@"; do
		if [ "$(date +%s%N)" -gt "$deadline" ]; then
			echo "not ok - timed out waiting for: $*"
			T_FAILS=$((T_FAILS + 1))
			return 1
		fi
		sleep 0.05
	done
}

# acct_is JOBS FIELDS EXPECTED: for wait_for (re-evaluated on every poll)
acct_is() { [ "$(acct "$1" "$2")" == "$3" ]; }
# squeue_is EXPECTED SQUEUE-ARGS...: squeue's output equals EXPECTED
squeue_is() { local want=$1; shift; [ "$(squeue "$@")" == "$want" ]; }

# true when no job of the fake is pending, running or completing
all_done() { [ -z "$(squeue -h -o %i)" ]; }

# acct JOBS FIELDS: sacct -P -n -X -j JOBS --format=FIELDS
acct() { sacct -P -n -X -j "$1" --format="$2"; }

t_done() {
	if [ "$T_FAILS" -ne 0 ]; then
		echo "FAILED: $T_FAILS check(s)"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}
