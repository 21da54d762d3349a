#!/usr/bin/env bash
# sbctl plan on 100,000 and 1,000,000 children, the real binary: the table
# to /dev/null and --json to a file (docs/performance.md: 1,000,000 children under
# 2 s, under 3 s with --json written to a file; memory linear in children).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# a x b x c x repeats: ints, floats and strings, argv and env templates
gen() { # gen CHILDREN FILE
	local c=$(($1 / 10000))
	{
		echo "name: bench-plan"
		echo 'command: [python, train.py, --a, "{a}", --lr, "{lr}", --model, "{model}", --seed, "{repeat}"]'
		echo 'env: {RUN: "{model}-{a}"}'
		echo "results: [metrics.json]"
		echo "metrics: metrics.json"
		echo "repeats: 2"
		echo "parameters:"
		printf '  a: ['; seq -s ', ' 0 99; echo ']'
		printf '  lr: ['; for i in $(seq 1 50); do printf '%s%se-4' "$([ "$i" -gt 1 ] && echo ', ')" "$i"; done; echo ']'
		printf '  model: ['; for i in $(seq 1 "$c"); do printf '%smodel%s' "$([ "$i" -gt 1 ] && echo ', ')" "$i"; done; echo ']'
	} > "$2"
}

# measure N WHAT BUDGET COMMAND... (stdout already redirected by the caller):
# the wall time and peak RSS of one run, beside the budget
measure() {
	local n=$1 what=$2 budget=$3 wall rss
	shift 3
	/usr/bin/time -o "$work/time" -f '%e %M' "$@"
	read -r wall rss < "$work/time"
	{
		printf '  plan %7d children, %-18s %6.2f s  %7d KiB peak RSS (%4.0f B/child)' "$n" "$what" "$wall" \
			"$rss" "$(calc "$rss * 1024 / $n")"
		if [ "$n" -eq 1000000 ]; then
			printf '  budget %d s: %s\n' "$budget" "$(bench_judge "plan $n $what (s)" "$wall" "$budget")"
		else
			echo
		fi
	} >&3
}
exec 3>&1

echo "budget: 1,000,000 children under 2 s (table), under 3 s (--json to a file); memory linear"
for n in 100000 1000000; do
	gen "$n" "$work/spec.yaml"
	"$sbctl" plan "$work/spec.yaml" --json >"$work/out.json"
	head -c 300 "$work/out.json" | grep -q "\"children\":$n}" ||
		{ echo "bench_plan: expected $n children" >&2; exit 1; }
	measure "$n" "table to /dev/null" 2 "$sbctl" plan "$work/spec.yaml" >/dev/null
	measure "$n" "--json to a file" 3 "$sbctl" plan "$work/spec.yaml" --json >"$work/out.json"
	echo "  ($(($(stat -c %s "$work/out.json") / 1024 / 1024)) MiB of JSON)"
	rm -f "$work/out.json"
done
bench_exit
