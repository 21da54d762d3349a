#!/usr/bin/env bash
# How fast `sbctl status` classifies a large benchmark, against the floor of
# docs/development.md, "Performance budgets": reading the same log files and HMACing their bytes
#   find DIR/events -type f -print0 | xargs -0 cat | openssl dgst -sha256 -hmac KEY
# Budget: within 3x the floor.  And how often it asks the scheduler: one
# sacct call per 1,000 job ids (an array counts once), checked exactly.
#
# SB_BENCH_CHILDREN (default 100000) children of one benchmark, submitted by
# `sbctl submit` to an `sbatch` shim that only prints the next job id, as
# `sbatch --parsable` does (the fake would run them; holding 100,000 pending
# tasks makes its every call slow), then given 4 signed records each (start,
# heartbeat, heartbeat, finish) by build/tests/gen_status_logs with the
# benchmark's key, as sbagent writes them.  sacct then answers as it would
# once the benchmark has run: one COMPLETED row per task (JobID A_T, the raw
# id the log names), replayed by a shim in front of the fake's sacct; squeue
# is the fake's, which no longer knows the jobs (as after MinJobAge).
# Times, warm cache, best of SB_BENCH_RUNS (default 3):
#   - the floor;
#   - sbctl status --offline --json (the logs alone);
#   - sbctl status --json (logs + sacct + squeue);
# and the first status run (cold local index: every log head recorded).
# Exits 1 when sacct is called other than ceil(arrays/1000) times, or when a
# status run fails; SB_BENCH_STRICT=1 also exits 1 when over the budget.
set -euo pipefail
: "${SB_BIN:?SB_BIN must name build/bin}" "${SB_FAKE_BIN:?SB_FAKE_BIN must name build/fake/bin}"
: "${SB_BUILD:?SB_BUILD must name the build directory}"
sbctl=$SB_BIN/sbctl
gen=$SB_BUILD/tests/gen_status_logs
children=${SB_BENCH_CHILDREN:-100000}
runs=${SB_BENCH_RUNS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/sbbench-status.XXXXXX")
export SB_FAKE_SLURM_DIR=$work/state SB_INDEX=$work/index.sqlite SB_ROOT=$work/runs
export SB_FAKE_NODENAME=node1 SB_FAKE_CLUSTER=lab
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
mkdir -p "$work/shim"
cleanup() {
	PATH=$SB_FAKE_BIN:$PATH sbfake shutdown >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
export PATH="$work/shim:$SB_FAKE_BIN:$PATH"
# sbatch --parsable: the next job id; count the scheduler calls
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
# sacct -j ...: the accounting of the finished benchmark, once it exists
cat > "$work/shim/sacct" <<EOF
#!/bin/sh
echo call >> "$work/calls.sacct"
case " \$* " in
*" -j "*) [ -f "$work/acct" ] && exec cat "$work/acct" ;;
esac
exec "$SB_FAKE_BIN/sacct" "\$@"
EOF
chmod +x "$work"/shim/*
calls() { if [ -f "$work/calls.$1" ]; then wc -l < "$work/calls.$1" | tr -d ' '; else echo 0; fi; }

now() { date +%s.%N; }
best() { # best of $runs wall times of "$@"; any failure other than exit 3 stops the benchmark
	local b="" t0 t1 t i rc
	for ((i = 0; i < runs; i++)); do
		t0=$(now)
		rc=0
		"$@" >/dev/null || rc=$?
		t1=$(now)
		if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
			echo "bench_status: '$*' failed with exit $rc" >&2
			exit 1
		fi
		t=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}

# -- the benchmark: submitted, then given its logs ---------------------------
printf 'name: benchstatus\ncommand: [python, train.py]\nrepeats: %d\n' "$children" > "$work/spec.yaml"
t0=$(now)
"$sbctl" submit "$work/spec.yaml" --json > "$work/submit.json"
t1=$(now)
dir=$(jq -r .benchmark.dir "$work/submit.json")
digest=$(jq -r .benchmark.digest "$work/submit.json")
arrays=$(jq '.jobs | length' "$work/submit.json")
jq -r '.child_list[] | "\(.index) \(.digest)"' "$dir/benchmark.json" > "$work/digests"
# raw job ids as Slurm gives array tasks when they start: unique, from 5000000
jq -r '.jobs[] | .job_id as $j | .children | to_entries[] | "\(.value) \(5000000 + .value) \($j) \(.key)"' \
	"$work/submit.json" | sort -n -k1,1 > "$work/jobs"
join -j 1 <(sort -k1,1 "$work/digests") <(sort -k1,1 "$work/jobs") | sort -n -k1,1 > "$work/lines"
[ "$(wc -l < "$work/lines")" -eq "$children" ] || { echo "bench_status: child list and jobs disagree" >&2; exit 1; }
day=$(date +%Y-%m-%d)
awk -v d="$day" -v name="sb-${digest:0:12}-a0" '{ printf "%s_%s|%s|%s|COMPLETED|0:0|%sT00:00:01|%sT00:00:02|%sT00:02:03|node1\n", $4, $5, $3, name, d, d, d }' \
	"$work/lines" > "$work/acct.tmp"
t2=$(now)
"$gen" "$dir" "$digest" < "$work/lines" > /dev/null
t3=$(now)
files=$(find "$dir/events" -type f | wc -l)
bytes=$(find "$dir/events" -type f -print0 | du -cb --files0-from=- | tail -n 1 | cut -f1)
hexkey=$(od -An -tx1 -v "$dir/keys/hmac.key" | tr -d ' \n')

floor_cmd() {
	find "$dir/events" -type f -print0 | xargs -0 cat |
		openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey"
}
offline_cmd() { "$sbctl" status "$dir" --offline --json; }
online_cmd() { "$sbctl" status "$dir" --json; }

# the first run fills the local index (the verified head of every log)
t4=$(now)
rc=0
offline_cmd > "$work/first.json" || rc=$?
t5=$(now)
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { echo "bench_status: sbctl status --offline failed ($rc)" >&2; exit 1; }
verified=$(jq '.counts.succeeded' "$work/first.json")
[ "$verified" -eq "$children" ] || {
	echo "bench_status: --offline: $verified of $children children verified as succeeded" >&2; exit 1; }
mv "$work/acct.tmp" "$work/acct"
floor_cmd > /dev/null
floor=$(best floor_cmd)
offline=$(best offline_cmd)
# the first consulted run also records every child's reconciled outcome
t6=$(now)
rc=0
online_cmd > "$work/online1.json" || rc=$?
t7=$(now)
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { echo "bench_status: sbctl status failed ($rc)" >&2; exit 1; }
outcomes=$(find "$dir/submissions" -type f -newer "$work/first.json" -print0 | xargs -0 -r cat | wc -c)
before=$(calls sacct)
sq_before=$(calls squeue)
online=$(best online_cmd)
sacct_calls=$(( ($(calls sacct) - before) / runs ))
squeue_calls=$(( ($(calls squeue) - sq_before) / runs ))
want_sacct=$(( (arrays + 999) / 1000 ))
online_counts=$("$sbctl" status "$dir" --json | jq -c '.counts | with_entries(select(.value > 0))' || true)
[ "$online_counts" = "{\"succeeded\":$children}" ] || {
	echo "bench_status: with the scheduler, not every child succeeded: $online_counts" >&2; exit 1; }

printf 'status: %d children, %d log files, %d records, %d bytes; %d job arrays\n' \
	"$children" "$files" $((files * 4)) "$bytes" "$arrays"
printf '  setup: submit %.2f s (%d sbatch calls), logs written %.2f s\n' \
	"$(echo "$t1 - $t0" | bc -l)" "$(calls sbatch)" "$(echo "$t3 - $t2" | bc -l)"
printf '  floor (cat | openssl dgst -hmac):       %.3f s\n' "$floor"
printf '  sbctl status --offline --json, 1st run: %.3f s  (fills the local index)\n' "$(echo "$t5 - $t4" | bc -l)"
printf '  sbctl status --offline --json:          %.3f s  (%.2fx the floor)\n' "$offline" \
	"$(echo "$offline / $floor" | bc -l)"
printf '  sbctl status --json, 1st run:           %.3f s  (records the outcomes: %d bytes of signed records)\n' \
	"$(echo "$t7 - $t6" | bc -l)" "$outcomes"
printf '  sbctl status --json (sacct, squeue):    %.3f s  (%.2fx the floor)\n' "$online" \
	"$(echo "$online / $floor" | bc -l)"
printf '  scheduler calls per status: %d sacct (budget ceil(%d arrays / 1000) = %d), %d squeue\n' \
	"$sacct_calls" "$arrays" "$want_sacct" "$squeue_calls"
printf '  classes with the scheduler: %s\n' "$online_counts"
# the Python service over the same evidence: sbench.status() and
# sbench.analyze() against `sbctl ... --json` + json.loads (budget 1.5x)
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
export PYTHONPATH=$SB_BUILD/python
py_cmd() { "$py" -c 'import sys, sbench; getattr(sbench, sys.argv[1])(sys.argv[2])' "$1" "$dir"; }
cli_py_cmd() {
	"$sbctl" "$1" "$dir" --json | "$py" -c 'import json, sys; json.load(sys.stdin)'
	return "${PIPESTATUS[0]}"
}
py_status=$(best py_cmd status)
cli_status=$(best cli_py_cmd status)
py_analyze=$(best py_cmd analyze)
cli_analyze=$(best cli_py_cmd analyze)
printf '  python sbench.status():                 %.3f s  (%.2fx sbctl status --json | json.loads: %.3f s; budget 1.5x)\n' \
	"$py_status" "$(echo "$py_status / $cli_status" | bc -l)" "$cli_status"
printf '  python sbench.analyze():                %.3f s  (%.2fx sbctl analyze --json | json.loads: %.3f s; budget 1.5x)\n' \
	"$py_analyze" "$(echo "$py_analyze / $cli_analyze" | bc -l)" "$cli_analyze"
fail=0
for pair in "$py_status $cli_status status" "$py_analyze $cli_analyze analyze"; do
	set -- $pair
	if [ "$(echo "$1 <= 1.5 * $2" | bc -l)" != 1 ]; then
		echo "  python $3: OVER the 1.5x budget"
		[ "${SB_BENCH_STRICT:-0}" = 1 ] && fail=1
	fi
done
if [ "$sacct_calls" -ne "$want_sacct" ]; then
	echo "  sacct calls: OVER the budget" ; fail=1
fi
worst=$(echo "if ($offline > $online) $offline else $online" | bc -l)
ratio=$(echo "$worst / $floor" | bc -l)
if [ "$(echo "$ratio <= 3" | bc -l)" = 1 ]; then
	printf '  ratio %.2fx: within the 3x budget\n' "$ratio"
else
	printf '  ratio %.2fx: OVER the 3x budget\n' "$ratio"
	[ "${SB_BENCH_STRICT:-0}" = 1 ] && fail=1
fi
exit $fail
