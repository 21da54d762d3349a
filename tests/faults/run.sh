#!/bin/bash
# The fault-injection suite (tests/faults/README.md): fails the Nth write,
# sync, rename, link, open... of sbagent and sbctl (LD_PRELOAD shim), kills
# sbctl submit around every sbatch call, and fills a tiny tmpfs, then checks
# the invariants after every case.  Prints the cases per category and the
# violations per invariant; exits 1 when there is any violation.
#   run.sh [--full | --quick] [--only CATEGORY,...] [--case CATEGORY/NAME] [--keep]
# Categories: agent bench submit status rerun cancel kill tmpfs.
# --quick (the sanitizer build) samples fewer N and one errno per N;
# --case runs one case by the name the report gives it (e.g. agent/write-3-EIO);
# --keep keeps the case directories (their commands' output and traces).
# ctest sets the SB_* paths below; by hand they default to the build in
# $SB_BUILD (default: build/ of the source tree).
here=$(cd "$(dirname "$0")" && pwd)
: "${SB_SRC:=$(cd "$here/../.." && pwd)}" "${SB_BUILD:=$SB_SRC/build}"
: "${SB_BIN:=$SB_BUILD/bin}" "${SB_FAKE_BIN:=$SB_BUILD/fake/bin}"
: "${SB_FAULT_SHIM:=$SB_BUILD/tests/faults/sbfault.so}" "${SB_AGENT_DYN:=$SB_BUILD/tests/faults/sbagent-dyn}"
export SB_SRC SB_BUILD SB_BIN SB_FAKE_BIN SB_FAULT_SHIM SB_AGENT_DYN
. "$here/../e2e/lib.sh"
. "$here/lib.sh"

MODE=full
ONLY=agent,bench,submit,status,rerun,cancel,kill,tmpfs
while [ $# -gt 0 ]; do
	case "$1" in
	--full) MODE=full;;
	--quick) MODE=quick;;
	--only) ONLY=$2; shift;;
	--keep) KEEP=1;;
	--case) ONE=$2; shift;;
	*) echo "usage: run.sh [--full | --quick] [--only CATEGORY,...]" >&2; exit 2;;
	esac
	shift
done
# at most CAP values of N per call kind (sbagent's calls are few; sbctl's are many)
if [ "$MODE" = full ]; then CAP_AGENT=8 CAP_SBCTL=5; else CAP_AGENT=3 CAP_SBCTL=2; fi
CAP_AGENT=${SB_FAULTS_CAP:-$CAP_AGENT} CAP_SBCTL=${SB_FAULTS_CAP:-$CAP_SBCTL}
export SB_FAKE_MAX_ARRAY_SIZE=2    # 5 children: 3 chunks
export SB_FAKE_CPUS=16
T0=$(date +%s)

wanted() { case ",$ONLY," in *",$1,"*) return 0;; *) return 1;; esac; }

# errnos KIND: the faults that apply to a call (a short write only to writes)
errnos() {
	case "$1" in
	write|pwrite) echo EIO ENOSPC EINTR SHORT;;
	*) echo EIO ENOSPC EINTR;;
	esac
}

# sweep CAP CASEFN COUNTS-FILE: CASEFN KIND N ERRNO for every kind of
# COUNTS-FILE, N sampled over its count, every errno (one per N in quick mode)
sweep() {
	local cap=$1 fn=$2 kind count n e i=0
	while read -r kind count; do
		for n in $(sample "$count" "$cap"); do
			if [ "$MODE" = quick ]; then
				set -- $(errnos "$kind")
				shift $(( i % $# ))
				spawn "$fn" "$kind" "$n" "$1"
				i=$((i + 1))
			else
				for e in $(errnos "$kind"); do spawn "$fn" "$kind" "$n" "$e"; done
			fi
		done
	done < "$3"
	pool_wait
}

# counts CATEGORY CASEFN KINDS: runs CASEFN with the shim counting only, and
# prints "KIND COUNT" for each of KINDS that it made
counts() {
	local cat=$1 fn=$2 kinds=" $3 "
	( "$fn" count 0 EIO )
	call_counts "$CASES/$cat/count-0-EIO/trace" | while read -r kind count; do
		case "$kinds" in *" $kind "*) echo "$kind $count";; esac
	done
}

# ---- sbagent standalone ---------------------------------------------------------
AGENT_CMD='echo result > r; sleep 0.35'

agent_case() {   # KIND N ERRNO
	case_begin agent "$1-$2-$3"
	"$SBCTL" keygen "$C/key" >/dev/null
	mkdir run
	faulted sbagent-dyn "$1" "$2" "$3" "$C/"
	(cd run && bounded 30 agent "${FAULTED[@]}" "$SB_AGENT_DYN" --key "$C/key" --log "$C/a.log" --heartbeat 0.1 --result r -- sh -c "$AGENT_CMD")
	exit_ok agent "$AGENT_CODES"
	local rc pid
	rc=$(cat agent.rc)
	if [ -f a.log ]; then
		check_prefix "$C/a.log" --key "$C/key"
		pid=$(awk -v p="$C/a.log" '$5 == p { print $1; exit }' trace)
		check_kept "$C/a.log" "$pid" "$C/run/r" --key "$C/key"
	fi
	[ "$rc" = 0 ] && check_success "$C/a.log" --key "$C/key"
	case_end
}

# ---- sbagent in benchmark mode, under the fake Slurm ------------------------------
# bench_spec FILE NAME COMMAND [CHILDREN]: a spec of 2 (or CHILDREN) children
bench_spec() {
	local xs
	xs=$(seq -s, 1 "${4:-2}")
	write_spec "$1" "name: $2
command: '$3'
parameters:
  x: [$xs]
heartbeat: 1
results: [out.txt]"
}

# digest12 SPEC: the benchmark digest's first 12 digits
digest12() { "$SBCTL" plan "$1" --json | jq -r .benchmark.digest | cut -c1-12; }

bench_case() {   # KIND N ERRNO
	case_begin bench "$1-$2-$3"
	local name d
	name="b-$1-$2-$3"
	bench_spec spec.yaml "$name" 'echo x > out.txt; sleep 1.2'
	d=$(digest12 spec.yaml)
	faulted sbagent-dyn "$1" "$2" "$3" "$C/root/"
	bounded 30 submit "${FAULTED[@]}" SB_AGENT="$SB_AGENT_DYN" SB_ROOT="$C/root" SB_INDEX="$C/index.sqlite" \
		"$SBCTL" submit spec.yaml --json
	if [ "$(cat submit.rc)" != 0 ]; then
		violate exit "setup: submit without faults in sbctl failed: $(head -c 300 submit.err)"
		case_end; return
	fi
	wait_jobs "sb-$d-" 60
	check_once "sb-$d-a0-" c0
	check_agent_exits "sb-$d-"
	local dir log pid
	dir=$(jq -r .benchmark.dir submit.out)
	for log in "$dir"/events/*/*.log; do
		[ -f "$log" ] || continue
		pid=$(awk -v p="$log" '$5 == p { print $1; exit }' trace)
		local child
		child=$(basename "$log"); child=${child%%.*}
		check_kept "$log" "$pid" "$dir/runs/$child/out.txt"
	done
	SB_INDEX="$C/index.sqlite" check_bench "$dir"
	case_end
}

# ---- sbctl submit, status, rerun, cancel under the shim ---------------------------
# The shim acts in sbctl only (SB_FAULT_EXE=/sbctl) and on the case's own
# files (the spec, the benchmark root, the index); the agents run without it.
sbctl_faulted() {   # KIND N ERRNO NAME SBCTL-ARGS...
	local kind=$1 n=$2 e=$3 name=$4
	shift 4
	faulted /sbctl "$kind" "$n" "$e" "$C/"
	bounded 30 "$name" "${FAULTED[@]}" SB_ROOT="$C/root" SB_INDEX="$C/index.sqlite" "$SBCTL" "$@"
	exit_ok "$name" "$SBCTL_CODES"
}
# clean NAME SBCTL-ARGS...: the same without faults
clean() {
	local name=$1
	shift
	bounded 30 "$name" env SB_ROOT="$C/root" SB_INDEX="$C/index.sqlite" "$SBCTL" "$@"
	exit_ok "$name" "$SBCTL_CODES"
}

SUBMIT_CMD='echo x > out.txt'

submit_case() {   # KIND N ERRNO
	case_begin submit "$1-$2-$3"
	local d
	bench_spec spec.yaml "s-$1-$2-$3" "$SUBMIT_CMD" 5
	d=$(digest12 spec.yaml)
	sbctl_faulted "$1" "$2" "$3" submit submit spec.yaml --json
	clean resume submit spec.yaml --json
	if [ "$(cat resume.rc)" != 0 ]; then
		violate resume "submit again after the fault: exit $(cat resume.rc): $(head -c 300 resume.err)"
		case_end; return
	fi
	wait_jobs "sb-$d-" 60
	check_once "sb-$d-a0-" c0 c1 c2
	SB_INDEX="$C/index.sqlite" check_bench "$(jq -r .benchmark.dir resume.out)"
	case_end
}

# status: each case classifies a fresh copy of one finished benchmark (2
# succeeded, 1 failed) that no status has seen yet, so that its outcome
# records are still to be written
status_setup() {
	case_begin status setup
	write_spec spec.yaml 'name: st
command: '\''echo $SB_PARAM_x > out.txt; [ "$SB_PARAM_x" != 2 ]'\''
parameters:
  x: [0, 1, 2]
results: [out.txt]'
	clean submit submit spec.yaml --json
	wait_jobs "sb-$(digest12 spec.yaml)-" 60
	STATUS_PRISTINE=$(jq -r .benchmark.dir submit.out)
	cp -a "$STATUS_PRISTINE" "$C/baseline"
	clean baseline status "$C/baseline" --json
	jq -r '[.children[] | "\(.index):\(.class)"] | join(" ")' baseline.out > classes
	[ "$(cat classes)" = "0:succeeded 1:succeeded 2:failed" ] ||
		violate exit "setup: the status benchmark classifies as '$(cat classes)'"
	case_end
	STATUS_CLASSES=$(cat classes)
}

status_case() {   # KIND N ERRNO
	case_begin status "$1-$2-$3"
	local rc got
	mkdir root
	cp -a "$STATUS_PRISTINE" root/bench
	sbctl_faulted "$1" "$2" "$3" status status "$C/root/bench" --json
	rc=$(cat status.rc)
	if [ "$rc" = 0 ] || [ "$rc" = 3 ]; then
		got=$(jq -r '[.children[] | "\(.index):\(.class)"] | join(" ")' status.out 2>/dev/null)
		[ "$got" = "$STATUS_CLASSES" ] ||
			violate verdict "status under the fault exited $rc with '$got', not '$STATUS_CLASSES'"
	fi
	clean status-again status "$C/root/bench" --json
	got=$(jq -r '[.children[] | "\(.index):\(.class)"] | join(" ")' status-again.out 2>/dev/null)
	[ "$got" = "$STATUS_CLASSES" ] ||
		violate verdict "status after the fault gives '$got', not '$STATUS_CLASSES'"
	SB_INDEX="$C/index.sqlite" check_bench "$C/root/bench"
	case_end
}

# rerun: child 2 fails in attempt 0 and succeeds in attempt 1
rerun_case() {   # KIND N ERRNO
	case_begin rerun "$1-$2-$3"
	local d dir
	bench_spec spec.yaml "r-$1-$2-$3" 'echo x > out.txt; [ "$SB_PARAM_x" != 2 ] || [ "$SB_ATTEMPT" != 0 ]'
	d=$(digest12 spec.yaml)
	clean submit submit spec.yaml --json
	dir=$(jq -r .benchmark.dir submit.out)
	wait_jobs "sb-$d-" 60
	sbctl_faulted "$1" "$2" "$3" rerun rerun "$dir" --only failed --json
	clean resume rerun "$dir" --only failed --json
	if [ "$(cat resume.rc)" != 0 ]; then
		violate resume "rerun again after the fault: exit $(cat resume.rc): $(head -c 300 resume.err)"
		case_end; return
	fi
	wait_jobs "sb-$d-" 60
	check_once "sb-$d-" a0-c0 a1-c0
	SB_INDEX="$C/index.sqlite" check_bench "$dir"
	case_end
}

# cancel: two children that would sleep for a minute
cancel_case() {   # KIND N ERRNO
	case_begin cancel "$1-$2-$3"
	local d dir
	bench_spec spec.yaml "c-$1-$2-$3" 'sleep 60'
	d=$(digest12 spec.yaml)
	clean submit submit spec.yaml --json
	dir=$(jq -r .benchmark.dir submit.out)
	sbctl_faulted "$1" "$2" "$3" cancel cancel "$dir"
	clean resume cancel "$dir"
	[ "$(cat resume.rc)" = 0 ] ||
		violate resume "cancel again after the fault: exit $(cat resume.rc): $(head -c 300 resume.err)"
	wait_jobs "sb-$d-" 30
	check_once "sb-$d-a0-" c0
	SB_INDEX="$C/index.sqlite" check_bench "$dir"
	case_end
}

# ---- kill -9 of sbctl submit around an sbatch call ---------------------------------
# An sbatch first on PATH that, at its Kth call, SIGKILLs the sbctl above it
# before running the fake's sbatch, while it is still to run (sbctl dies,
# then the submission goes through), or after it returned.
kill_case() {   # K WHEN
	case_begin kill "$1-$2"
	local d fake
	fake=$(command -v sbatch)
	mkdir bin
	cat > bin/sbatch <<EOF
#!/bin/bash
echo \$\$ >> "$C/sbatch.pids"
n=\$(( \$(cat "$C/sbatch.n" 2>/dev/null || echo 0) + 1 ))
echo \$n > "$C/sbatch.n"
[ \$n -eq $1 ] || exec "$fake" "\$@"
p=\$PPID     # the nearest sbctl above this sbatch
while [ "\$p" -gt 1 ] && [ "\$(cat /proc/\$p/comm 2>/dev/null)" != sbctl ]; do
	p=\$(awk '{ print \$4 }' /proc/\$p/stat 2>/dev/null || echo 1)
done
case $2 in
before) kill -9 \$p; exit 1;;
during) kill -9 \$p      # a slow sbatch: sbctl dies, the submission lands a second later
	for i in \$(seq 200); do kill -0 \$p 2>/dev/null || break; sleep 0.01; done
	sleep 1
	exec "$fake" "\$@";;
after) out=\$("$fake" "\$@"); st=\$?; kill -9 \$p; printf '%s\n' "\$out"; exit \$st;;
esac
EOF
	chmod +x bin/sbatch
	bench_spec spec.yaml "k-$1-$2" "$SUBMIT_CMD" 5
	d=$(digest12 spec.yaml)
	PATH="$C/bin:$PATH" bounded 30 submit env SB_ROOT="$C/root" SB_INDEX="$C/index.sqlite" \
		"$SBCTL" submit spec.yaml --json
	[ "$(cat submit.rc)" = 137 ] || violate exit "setup: the submit was not killed (exit $(cat submit.rc))"
	# the user runs submit again at once, while an sbatch that outlived sbctl may still run
	PATH="$C/bin:$PATH" clean resume submit spec.yaml --json
	# that sbatch has ended before the arrays are counted
	local deadline=$(( $(date +%s) + 20 )) p
	for p in $(cat sbatch.pids 2>/dev/null); do
		while kill -0 "$p" 2>/dev/null; do
			[ "$(date +%s)" -lt "$deadline" ] || { violate hang "sbatch $p still running after 20 s"; break; }
			sleep 0.05
		done
	done
	if [ "$(cat resume.rc)" != 0 ]; then
		violate resume "submit again after the kill: exit $(cat resume.rc): $(head -c 300 resume.err)"
		case_end; return
	fi
	wait_jobs "sb-$d-" 60
	check_once "sb-$d-a0-" c0 c1 c2
	SB_INDEX="$C/index.sqlite" check_bench "$(jq -r .benchmark.dir resume.out)"
	case_end
}

# ---- a tiny tmpfs, filled to each level --------------------------------------------
PAGE=4096
# fill DIR FREE-PAGES: DIR/filler takes every page of DIR's tmpfs but FREE-PAGES
fill() {
	rm -f "$1/filler"
	dd if=/dev/zero of="$1/filler" bs=$PAGE 2>/dev/null
	truncate -s "-$(( $2 * PAGE ))" "$1/filler"
	sync
}
# mount_tiny DIR KB: a tmpfs of KB KiB at DIR
mount_tiny() { mkdir -p "$1" && mount -t tmpfs -o "size=${2}k,mode=0755" tmpfs "$1"; }
unmount_all() {
	local m
	for m in $(awk -v r="$CASES" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" 2>/dev/null
	done
}
KEEP=${KEEP:-0}
trap 'unmount_all; if [ "$KEEP" = 1 ]; then echo "kept $T_ROOT"; else t_cleanup; fi' EXIT

# The standalone log on a tmpfs with FREE pages left; MODE full: it stays
# full; clears: the filler goes once a write of the log failed
tmpfs_agent_case() {   # FREE MODE
	case_begin tmpfs "agent-$1-$2"
	mount_tiny "$C/fs" 64 || { violate exit "setup: cannot mount a tmpfs"; case_end; return; }
	fill "$C/fs" "$1"
	"$SBCTL" keygen "$C/key" >/dev/null
	mkdir run
	faulted sbagent-dyn none 0 EIO "$C/"
	(cd run && bounded 30 agent "${FAULTED[@]}" "$SB_AGENT_DYN" --key "$C/key" \
		--log "$C/fs/a.log" --heartbeat 0.1 --result r -- sh -c 'echo result > r; sleep 3') &
	local bg=$! deadline=$(( $(date +%s) + 30 )) rc
	if [ "$2" = clears ]; then
		while kill -0 "$bg" 2>/dev/null && ! grep -q ' e28 ' trace 2>/dev/null; do
			[ "$(date +%s)" -lt "$deadline" ] || break
			sleep 0.05
		done
		rm -f "$C/fs/filler"
	fi
	wait "$bg"
	rc=$(cat agent.rc)
	exit_ok agent "$AGENT_CODES"
	# 125: the start could not be made durable, so the command never ran
	[ "$rc" = 125 ] && [ -e run/r ] && violate exit "agent: exit 125, but the command ran"
	[ -f fs/a.log ] && check_prefix "$C/fs/a.log" --key "$C/key"
	[ "$rc" = 0 ] && check_success "$C/fs/a.log" --key "$C/key"
	# a disk full that clears during the run must not lose the finish
	if [ "$2" = clears ] && [ -f fs/a.log ] && [ "$(finish_exit "$C/fs/a.log" --key "$C/key")" = none ] &&
		awk -v p="$C/fs/a.log" '$5 == p && $2 == "fdatasync" && $4 == "ok" { s = 1 }
			$5 == p && $4 == "e28" && s { f = 1 } END { exit !f }' trace; then
		violate kept "$C/fs/a.log: ENOSPC on a heartbeat that cleared lost the finish"
	fi
	umount -l "$C/fs"
	case_end
}

# The benchmark directory on a tmpfs with FREE pages left: submit on the
# full disk, the agents on the full disk, status on the full disk (it must
# still classify), then space again: the submit resumes, every child once.
tmpfs_bench_case() {   # FREE
	case_begin tmpfs "bench-$1"
	local d dir rc
	mount_tiny "$C/fs" 256 || { violate exit "setup: cannot mount a tmpfs"; case_end; return; }
	fill "$C/fs" "$1"
	bench_spec spec.yaml "t-$1" "$SUBMIT_CMD" 5
	d=$(digest12 spec.yaml)
	# the agents run sbagent-dyn with the shim tracing only: a real ENOSPC of
	# their finish shows in the trace
	faulted sbagent-dyn none 0 EIO "$C/fs/"
	bounded 30 submit "${FAULTED[@]}" SB_AGENT="$SB_AGENT_DYN" SB_ROOT="$C/fs/root" \
		SB_INDEX="$C/index.sqlite" "$SBCTL" submit spec.yaml --json
	exit_ok submit "$SBCTL_CODES"
	wait_jobs "sb-$d-" 60
	dir=$(ls -d "$C"/fs/root/*/ 2>/dev/null | head -n 1)
	if [ "$(cat submit.rc)" = 0 ]; then
		dir=$(jq -r .benchmark.dir submit.out)
		find "$C/fs" -type f -empty | sort > empty.before
		bounded 30 status-full env SB_INDEX="$C/index.sqlite" "$SBCTL" status "$dir" --json
		rc=$(cat status-full.rc)
		exit_ok status-full "$SBCTL_CODES"
		if [ "$rc" != 0 ] && [ "$rc" != 3 ] || ! jq -e .children status-full.out >/dev/null 2>&1; then
			violate status_full "status on a full disk exited $rc without its classification: $(head -c 200 status-full.err)"
		fi
		find "$C/fs" -type f -empty | sort | comm -13 empty.before - > empty.new
		[ -s empty.new ] && violate status_full "status on a full disk left empty files: $(tr '\n' ' ' < empty.new)"
	fi
	rm -f "$C/fs/filler"
	bounded 30 resume env SB_ROOT="$C/fs/root" SB_INDEX="$C/index.sqlite" "$SBCTL" submit spec.yaml --json
	exit_ok resume "$SBCTL_CODES"
	if [ "$(cat resume.rc)" != 0 ]; then
		violate resume "submit again with space: exit $(cat resume.rc): $(head -c 300 resume.err)"
	else
		wait_jobs "sb-$d-" 60
		check_once "sb-$d-a0-" c0 c1 c2
		SB_INDEX="$C/index.sqlite" check_bench "$(jq -r .benchmark.dir resume.out)"
	fi
	umount -l "$C/fs"
	case_end
}

# ---- the categories -----------------------------------------------------------------
# one_case CATEGORY/NAME: runs that case alone (the name the report gives it)
one_case() {
	local cat=${1%%/*} name=${1#*/}
	local IFS=-
	set -- $name
	unset IFS
	case "$cat" in
	agent|bench|submit|rerun|cancel) "${cat}_case" "$@";;
	status) status_setup; status_case "$@";;
	kill) kill_case "$@";;
	tmpfs) "tmpfs_$1_case" "${@:2}";;
	*) echo "run.sh: unknown case '$cat/$name'" >&2; exit 2;;
	esac
}
if [ -n "${ONE:-}" ]; then
	ONLY=none
	( one_case "$ONE" )
fi
KINDS_AGENT="write fdatasync fsync open ftruncate"
KINDS_SBCTL="write pwrite fsync fdatasync rename link open openat mkdir symlink ftruncate"

if wanted agent; then
	counts agent agent_case "$KINDS_AGENT" > "$CASES/agent.counts"
	sweep "$CAP_AGENT" agent_case "$CASES/agent.counts"
fi
if wanted bench; then
	counts bench bench_case "$KINDS_AGENT" > "$CASES/bench.counts"
	POOL_JOBS=8 sweep "$CAP_AGENT" bench_case "$CASES/bench.counts"
fi
for cat in submit status rerun cancel; do
	wanted "$cat" || continue
	[ "$cat" = status ] && status_setup
	counts "$cat" "${cat}_case" "$KINDS_SBCTL" > "$CASES/$cat.counts"
	sweep "$CAP_SBCTL" "${cat}_case" "$CASES/$cat.counts"
done
if wanted kill; then
	for k in 1 2 3; do
		for when in before during after; do spawn kill_case "$k" "$when"; done
	done
	pool_wait
fi
if wanted tmpfs; then
	why=""
	if [ "$(id -u)" != 0 ]; then
		why="not root"
	elif ! mount_tiny "$CASES/probe" 64 2>/dev/null; then
		why="root cannot mount a tmpfs here"
	fi
	if [ -n "$why" ]; then
		# CI runs as root and must run them: there it is a failure
		if [ "${CI:-}" = true ]; then
			echo "not ok - the tmpfs cases cannot run: $why"; T_FAILS=$((T_FAILS + 1))
		else
			echo "SKIPPED - the tmpfs cases: $why (CI runs them, as root)"
		fi
	else
		umount "$CASES/probe"
		for free in 0 1 2; do
			for m in full clears; do spawn tmpfs_agent_case "$free" "$m"; done
		done
		levels="$(seq 0 20) 24 32"
		[ "$MODE" = quick ] && levels="0 3 10 16"
		for free in $levels; do spawn tmpfs_bench_case "$free"; done
		pool_wait
	fi
fi

# ---- the report ---------------------------------------------------------------------
passed=0 failed=0
echo "== cases per category (passed/total)"
for d in "$CASES"/*/; do
	cat=$(basename "$d")
	p=$(grep -lx pass "$d"/*/result 2>/dev/null | wc -l)
	n=$(ls "$d"/*/result 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] || continue
	case "$cat" in
	kill|tmpfs) fired="";;
	*) fired="(the injected fault fired in $(grep -l ' INJ-' "$d"/*/trace 2>/dev/null | wc -l))";;
	esac
	printf '  %-8s %4d/%-4d %s\n' "$cat" "$p" "$n" "$fired"
	passed=$((passed + p))
	failed=$((failed + n - p))
done
echo "== invariant violations (must all be 0)"
for inv in once durable prefix exit hang kept verdict resume status_full; do
	printf '  %-12s %d\n' "$inv" "$(cat "$CASES"/*/*/violations 2>/dev/null | awk -v i="$inv" '$1 == i' | wc -l)"
done
repro="bash tests/faults/run.sh"
[ "$SB_BUILD" -ef "$SB_SRC/build" ] || repro="SB_BUILD=$SB_BUILD $repro"
if [ "$failed" -gt 0 ]; then
	echo "== violations"
	for f in "$CASES"/*/*/violations; do
		[ -s "$f" ] || continue
		c=${f%/violations}
		echo "  ${c#"$CASES"/} (reproduce: $repro --case ${c#"$CASES"/}):"
		sed -e "s|$c/||g" -e "s|$T_ROOT/||g" -e 's|^|    |' "$f" | cut -c1-300
	done
fi
echo "suite took $(( $(date +%s) - T0 )) s ($MODE)"
[ "$T_FAILS" -eq 0 ] || failed=$((failed + T_FAILS))
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
