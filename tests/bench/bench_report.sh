#!/usr/bin/env bash
# How fast `sbctl report` writes the HTML report of a large benchmark and
# how large the file is, against the budgets of docs/sbctl-report.md: for
# 100,000 children, under 5 s and under 10 MB.
#
# SB_BENCH_CHILDREN (default 100000) children of one benchmark, submitted
# to an `sbatch` shim that prints job ids, given the logs of a finished run
# by build/tests/gen_status_logs (as bench_status.sh does), and an sacct
# that answers for the finished benchmark with spread-out times: every
# child waits and runs for a different while, and every fourth one hit its
# time limit (TIMEOUT: killed, all in one group of identical reasons, so
# the excluded list holds 25% of the children).  Above 2,000 children the
# timeline is drawn as bands.  Prints the wall time (best of
# SB_BENCH_RUNS, default 3; the status is computed and the file written in
# each), the peak RSS and the size beside their budgets; exits 1 when a run
# fails, and SB_BENCH_STRICT=1 also when over a budget.
set -euo pipefail
: "${SB_BIN:?SB_BIN must name build/bin}" "${SB_FAKE_BIN:?SB_FAKE_BIN must name build/fake/bin}"
: "${SB_BUILD:?SB_BUILD must name the build directory}"
sbctl=$SB_BIN/sbctl
gen=$SB_BUILD/tests/gen_status_logs
children=${SB_BENCH_CHILDREN:-100000}
runs=${SB_BENCH_RUNS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/sbbench-report.XXXXXX")
export SB_FAKE_SLURM_DIR=$work/state SB_INDEX=$work/index.sqlite SB_ROOT=$work/runs
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
cleanup() {
	PATH=$SB_FAKE_BIN:$PATH sbfake shutdown >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/shim"
export PATH="$work/shim:$SB_FAKE_BIN:$PATH"
cat > "$work/shim/sbatch" <<EOF
#!/bin/sh
echo call >> "$work/calls.sbatch"
echo \$((7000 + \$(wc -l < "$work/calls.sbatch")))
EOF
cat > "$work/shim/sacct" <<EOF
#!/bin/sh
case " \$* " in
*" -j "*) [ -f "$work/acct" ] && exec cat "$work/acct" ;;
esac
exec "$SB_FAKE_BIN/sacct" "\$@"
EOF
chmod +x "$work"/shim/*
now() { date +%s.%N; }

printf 'name: benchreport\ncommand: [python, train.py]\nrepeats: %d\n' "$children" > "$work/spec.yaml"
"$sbctl" submit "$work/spec.yaml" --json > "$work/submit.json"
dir=$(jq -r .benchmark.dir "$work/submit.json")
digest=$(jq -r .benchmark.digest "$work/submit.json")
jq -r '.child_list[] | "\(.index) \(.digest)"' "$dir/benchmark.json" > "$work/digests"
jq -r '.jobs[] | .job_id as $j | .children | to_entries[] | "\(.value) \(5000000 + .value) \($j) \(.key)"' \
	"$work/submit.json" | sort -n -k1,1 > "$work/jobs"
join -j 1 <(sort -k1,1 "$work/digests") <(sort -k1,1 "$work/jobs") | sort -n -k1,1 > "$work/lines"
"$gen" "$dir" "$digest" < "$work/lines" > /dev/null
# submitted at once; started in waves as nodes free up; each runs 1-4 min
day=$(date +%Y-%m-%d)
awk -v d="$day" -v n="$children" -v name="sb-${digest:0:12}-a0" '
function t(s) { return sprintf("%sT%02d:%02d:%02d", d, int(s / 3600), int(s % 3600 / 60), s % 60) }
{ i = $1; start = 60 + int(i * 7200 / n); end = start + 60 + (i * 37) % 180
  state = i % 4 == 3 ? "TIMEOUT" : "COMPLETED"
  printf "%s_%s|%s|%s|%s|0:0|%s|%s|%s|node1\n", $4, $5, $3, name, state, t(60), t(start), t(end) }' \
	"$work/lines" > "$work/acct"

report_cmd() { "$sbctl" report "$dir" -o "$work/report.html"; }
best=""
for ((i = 0; i < runs; i++)); do
	t0=$(now)
	rc=0
	report_cmd > /dev/null 2>&1 || rc=$?
	t1=$(now)
	[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { echo "bench_report: sbctl report failed ($rc)" >&2; exit 1; }
	t=$(echo "$t1 - $t0" | bc -l)
	if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
done
# (time exits with the command's status: 3, not every child succeeded)
rss=$( (/usr/bin/time -f %M "$sbctl" report "$dir" -o "$work/report2.html" > /dev/null || true) 2>&1 |
	tail -n 1)
cmp -s "$work/report.html" "$work/report2.html" || { echo "bench_report: two reports differ" >&2; exit 1; }
size=$(stat -c %s "$work/report.html")
status_t0=$(now)
"$sbctl" status "$dir" --json > /dev/null || true
status_t1=$(now)
printf 'report: %d children (%d killed by their time limit)\n' "$children" \
	"$(grep -c TIMEOUT "$work/acct")"
printf '  sbctl report:        %.3f s  (budget 5 s; sbctl status --json alone: %.3f s)\n' "$best" \
	"$(echo "$status_t1 - $status_t0" | bc -l)"
printf '  report.html:         %d bytes (%.2f MB; budget 10 MB)\n' "$size" \
	"$(echo "$size / 1000000" | bc -l)"
printf '  peak RSS:            %d KiB\n' "$rss"
fail=0
if [ "$(echo "$best < 5" | bc -l)" != 1 ]; then
	echo "  time: OVER the 5 s budget"; [ "${SB_BENCH_STRICT:-0}" = 1 ] && fail=1
fi
if [ "$size" -ge 10000000 ]; then
	echo "  size: OVER the 10 MB budget"; [ "${SB_BENCH_STRICT:-0}" = 1 ] && fail=1
fi
[ -n "${SB_BENCH_KEEP:-}" ] && cp "$work/report.html" "$SB_BENCH_KEEP/"
exit $fail
