#!/usr/bin/env bash
# What `sbagent -- true` adds over `true`: wall time per run and peak RSS
# (docs/development.md budget: 3 ms and 4 MiB on a local disk).  Each sbagent run
# writes a new log file (two fsyncs) in a scratch directory under /tmp (the
# local disk, whatever TMPDIR says), or under $SB_BENCH_TMP.  SB_BENCH_DIR,
# SB_ATTEMPT and SB_CHUNK are sbagent's benchmark mode (the job's
# environment): they are removed here, so a shell inside a job measures the
# standalone agent too.
# usage: SB_BIN=build/bin bash tests/bench/bench_agent.sh [RUNS]
set -euo pipefail
runs=${1:-200}
bin=${SB_BIN:-build/bin}
agent=$bin/sbagent
true_bin=$(type -P true)
[ -x "$agent" ] || { echo "bench_agent: no $agent (build first)" >&2; exit 2; }
unset SB_BENCH_DIR SB_ATTEMPT SB_CHUNK

dir=$(mktemp -d "${SB_BENCH_TMP:-/tmp}/sbagent-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
if [ -x "$bin/sbctl" ] && "$bin/sbctl" keygen "$dir/key" 2>/dev/null; then :; else
	(umask 077 && head -c 32 /dev/urandom > "$dir/key")
fi

now_ns() { date +%s%N; }

# Rounds alternate between the two commands so that a noisy neighbour hurts
# both alike; the per-run figure is the median round.
rounds=5
per=$(( (runs + rounds - 1) / rounds ))
base=() with=()
n=0
for r in $(seq "$rounds"); do
	t0=$(now_ns)
	for i in $(seq "$per"); do "$true_bin"; done
	t1=$(now_ns)
	for i in $(seq "$per"); do
		n=$((n + 1))
		"$agent" --key "$dir/key" --log "$dir/log.$n" -- "$true_bin" ||
			{ echo "bench_agent: sbagent exited $? (run $n)" >&2; exit 1; }
	done
	t2=$(now_ns)
	base+=($(( (t1 - t0) / per )))
	with+=($(( (t2 - t1) / per )))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
b=$(median "${base[@]}")
w=$(median "${with[@]}")
awk -v b="$b" -v w="$w" -v n="$((per * rounds))" 'BEGIN {
	d = (w - b) / 1e6
	printf "sbagent wall: true %.3f ms, sbagent -- true %.3f ms, added %.3f ms per run (%d runs each; budget 3 ms) %s\n",
		b / 1e6, w / 1e6, d, n, d <= 3 ? "ok" : "OVER BUDGET"
}'

# Peak RSS (the largest of 20 runs each).  GNU time's %M is the maximum
# resident set of the process and its reaped descendants, in KiB.
peak() {
	local max=0 kb i
	for i in $(seq 20); do
		kb=$("$@" 2>&1 >/dev/null | tail -n 1)
		[ "$kb" -gt "$max" ] && max=$kb
	done
	echo "$max"
}
if [ -x /usr/bin/time ]; then
	rb=$(peak /usr/bin/time -f %M "$true_bin")
	m=0
	rw=0
	for i in $(seq 20); do
		m=$((m + 1))
		kb=$( { /usr/bin/time -f %M "$agent" --key "$dir/key" --log "$dir/rss.$m" -- "$true_bin" >/dev/null; } 2>&1 | tail -n 1)
		[ "$kb" -gt "$rw" ] && rw=$kb
	done
	awk -v b="$rb" -v w="$rw" 'BEGIN {
		d = w - b
		printf "sbagent peak RSS: true %d KiB, sbagent -- true %d KiB, added %d KiB (budget 4096 KiB) %s\n",
			b, w, d, d <= 4096 ? "ok" : "OVER BUDGET"
	}'
else
	echo "sbagent peak RSS: /usr/bin/time not found; not measured (budget 4 MiB)"
fi
