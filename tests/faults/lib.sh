# Helpers of the fault-injection suite (tests/faults/README.md): running a
# command under the shim and under a bound, the case bookkeeping, and the
# invariants checked after every case.  Sourced by run.sh after
# tests/e2e/lib.sh (the fake Slurm first on PATH, sbctl, a private index).
: "${SB_FAULT_SHIM:?SB_FAULT_SHIM must name build/tests/faults/sbfault.so}"
: "${SB_AGENT_DYN:?SB_AGENT_DYN must name build/tests/faults/sbagent-dyn}"
: "${SB_SRC:?SB_SRC must name the source tree}"
# the shim is preloaded into sanitized binaries too (the ASan build): ASan
# must not insist on coming first
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}:verify_asan_link_order=0"
CASES="$T_ROOT/cases"
mkdir -p "$CASES"

# Exit codes sbagent documents (docs/sbagent.md, EXIT STATUS), besides the
# command's own: read from the page, so a new documented code is accepted.
AGENT_CODES=" $(sed -n '/^## EXIT STATUS/,/^## /p' "$SB_SRC/docs/sbagent.md" \
	| grep -oE '\b[0-9]{1,3}\b' | sort -un | tr '\n' ' ') "
SBCTL_CODES=" 0 1 2 3 "

# ---- one case ---------------------------------------------------------------
# A case runs in its own directory $C (in a background subshell, so that
# cases can run side by side); each violation is one line of $C/violations:
# "INVARIANT message".

# case_begin CATEGORY NAME: makes $C and enters it
case_begin() {
	C="$CASES/$1/$2"
	C_CAT=$1
	C_NAME=$2
	rm -rf "$C"
	mkdir -p "$C"
	: > "$C/violations"
	cd "$C" || exit 1
}

# violate INVARIANT MESSAGE
violate() { printf '%s %s\n' "$1" "$2" >> "$C/violations"; }

# case_end: the case's verdict, in $C/result ("pass" or "fail")
case_end() {
	if [ -s "$C/violations" ]; then echo fail > "$C/result"; else echo pass > "$C/result"; fi
}

# ---- commands -----------------------------------------------------------------

# timed_out RC T0 T1 SECONDS: whether timeout(1) ended the command that ran
# from T0 to T1 (date +%s%N): its 124 (TERM) or 137 (KILL, after -k) once
# SECONDS had passed.  An exit 124 before that is the command's own status:
# sbagent's "the finish could not be made durable" (docs/sbagent.md), which a
# full disk rightly gives within seconds, is no hang.
timed_out() {
	{ [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; } && [ $(( ($3 - $2) / 1000000000 )) -ge "$4" ]
}

# bounded SECONDS NAME CMD...: runs CMD with stdout in $C/NAME.out and stderr in
# $C/NAME.err; its exit code in $C/NAME.rc and $RC.  A command still running
# after SECONDS is killed and is a `hang` violation (and $C/NAME.hang exists).
bounded() {
	local secs=$1 name=$2 t0 t1
	shift 2
	rm -f "$C/$name.hang"
	t0=$(date +%s%N)
	# (in a subshell that hides bash's "Killed" notice of a case that kills sbctl)
	RC=$( { timeout -k 3 "$secs" "$@" > "$C/$name.out" 2> "$C/$name.err"; echo $?; } 2>/dev/null)
	t1=$(date +%s%N)
	echo "$RC" > "$C/$name.rc"
	if timed_out "$RC" "$t0" "$t1" "$secs"; then
		: > "$C/$name.hang"
		violate hang "$name: still running after ${secs}s: $*"
	fi
	return 0
}

# exit_ok NAME CODES: $C/NAME.rc is one of CODES (" 0 1 2 ") and an exit
# that reports a failure (not 0, not sbctl's 3: "not every child succeeded")
# came with a message on stderr
exit_ok() {
	local rc
	rc=$(cat "$C/$1.rc")
	[ -e "$C/$1.hang" ] && return 0   # already a hang
	case "$2" in
	*" $rc "*) ;;
	*) violate exit "$1: exit $rc is not a documented exit code ($2)";;
	esac
	if [ "$rc" -ne 0 ] && { [ "$rc" -ne 3 ] || [ "$2" != "$SBCTL_CODES" ]; } && ! grep -q '[^[:space:]]' "$C/$1.err"; then
		violate exit "$1: exit $rc with nothing on stderr"
	fi
}

# faulted EXE CALL N ERRNO PATH: sets FAULTED to the `env ...` prefix that
# runs a command with the shim preloaded, acting in processes whose
# executable contains EXE, on paths containing PATH, tracing to $C/trace
faulted() {
	FAULTED=(env LD_PRELOAD="$SB_FAULT_SHIM" SB_FAULT_EXE="$1" SB_FAULT_CALL="$2" SB_FAULT_N="$3"
		SB_FAULT_ERRNO="$4" SB_FAULT_PATH="$5" SB_FAULT_TRACE="$C/trace")
}

# injected: the trace line of the injected call, if the fault happened
injected() { grep -m1 ' INJ-' "$C/trace" 2>/dev/null; }

# call_counts TRACE: "KIND COUNT" for every kind traced, COUNT the most calls
# of that kind one process made
call_counts() {
	[ -f "$1" ] || return 0
	awk '{ n[$1" "$2]++ } END { for (k in n) { split(k, a, " "); if (n[k] > m[a[2]]) m[a[2]] = n[k] }
		for (c in m) print c, m[c] }' "$1" | sort
}

# sample COUNT CAP: 1..COUNT, or CAP values spread evenly over it (first and last kept)
sample() {
	local count=$1 cap=$2 i
	if [ "$count" -le "$cap" ]; then seq 1 "$count"; return; fi
	for ((i = 0; i < cap; i++)); do echo $((1 + i * (count - 1) / (cap - 1))); done | uniq
}

# ---- the scheduler ----------------------------------------------------------

# arrays_by_name PREFIX: "JOBNAME ARRAYS" for every job whose name starts with PREFIX
arrays_by_name() {
	sacct -n -X -P -S 2020-01-01 --format=JobID,JobName 2>/dev/null \
		| awk -F'|' -v p="$1" 'index($2, p) == 1 { split($1, a, "_"); print $2, a[1] }' \
		| sort -u | awk '{ n[$1]++ } END { for (k in n) print k, n[k] }' | sort
}

# jobs_active PREFIX: true while a job whose name starts with PREFIX is pending or running
jobs_active() { squeue -h -o '%j' 2>/dev/null | grep -q "^$1"; }

# wait_jobs PREFIX SECONDS: bounded wait until no job of PREFIX is active; `hang` otherwise
wait_jobs() {
	local deadline=$(( $(date +%s) + $2 ))
	while jobs_active "$1"; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			violate hang "jobs $1* still pending or running after $2 s"
			return 1
		fi
		sleep 0.1
	done
}

# ---- invariants ---------------------------------------------------------------

# check_once PREFIX NAMES...: every expected chunk job name (PREFIX + NAME) was
# submitted as exactly one array, and no other name of the benchmark exists
check_once() {
	local prefix=$1 name got
	shift
	arrays_by_name "$prefix" > "$C/arrays"
	for name in "$@"; do
		got=$(awk -v n="$prefix$name" '$1 == n { print $2 }' "$C/arrays")
		[ "${got:-0}" = 1 ] || violate once "$prefix$name: ${got:-0} arrays submitted, not exactly one"
	done
	while read -r name got; do
		case " $* " in
		*" ${name#"$prefix"} "*) ;;
		*) violate once "$name: $got arrays of a chunk that should not exist";;
		esac
	done < "$C/arrays"
}

# log_summary FILE [--key K]: the tail class of one log (or "error N")
log_summary() {
	local out rc
	out=$("$SBCTL" log "$@" --json 2>/dev/null)
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then echo "error $rc"; return; fi
	printf '%s\n' "$out" | tail -n 1 | jq -r .summary.tail
}

# finish_exit FILE [--key K]: the exit code of the log's verified finish record, or "none"
finish_exit() {
	"$SBCTL" log "$@" --json 2>/dev/null \
		| jq -r 'select(.type == "finish" and .verified) | .exit_code // "signal"' | tail -n 1 | grep . || echo none
}

# check_prefix FILE [--key K]: the log is a valid prefix (tail ok or torn_tail)
check_prefix() {
	local tail
	tail=$(log_summary "$@")
	case "$tail" in
	ok|torn_tail) ;;
	*) violate prefix "$1: tail $tail (not a valid prefix)";;
	esac
}

# durable LOG: from $C/trace, the last write to LOG was followed by a
# successful sync of it, and nothing was written after that sync
durable() {
	[ -f "$C/trace" ] || return 0
	awk -v p="$1" '$5 == p && ($2 == "write" || $2 == "pwrite" || $2 == "ftruncate") { w = NR; s = 0; ws = $4 }
		$5 == p && ($2 == "fsync" || $2 == "fdatasync") && NR > w { if ($4 == "ok") s = NR; else bad = NR }
		END { exit !(w > 0 && s > 0) }' "$C/trace"
}

# check_kept LOG PID RESULT: a one-off fault on a heartbeat of the agent PID
# (after its start record was synced, before it opened RESULT to hash it
# for the finish) did not lose the finish
check_kept() {
	local log=$1 pid=$2 result=$3 inj
	[ -f "$C/trace" ] || return 0
	inj=$(awk -v p="$log" -v pid="$pid" -v r="$result" '$1 != pid { next }
		$5 == p && ($2 == "fsync" || $2 == "fdatasync") && $4 == "ok" && !started { started = NR }
		$5 == r && ($2 == "open" || $2 == "openat") && !fin { fin = NR }
		$4 ~ /^INJ-/ { inj = NR; line = $0 }
		END { if (started && inj > started && (!fin || inj < fin)) print line }' "$C/trace")
	[ -n "$inj" ] || return 0
	[ "$(finish_exit "$log" "${@:4}")" != none ] ||
		violate kept "$log: a one-off fault on a heartbeat ($inj) lost the finish"
}

# written FILE: the trace shows a write to FILE (it was written under the shim)
written() {
	[ -f "$C/trace" ] && awk -v p="$1" '$5 == p && ($2 == "write" || $2 == "pwrite") { f = 1 } END { exit !f }' "$C/trace"
}

# check_success LOG [--key K]: a success rests on a durable verified finish
# with exit 0 (for a log written under the shim, durability from the trace)
check_success() {
	local log=$1 fin
	shift
	if [ ! -f "$log" ]; then
		violate durable "taken as a success without a log ($log)"
		return
	fi
	fin=$(finish_exit "$log" "$@")
	if [ "$fin" != 0 ]; then
		violate durable "$log: taken as a success, but the verified finish says exit '$fin'"
	elif [ "$(log_summary "$log" "$@")" != ok ]; then
		violate durable "$log: taken as a success, but the log's tail is $(log_summary "$log" "$@")"
	elif written "$log" && ! durable "$log"; then
		violate durable "$log: taken as a success, but the finish was never synced after its last write ($(grep -F " $log" "$C/trace" | tail -n 2 | tr '\n' ';'))"
	fi
}

# check_bench DIR: after the jobs ended, every log (events/ and submissions/)
# is a valid prefix, and every child status calls succeeded rests on a
# durable verified finish of its latest log
check_bench() {
	local dir=$1 f rel
	[ -d "$dir/events" ] && "$SBCTL" log "$dir" --json 2>/dev/null \
		| jq -r 'select(.summary.path) | "\(.summary.path) \(.summary.tail)"' > "$C/tails"
	while read -r f tail; do
		case "$tail" in ok|torn_tail) ;; *) violate prefix "$f: tail $tail (not a valid prefix)";; esac
	done < "$C/tails"
	for f in "$dir"/submissions/*.log; do
		[ -f "$f" ] && check_prefix "$f"
	done
	bounded 30 status-after "$SBCTL" status "$dir" --json
	exit_ok status-after "$SBCTL_CODES"
	jq -e . "$C/status-after.out" >/dev/null 2>&1 || return 0
	jq -r '.children[] | select(.class == "succeeded") | .log // "-"' "$C/status-after.out" |
	while read -r rel; do
		if [ "$rel" = - ]; then violate durable "a succeeded child without a log"; continue; fi
		check_success "$dir/$rel"
	done
}

# check_agent_exits PREFIX: every task of the benchmark's jobs ended with a
# documented sbagent exit code (sacct's ExitCode N:0; a signal S is allowed)
check_agent_exits() {
	sacct -n -X -P -S 2020-01-01 --format=JobID,JobName,ExitCode 2>/dev/null \
		| awk -F'|' -v p="$1" 'index($2, p) == 1 { print $1, $3 }' |
	while read -r id code; do
		case "$AGENT_CODES" in
		*" ${code%%:*} "*) ;;
		*) violate exit "task $id: sbagent exit ${code%%:*} is not documented ($AGENT_CODES)";;
		esac
	done
}

# ---- running cases side by side -----------------------------------------------

POOL_JOBS=${SB_FAULTS_JOBS:-2}
# spawn FUNCTION ARGS...: runs a case in the background, at most POOL_JOBS at a time
spawn() {
	while [ "$(jobs -rp | wc -l)" -ge "$POOL_JOBS" ]; do wait -n 2>/dev/null || true; done
	( "$@" ) &
}
pool_wait() { wait; }
