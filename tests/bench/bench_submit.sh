#!/usr/bin/env bash
# Submitting a benchmark of N children: the wall time of `sbctl submit`
# with sbatch's time excluded, per 10,000 and 100,000 children, beside the
# budget (docs/performance.md): 100,000 children in
# under 1 s.  And the number of sbatch calls, which must be
# ceil(N / MaxArraySize).
#
# sbatch is a shim that only prints the next job id, as `sbatch --parsable`
# does (the children never run); scontrol is the fake's (MaxArraySize).
# sbatch's time is excluded as: the time spent inside the shim (it stamps
# $EPOCHREALTIME as it starts and ends), plus, per call, the cost of
# starting it (fork, exec, bash), measured here by running the shim 20 times
# from a shell loop.  What is left is sbctl's own work: planning, the
# benchmark record, the submission records and their fsyncs, the task maps
# and batch scripts, one output directory per chunk.
#
# N: the arguments, else SB_BENCH_CHILDREN (default "10000 100000"); each
# size is submitted SB_BENCH_RUNS times (default 3, each a new benchmark
# directory), and the best run counts.  SB_BENCH_STRICT=1 exits 1 when
# the 100,000 figure is over its budget.
# usage: SB_BIN=build/bin SB_FAKE_BIN=build/fake/bin bash tests/bench/bench_submit.sh [N...]
set -euo pipefail
sizes=${*:-${SB_BENCH_CHILDREN:-10000 100000}}
runs=${SB_BENCH_RUNS:-3}
bin=${SB_BIN:-build/bin}
fake=${SB_FAKE_BIN:-build/fake/bin}
budget_ms=1000 # for 100,000 children
[ -x "$bin/sbctl" ] && [ -x "$fake/scontrol" ] || { echo "bench_submit: build first" >&2; exit 2; }
bin=$(cd "$bin" && pwd) fake=$(cd "$fake" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sb-bench-submit.XXXXXX")
trap 'SB_FAKE_SLURM_DIR=$work/state "$fake/sbfake" shutdown >/dev/null 2>&1; rm -rf "$work"' EXIT
cd "$work"
mkdir shim
echo 7000 > next
cat > shim/sbatch <<SHIM
#!/bin/bash
t0=\$EPOCHREALTIME
read -r n < "$work/next"
echo \$((n + 1)) > "$work/next"
echo "\$n"
echo "\$t0 \$EPOCHREALTIME" >> "$work/calls"
SHIM
chmod +x shim/sbatch
export PATH="$work/shim:$fake:$PATH" SB_FAKE_SLURM_DIR="$work/state" SB_INDEX="$work/index"
export LC_ALL=C
max=$(scontrol show config | awk '/^MaxArraySize/ {print $3}')
now() { echo "$EPOCHREALTIME"; }
ms() { echo "($2 - $1) * 1000" | bc -l; } # ms T0 T1
# the time spent inside the shim by the calls in lines FROM.. of calls, in ms
inside() { tail -n +"$1" calls | awk '{ s += $2 - $1 } END { printf "%.3f", s * 1000 }'; }
ncalls() { if [ -f calls ]; then wc -l < calls | tr -d ' '; else echo 0; fi; }

# what starting the shim costs, per call, beyond its inside
k=20 from=$(( $(ncalls) + 1 ))
t0=$(now)
for ((i = 0; i < k; i++)); do shim/sbatch > /dev/null; done
t1=$(now)
launch=$(echo "($(ms "$t0" "$t1") - $(inside "$from")) / $k" | bc -l)
: > calls
printf 'sbatch shim: %.2f ms to start a call (measured over %d calls), excluded per call\n' "$launch" "$k"

rc=0
for n in $sizes; do
	printf 'name: bench-submit\ncommand: [true, "{i}"]\nparameters:\n  i: [%s]\n' \
		"$(seq -s, 0 $((n - 1)))" > spec.yaml
	want=$(( (n + max - 1) / max ))
	best=""
	for ((r = 0; r < runs; r++)); do
		from=$(( $(ncalls) + 1 ))
		t0=$(now)
		# a root and an index of its own: with one index, the second run would
		# find the first's benchmark (one benchmark per digest) and submit nothing
		SB_ROOT="$work/root-$n-$r" SB_INDEX="$work/index-$n-$r" "$bin/sbctl" submit spec.yaml > /dev/null
		t1=$(now)
		calls=$(( $(ncalls) - from + 1 ))
		[ "$calls" -eq "$want" ] || { echo "bench_submit: $calls sbatch calls for $n children, budget $want" >&2; exit 1; }
		total=$(ms "$t0" "$t1")
		sb=$(echo "$(inside "$from") + $calls * $launch" | bc -l)
		own=$(echo "$total - $sb" | bc -l)
		printf '  submit of %d children, run %d: %.0f ms, of which sbatch %.0f ms (%d calls): %.0f ms without\n' \
			"$n" "$((r + 1))" "$total" "$sb" "$calls" "$own"
		if [ -z "$best" ] || [ "$(echo "$own < $best" | bc -l)" = 1 ]; then best=$own; fi
	done
	printf 'submit of %d children (best of %d, sbatch excluded): %.0f ms; %.0f ms per 10,000, %.0f ms per 100,000 (budget: 100,000 in %d ms); %d sbatch calls (MaxArraySize %d; budget: ceil(%d/%d) = %d calls)\n' \
		"$n" "$runs" "$best" "$(echo "$best * 10000 / $n" | bc -l)" "$(echo "$best * 100000 / $n" | bc -l)" \
		"$budget_ms" "$want" "$max" "$n" "$max" "$want"
	if [ "$n" -ge 100000 ] && [ "$(echo "$best * 100000 / $n > $budget_ms" | bc -l)" = 1 ]; then
		echo "bench_submit: over budget: $n children in $(printf '%.0f' "$best") ms" >&2
		[ "${SB_BENCH_STRICT:-0}" = 1 ] && rc=1
	fi
	from=$(( $(ncalls) + 1 ))
	t0=$(now)
	SB_ROOT="$work/root-$n-0" SB_INDEX="$work/index-$n-0" "$bin/sbctl" submit spec.yaml > /dev/null
	t1=$(now)
	printf 'resubmit of %d children (nothing to do): %.0f ms, %d sbatch calls\n' "$n" "$(ms "$t0" "$t1")" \
		$(( $(ncalls) - from + 1 ))
done
exit "$rc"
