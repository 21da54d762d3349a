# What the benchmarks of large benchmarks share (sourced, not run): a
# scratch directory with a fake Slurm behind shims, a benchmark of N
# children submitted and given the logs of a finished run, timing and peak
# RSS of a command, and a verdict line beside a budget.
#
# Needs SB_BIN, SB_FAKE_BIN and SB_BUILD (tests/bench/run.sh exports them).
# SB_BENCH_RUNS (default 3): the best of how many runs a time is.
# SB_BENCH_STRICT=1: bench_judge makes the script exit 1 when over a budget.
: "${SB_BIN:?SB_BIN must name build/bin}" "${SB_FAKE_BIN:?SB_FAKE_BIN must name build/fake/bin}"
: "${SB_BUILD:?SB_BUILD must name the build directory}"
sbctl=$SB_BIN/sbctl
bench_runs=${SB_BENCH_RUNS:-3}
bench_fail=0
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"

now() { date +%s.%N; }
calc() { echo "$*" | bc -l; }

# bench_work NAME: a scratch directory $work (under $TMPDIR), removed at
# exit, with its own fake Slurm state, local index and root; shims in front
# of the fake: sbatch prints the next job id as `sbatch --parsable` does
# (the fake would run the jobs; holding 10^5 pending tasks makes its every
# call slow), sacct answers `-j` with $work/acct once it exists (the
# accounting of the finished benchmark), squeue is the fake's (it no longer
# knows the jobs, as after MinJobAge).  Each shim counts its calls.
bench_work() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/sbbench-$1.XXXXXX")
	export SB_FAKE_SLURM_DIR=$work/state SB_INDEX=$work/index.sqlite SB_ROOT=$work/runs
	export SB_FAKE_NODENAME=node1 SB_FAKE_CLUSTER=lab
	trap 'PATH=$SB_FAKE_BIN:$PATH sbfake shutdown >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
	mkdir -p "$work/shim"
	export PATH="$work/shim:$SB_FAKE_BIN:$PATH"
	cat > "$work/shim/sbatch" <<EOF
#!/bin/sh
echo call >> "$work/calls.sbatch"
echo \$((7000 + \$(wc -l < "$work/calls.sbatch")))
EOF
	cat > "$work/shim/squeue" <<EOF
#!/bin/sh
echo call >> "$work/calls.squeue"
exec "$SB_FAKE_BIN/squeue" "\$@"
EOF
	cat > "$work/shim/sacct" <<EOF
#!/bin/sh
echo call >> "$work/calls.sacct"
case " \$* " in
*" -j "*) [ -f "$work/acct" ] && exec cat "$work/acct" ;;
esac
exec "$SB_FAKE_BIN/sacct" "\$@"
EOF
	chmod +x "$work"/shim/*
}

# bench_calls sbatch|sacct|squeue: how often the shim was called
bench_calls() { if [ -f "$work/calls.$1" ]; then wc -l < "$work/calls.$1" | tr -d ' '; else echo 0; fi; }

# bench_spec NAME CHILDREN: $work/spec.yaml, a benchmark of CHILDREN repeats
bench_spec() {
	printf 'name: %s\ncommand: [python, train.py]\nrepeats: %d\n' "$1" "$2" > "$work/spec.yaml"
}

# bench_submit: submits $work/spec.yaml (the time in $submit_s), then writes
# every child's log of a finished run with build/tests/gen_status_logs (the
# time in $logs_s).  Sets dir, digest, arrays and $work/lines (INDEX DIGEST
# RAW-JOB-ID ARRAY-JOB-ID TASK-ID per child, in child order).
bench_submit() {
	local t0 t1 n
	t0=$(now)
	"$sbctl" submit "$work/spec.yaml" --json > "$work/submit.json"
	t1=$(now)
	submit_s=$(calc "$t1 - $t0")
	dir=$(jq -r .benchmark.dir "$work/submit.json")
	digest=$(jq -r .benchmark.digest "$work/submit.json")
	arrays=$(jq '.jobs | length' "$work/submit.json")
	jq -r '.child_list[] | "\(.index) \(.digest)"' "$dir/benchmark.json" > "$work/digests"
	n=$(wc -l < "$work/digests")
	# raw job ids as Slurm gives array tasks when they start: unique, from 5000000
	jq -r '.jobs[] | .job_id as $j | .children | to_entries[] | "\(.value) \(5000000 + .value) \($j) \(.key)"' \
		"$work/submit.json" | sort -n -k1,1 > "$work/jobs"
	join -j 1 <(sort -k1,1 "$work/digests") <(sort -k1,1 "$work/jobs") | sort -n -k1,1 > "$work/lines"
	rm -f "$work/digests" "$work/jobs"
	[ "$(wc -l < "$work/lines")" -eq "$n" ] || { echo "bench: child list and jobs disagree" >&2; exit 1; }
	t0=$(now)
	"$SB_BUILD/tests/gen_status_logs" "$dir" "$digest" < "$work/lines" > /dev/null
	t1=$(now)
	logs_s=$(calc "$t1 - $t0")
}

# bench_acct_completed FILE: sacct's answer for the finished benchmark, one
# COMPLETED row per task (JobID A_T, the raw id the log names)
bench_acct_completed() {
	local day
	day=$(date +%Y-%m-%d)
	awk -v d="$day" -v name="sb-${digest:0:12}-a0" '{ printf "%s_%s|%s|%s|COMPLETED|0:0|%sT00:00:01|%sT00:00:02|%sT00:02:03|node1\n", $4, $5, $3, name, d, d, d }' \
		"$work/lines" > "$1"
}

# bench_floor_cmd: the floor: reading the same log files and HMACing their bytes
bench_floor_cmd() {
	local hexkey
	hexkey=$(od -An -tx1 -v "$dir/keys/hmac.key" | tr -d ' \n')
	find "$dir/events" -type f -print0 | xargs -0 cat |
		openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey"
}

# bench_tight_floor_cmd: the tight floor: build/tests/floor_read opens,
# reads and HMACs the same log files, one HMAC per file, on as many threads
# as status reads on (docs/performance.md, "The tight floor"); prints
# "<files> files, <bytes> bytes, <threads> threads, xor <hex>"
bench_tight_floor_cmd() { "$SB_BUILD/tests/floor_read" "$dir" "$dir/keys/hmac.key"; }

# bench_best CMD...: the best of $bench_runs wall times of CMD (its output
# discarded); any failure other than exit 3 (not every child succeeded)
# stops the benchmark.  The largest peak RSS of those runs (KiB, GNU time)
# is left in $work/best.rss (bench_best_rss reads it; 0 for a shell
# function).
bench_best() {
	local b="" t0 t1 t i rc rss max=0
	for ((i = 0; i < bench_runs; i++)); do
		t0=$(now)
		rc=0
		if declare -F "$1" > /dev/null; then # a shell function: no RSS of its own
			echo 0 > "$work/best.time"
			"$@" > /dev/null || rc=$?
		else
			/usr/bin/time -o "$work/best.time" -f '%M' "$@" > /dev/null || rc=$?
		fi
		t1=$(now)
		if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
			echo "bench: '$*' failed with exit $rc" >&2
			exit 1
		fi
		rss=$(tail -n 1 "$work/best.time")
		[ "$rss" -le "$max" ] || max=$rss
		t=$(calc "$t1 - $t0")
		if [ -z "$b" ] || [ "$(calc "$t < $b")" = 1 ]; then b=$t; fi
	done
	echo "$max" > "$work/best.rss"
	echo "$b"
}

# bench_best_rss FILE: keeps the peak RSS of the last bench_best in FILE
bench_best_rss() { cp "$work/best.rss" "$1"; }

# bench_rss CMD...: the peak RSS of CMD in KiB (getrusage of the child, by
# GNU time), its output discarded; exit 3 is not a failure
bench_rss() {
	local rc=0
	/usr/bin/time -o "$work/rss" -f '%M' "$@" > /dev/null 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
		echo "bench: '$*' failed with exit $rc" >&2
		exit 1
	fi
	tail -n 1 "$work/rss"
}

# bench_judge WHAT VALUE BUDGET: "within" or "OVER" (VALUE <= BUDGET), and
# with SB_BENCH_STRICT=1 the script's exit status 1 when over
bench_judge() {
	if [ "$(calc "$2 <= $3")" = 1 ]; then
		echo "within"
	else
		echo "OVER"
		printf 'bench: %s: %.2f is over the budget %s\n' "$1" "$2" "$3" >> "$work/over"
	fi
}

# bench_exit: the exit status: 1 when a budget was exceeded under
# SB_BENCH_STRICT=1, else 0; lists what was over
bench_exit() {
	if [ -f "$work/over" ]; then
		cat "$work/over" >&2
		[ "${SB_BENCH_STRICT:-0}" = 1 ] && exit 1
	fi
	exit 0
}
