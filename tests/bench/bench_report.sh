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
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh"
children=${SB_BENCH_CHILDREN:-100000}
bench_work report
bench_spec benchreport "$children"
bench_submit
# submitted at once; started in waves as nodes free up; each runs 1-4 min
day=$(date +%Y-%m-%d)
awk -v d="$day" -v n="$children" -v name="sb-${digest:0:12}-a0" '
function t(s) { return sprintf("%sT%02d:%02d:%02d", d, int(s / 3600), int(s % 3600 / 60), s % 60) }
{ i = $1; start = 60 + int(i * 7200 / n); end = start + 60 + (i * 37) % 180
  state = i % 4 == 3 ? "TIMEOUT" : "COMPLETED"
  printf "%s_%s|%s|%s|%s|0:0|%s|%s|%s|node1\n", $4, $5, $3, name, state, t(60), t(start), t(end) }' \
	"$work/lines" > "$work/acct"

best=$(bench_best "$sbctl" report "$dir" -o "$work/report.html")
rss=$(bench_rss "$sbctl" report "$dir" -o "$work/report2.html")
cmp -s "$work/report.html" "$work/report2.html" || { echo "bench_report: two reports differ" >&2; exit 1; }
size=$(stat -c %s "$work/report.html")
status_t0=$(now)
"$sbctl" status "$dir" --json > /dev/null || true
status_t1=$(now)
printf 'report: %d children (%d killed by their time limit)\n' "$children" \
	"$(grep -c TIMEOUT "$work/acct")"
printf '  sbctl report:        %.3f s  (budget 5 s: %s; sbctl status --json alone: %.3f s)\n' "$best" \
	"$(bench_judge "report time (s)" "$best" 5)" "$(calc "$status_t1 - $status_t0")"
printf '  report.html:         %d bytes (%.2f MB; budget 10 MB: %s)\n' "$size" \
	"$(calc "$size / 1000000")" "$(bench_judge "report size (bytes)" "$size" 10000000)"
printf '  peak RSS:            %d KiB\n' "$rss"
[ -z "${SB_BENCH_KEEP:-}" ] || cp "$work/report.html" "$SB_BENCH_KEEP/"
bench_exit
