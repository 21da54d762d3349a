#!/usr/bin/env bash
# sbctl plan on 100,000 and 1,000,000 children, the real binary: the table
# to /dev/null and --json to a file (docs/development.md: 1,000,000 children under
# 2 s, under 3 s with --json written to a file; memory linear in children).
set -euo pipefail
sbctl=${SB_BIN:?}/sbctl
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

measure() { # measure LABEL COMMAND... (stdout of COMMAND is already redirected by the caller)
	local label=$1; shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "$label: %e s wall, %U s user, %S s sys, %M KiB peak RSS" "$@"
	else
		local TIMEFORMAT="$label: %R s wall, %U s user"
		time "$@"
	fi
}

for n in 100000 1000000; do
	gen "$n" "$work/spec.yaml"
	"$sbctl" plan "$work/spec.yaml" --json >"$work/out.json"
	head -c 300 "$work/out.json" | grep -q "\"children\":$n}" ||
		{ echo "bench_plan: expected $n children" >&2; exit 1; }
	measure "plan $n children, table to /dev/null" "$sbctl" plan "$work/spec.yaml" >/dev/null
	measure "plan $n children, --json to a file  " "$sbctl" plan "$work/spec.yaml" --json >"$work/out.json"
	echo "  ($(($(stat -c %s "$work/out.json") / 1024 / 1024)) MiB of JSON)"
	rm -f "$work/out.json"
done
echo "budget: 1,000,000 children under 2 s (table), under 3 s (--json to a file)"
