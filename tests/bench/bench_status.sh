#!/usr/bin/env bash
# How fast, and in how much memory, sbctl reads a large benchmark: status
# (offline and with sacct), analyze and `log DIR`, against the floor of
# docs/performance.md: reading the same log files and HMACing their bytes
#   find DIR/events -type f -print0 | xargs -0 cat | openssl dgst -sha256 -hmac KEY
# (a pipeline: find, cat and openssl run on both cores at once), and against
# the tight floor: build/tests/floor_read (tests/bench/floor_read.c) opens,
# reads and HMACs each of those files on as many threads as status reads on.
#
# usage: bench_status.sh [--large]
# Sizes: 10,000 and 100,000 children (SB_BENCH_SIZES="N ..." to choose);
# --large: 1,000,000 (about 4 GB of tmpfs or disk under TMPDIR).
#
# Each size is one benchmark submitted by `sbctl submit` to an sbatch shim
# (tests/bench/lib.sh), given 4 signed records per child (start, two
# heartbeats, finish) by build/tests/gen_status_logs with the benchmark's
# key, as sbagent writes them, and an sacct that answers as once the
# benchmark has run: one COMPLETED row per task.  Then, warm cache, best of
# SB_BENCH_RUNS (default 3; 2 with --large):
#   time: the floor; the tight floor; status --offline --json; status
#         --json (sacct, squeue); analyze --json; log DIR --json.  Budget
#         1.3x the floor and 1.5x the tight floor from 100,000 children up
#         (at 10,000 the start-up of a process is a large part of every
#         figure; printed, not judged); 3x the floor is the contract
#         everywhere.
#   memory: peak RSS of each of those, of rerun --dry-run and of report,
#         beside `sbctl plan` of the same spec: budget 400 bytes per child
#         beyond the plan, from 100,000 children up; with two sizes the
#         growth between them per child (linear: the same figure).
#   scheduler calls: one sacct call per 1,000 arrays, checked exactly.
#   Python (100,000 only): sbench.status()/analyze() within 1.5x of
#         `sbctl ... --json | json.loads`; from 100,000 up (--large too):
#         sbench.iter_status() walking every child, its time and peak RSS
#         beside sbctl status --json's: budget 1.5x sbctl's peak RSS.
# Exits 1 when a command fails, a child is not verified as succeeded or
# sacct is called other than ceil(arrays/1000) times; SB_BENCH_STRICT=1
# also exits 1 when a figure is over its budget.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh"
sizes=${SB_BENCH_SIZES:-10000 100000}
large=0
if [ "${1:-}" = --large ]; then
	sizes=1000000 large=1
	# each run reads 4 GB of logs, the floor's takes minutes: one run each
	# (the margins at this size are 4x and more; SB_BENCH_RUNS=2 for best of 2)
	bench_runs=${SB_BENCH_RUNS:-1}
fi

measure_size() {
	local n=$1
	bench_work "status-$n"
	bench_spec benchstatus "$n"
	bench_submit
	local files bytes
	files=$(find "$dir/events" -type f | wc -l)
	bytes=$(find "$dir/events" -type f -print0 | du -cb --files0-from=- | tail -n 1 | cut -f1)

	local -a offline_cmd=("$sbctl" status "$dir" --offline --json)
	local -a online_cmd=("$sbctl" status "$dir" --json)
	local -a analyze_cmd=("$sbctl" analyze "$dir" --json)
	local -a log_cmd=("$sbctl" log "$dir" --json)
	local -a rerun_cmd=("$sbctl" rerun "$dir" --only failed,killed --dry-run)
	local -a report_cmd=("$sbctl" report "$dir" -o "$work/report.html")
	local -a plan_cmd=("$sbctl" plan "$work/spec.yaml")

	# the first run fills the local index (the verified head of every log)
	local t0 t1 first rc=0 verified
	t0=$(now)
	"${offline_cmd[@]}" > "$work/first.json" || rc=$?
	t1=$(now)
	first=$(calc "$t1 - $t0")
	[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { echo "bench_status: sbctl status --offline failed ($rc)" >&2; exit 1; }
	verified=$(jq '.counts.succeeded' "$work/first.json")
	[ "$verified" -eq "$n" ] || {
		echo "bench_status: --offline: $verified of $n children verified as succeeded" >&2; exit 1; }
	bench_acct_completed "$work/acct"
	# (no warm-up run of the floor: the first status has just read every
	# log, so the cache is as warm for the floor as for sbench)
	local floor tight tight_files tight_bytes tight_threads offline online1 online analyze log outcomes
	floor=$(bench_best bench_floor_cmd)
	# the tight floor must read what find and du count
	read -r tight_files _ tight_bytes _ tight_threads _ <<< "$(bench_tight_floor_cmd)"
	if [ "$tight_files" != "$files" ] || [ "$tight_bytes" != "$bytes" ]; then
		echo "bench_status: floor_read read ${tight_files:-no} files, ${tight_bytes:-no} bytes; find and du count $files, $bytes" >&2
		exit 1
	fi
	tight=$(bench_best bench_tight_floor_cmd)
	offline=$(bench_best "${offline_cmd[@]}")
	bench_best_rss "$work/offline.kib"
	# the first consulted run also records every child's reconciled outcome
	t0=$(now)
	rc=0
	"${online_cmd[@]}" > "$work/online1.json" || rc=$?
	t1=$(now)
	online1=$(calc "$t1 - $t0")
	[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { echo "bench_status: sbctl status failed ($rc)" >&2; exit 1; }
	outcomes=$(find "$dir/submissions" -type f -newer "$work/first.json" -print0 | xargs -0 -r cat | wc -c)
	local before sq_before sacct_calls squeue_calls want_sacct counts
	before=$(bench_calls sacct)
	sq_before=$(bench_calls squeue)
	online=$(bench_best "${online_cmd[@]}")
	bench_best_rss "$work/online.kib"
	sacct_calls=$(( ($(bench_calls sacct) - before) / bench_runs ))
	squeue_calls=$(( ($(bench_calls squeue) - sq_before) / bench_runs ))
	want_sacct=$(( (arrays + 999) / 1000 ))
	# what the first consulted run said (a run of its own costs 27 s at 1,000,000)
	counts=$(jq -c '.counts | with_entries(select(.value > 0))' "$work/online1.json" || true)
	[ "$counts" = "{\"succeeded\":$n}" ] || {
		echo "bench_status: with the scheduler, not every child succeeded: $counts" >&2; exit 1; }
	[ "$sacct_calls" -eq "$want_sacct" ] || {
		echo "bench_status: $sacct_calls sacct calls per status, want ceil($arrays arrays / 1000) = $want_sacct" >&2
		exit 1; }
	analyze=$(bench_best "${analyze_cmd[@]}")
	bench_best_rss "$work/analyze.kib"
	log=$(bench_best "${log_cmd[@]}")
	bench_best_rss "$work/log.kib"

	printf 'status of %d children: %d log files, %d records, %d bytes; %d job arrays\n' \
		"$n" "$files" $((files * 4)) "$bytes" "$arrays"
	printf '  setup: submit %.2f s (%d sbatch calls), logs written %.2f s\n' \
		"$submit_s" "$(bench_calls sbatch)" "$logs_s"
	printf '  first status --offline: %.3f s (fills the local index); first status: %.3f s (records %d bytes of outcomes)\n' \
		"$first" "$online1" "$outcomes"
	printf '  scheduler calls per status: %d sacct (exactly ceil(%d arrays / 1000) = %d), %d squeue\n' \
		"$sacct_calls" "$arrays" "$want_sacct" "$squeue_calls"
	local judged=1
	[ "$n" -ge 100000 ] || judged=0
	printf '  %-34s %9s %9s %9s  %s\n' "time, warm cache, best of $bench_runs" seconds "x floor" "x tight" \
		"budget 1.3x floor (contract 3x), 1.5x tight"
	printf '  %-34s %9.3f %9s %9.2f\n' "floor (find | cat | openssl -hmac)" "$floor" 1.00 "$(calc "$floor / $tight")"
	printf '  %-34s %9.3f %9.2f %9s\n' "tight floor: floor_read, $tight_threads thread$([ "$tight_threads" = 1 ] || echo s)" \
		"$tight" "$(calc "$tight / $floor")" 1.00
	local pair what t ratio tratio verdict
	for pair in "status --offline --json:$offline" "status --json (sacct, squeue):$online" \
		"analyze --json:$analyze" "log DIR --json:$log"; do
		what=${pair%:*} t=${pair##*:}
		ratio=$(calc "$t / $floor")
		tratio=$(calc "$t / $tight")
		if [ "$judged" = 1 ]; then
			verdict="$(bench_judge "$n children: $what x floor" "$ratio" 1.3) 1.3x floor"
			verdict="$verdict, $(bench_judge "$n children: $what x tight floor" "$tratio" 1.5) 1.5x tight"
		else
			verdict="(not judged below 100,000)"
		fi
		if [ "$judged" = 1 ] && [ "$(calc "$ratio > 3")" = 1 ]; then
			verdict="$verdict; OVER the 3x contract"
			echo x >> "$work/over3"
		fi
		printf '  %-34s %9.3f %9.2f %9.2f  %s\n' "$what" "$t" "$ratio" "$tratio" "$verdict"
	done

	local plan_kib kib per
	plan_kib=$(bench_rss "${plan_cmd[@]}")
	printf '  %-34s %9s %9s  %s\n' "peak RSS" KiB "B/child" "beyond the plan; budget 400 B/child"
	printf '  %-34s %9d %9.0f\n' "plan (the same spec)" "$plan_kib" "$(calc "$plan_kib * 1024 / $n")"
	: > "$work/rss.table"
	for what in offline online analyze log rerun report; do
		if [ -f "$work/$what.kib" ]; then # measured with its times
			kib=$(cat "$work/$what.kib")
		else
			local -n cmd="${what}_cmd"
			kib=$(bench_rss "${cmd[@]}")
			unset -n cmd
		fi
		per=$(calc "($kib - $plan_kib) * 1024 / $n")
		if [ "$judged" = 1 ]; then
			verdict=$(bench_judge "$n children: $what B/child beyond the plan" "$per" 400)
		else
			verdict="(not judged below 100,000)"
		fi
		printf '  %-34s %9d %9.0f  %s\n' "$what" "$kib" "$per" "$verdict"
		echo "$what $kib $plan_kib" >> "$work/rss.table"
	done
	cp "$work/rss.table" "$results/rss.$n"

	if [ "$n" -ge 100000 ]; then
		# the Python service over the same evidence
		local py=/usr/bin/python3 py_status cli_status py_analyze cli_analyze
		[ -x "$py" ] || py=$(command -v python3)
		export PYTHONPATH=$SB_BUILD/python
		if [ "$large" = 0 ]; then
			# the whole document, against `sbctl ... --json` + json.loads (not
			# at 1,000,000: sbench.status() alone takes 40 s and 3 GiB there)
			py_cmd() { "$py" -c 'import sys, sbench; getattr(sbench, sys.argv[1])(sys.argv[2])' "$1" "$dir"; }
			cli_py_cmd() {
				"$sbctl" "$1" "$dir" --json | "$py" -c 'import json, sys; json.load(sys.stdin)'
				return "${PIPESTATUS[0]}"
			}
			py_status=$(bench_best py_cmd status)
			cli_status=$(bench_best cli_py_cmd status)
			py_analyze=$(bench_best py_cmd analyze)
			cli_analyze=$(bench_best cli_py_cmd analyze)
			for pair in "status:$py_status:$cli_status" "analyze:$py_analyze:$cli_analyze"; do
				IFS=: read -r what t cli <<< "$pair"
				ratio=$(calc "$t / $cli")
				printf '  python sbench.%-10s %9.3f s  %.2fx sbctl %s --json | json.loads (%.3f s)  budget 1.5x: %s\n' \
					"$what()" "$t" "$ratio" "$what" "$cli" "$(bench_judge "python $what" "$ratio" 1.5)"
			done
			local status_kib
			status_kib=$(bench_rss "$py" -c 'import sys, sbench; sbench.status(sys.argv[1])' "$dir")
			printf '  python sbench.status()      peak RSS %d KiB, %.2fx sbctl status --json'"'"'s (%d KiB)\n' \
				"$status_kib" "$(calc "$status_kib / $(cat "$work/online.kib")")" "$(cat "$work/online.kib")"
		fi
		# one child at a time (docs/python.md, "A million children"): every
		# child walked, in the memory sbctl status --json uses (with the
		# scheduler, as sbctl's figure above); a count that is not $n fails
		local py_iter iter_kib cli_kib
		py_iter=$(bench_best "$py" -c 'import sys, sbench
with sbench.iter_status(sys.argv[1]) as st:
    n = sum(1 for c in st if c["class"] == "succeeded")
if n != len(st) or n != int(sys.argv[2]):
    sys.exit("iter_status: %d of %d children succeeded" % (n, len(st)))' "$dir" "$n")
		bench_best_rss "$work/iter.kib"
		iter_kib=$(cat "$work/iter.kib") cli_kib=$(cat "$work/online.kib")
		ratio=$(calc "$iter_kib / $cli_kib")
		printf '  python sbench.iter_status() %9.3f s  (sbctl status --json %.3f s); peak RSS %d KiB, %.2fx sbctl status --json'"'"'s %d KiB  budget 1.5x: %s\n' \
			"$py_iter" "$online" "$iter_kib" "$ratio" "$cli_kib" \
			"$(bench_judge "python iter_status peak RSS x sbctl status --json" "$ratio" 1.5)"
	fi
	[ ! -f "$work/over3" ] || { echo "bench_status: over the 3x contract" >&2; exit 1; }
	bench_exit
}

results=$(mktemp -d "${TMPDIR:-/tmp}/sbbench-results.XXXXXX")
trap 'rm -rf "$results"' EXIT
fail=0
prev=""
for n in $sizes; do
	# (errexit holds inside: the subshell is not part of an || list)
	set +e
	(
		set -e
		measure_size "$n"
	)
	[ $? -eq 0 ] || fail=1
	set -e
	if [ -n "$prev" ] && [ -f "$results/rss.$prev" ] && [ -f "$results/rss.$n" ]; then
		# linear: the growth per child between the two sizes
		echo "  peak RSS growth per added child, $prev -> $n children (linear: about the figures above):"
		join <(sort "$results/rss.$prev") <(sort "$results/rss.$n") |
			awk -v a="$prev" -v b="$n" '{ printf "    %-8s %6.0f B/child (plan %4.0f)\n", $1, ($4 - $2) * 1024 / (b - a), ($5 - $3) * 1024 / (b - a) }'
	fi
	prev=$n
done
exit $fail
