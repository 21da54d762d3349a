#!/usr/bin/env bash
# Live watch (docs/watch.md): what it costs an agent, and how soon a record
# reaches a watcher.  Prints, beside their budgets:
# - sbagent -- true in benchmark mode over true: with no endpoint file
#   (the agent budget, 1.5 ms: docs/performance.md), with an endpoint file and
#   no listener, with a listening watcher;
# - latency from an agent's write (the record's time) to the watcher's
#   output line, for the records that came live (budget: under 200 ms).
# usage: SB_BIN=build/bin SB_FAKE_BIN=build/fake/bin bash tests/bench/bench_watch.sh [RUNS]
set -euo pipefail
runs=${1:-100}
bin=${SB_BIN:-build/bin}
fake=${SB_FAKE_BIN:-build/fake/bin}
bin=$(cd "$bin" && pwd) fake=$(cd "$fake" && pwd)
true_bin=$(type -P true)
work=$(mktemp -d "${SB_BENCH_DIR:-/tmp}/sbwatch-bench.XXXXXX")
wpid=
cleanup() {
	[ -n "$wpid" ] && kill "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null
	SB_FAKE_SLURM_DIR="$work/fake" "$fake/sbfake" shutdown >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
export PATH="$fake:$PATH" SB_FAKE_SLURM_DIR="$work/fake" SB_FAKE_TIME_UNIT=s
export SB_ROOT="$work/runs" SB_INDEX="$work/index.sqlite"
cd "$work"
printf 'name: wb\ncommand: [%s]\nheartbeat: 1\n' "$true_bin" > wb.yaml
dir=$("$bin/sbctl" submit wb.yaml --json | jq -r .benchmark.dir)
"$bin/sbctl" wait "$dir" --interval 1 > /dev/null

now_ns() { date +%s%N; }
agent_runs() { # N BASE: runs the child's agent N times, as its batch script
	local i job                 # would, with job ids BASE+1... (one log each)
	for i in $(seq "$1"); do
		job=$(( $2 + i ))
		SB_BENCH_DIR=$dir SB_ATTEMPT=0 SB_CHUNK=0 SLURM_ARRAY_TASK_ID=0 SLURM_JOB_ID=$job \
			SLURM_ARRAY_JOB_ID=$job "$bin/sbagent" -- > /dev/null
	done
}
true_runs() { local i; for i in $(seq "$1"); do "$true_bin"; done; }
# added BASE: ms per agent run over true, median of 5 alternating rounds
added() {
	local per=$(( (runs + 4) / 5 )) r t0 t1 t2 d=()
	for r in 1 2 3 4 5; do
		t0=$(now_ns); true_runs "$per"; t1=$(now_ns); agent_runs "$per" $(( $1 + r * 100000 )); t2=$(now_ns)
		d+=($(( ((t2 - t1) - (t1 - t0)) / per )))
	done
	printf '%s\n' "${d[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[3] / 1e6}'
}
verdict() { awk -v v="$1" -v b="$2" 'BEGIN { print (v <= b) ? "ok" : "OVER BUDGET" }'; }

# standalone (the budgeted figure; it never looks at watch/), then benchmark mode
"$bin/sbctl" keygen "$work/k"
standalone() { local i; for i in $(seq "$1"); do "$bin/sbagent" --key "$work/k" --log "$work/s.$2.$i" -- "$true_bin"; done; }
per=$(( (runs + 4) / 5 )) d=()
for r in 1 2 3 4 5; do
	t0=$(now_ns); true_runs "$per"; t1=$(now_ns); standalone "$per" "$r"; t2=$(now_ns)
	d+=($(( ((t2 - t1) - (t1 - t0)) / per )))
done
s=$(printf '%s\n' "${d[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[3] / 1e6}')
echo "sbagent -- true added over true (standalone): $s ms per run (budget 1.5 ms, bench_agent.sh measures it closely) $(verdict "$s" 1.5)"
a=$(added 1000000)
echo "sbagent in benchmark mode (task map, benchmark record) added over true, no endpoint file: $a ms per run"

mkdir -p -m 700 "$dir/watch"
printf 'endpoint tcp://127.0.0.1:1\nserver_key %s\n' "$(head -c 40 /dev/zero | tr '\0' a)" \
	> "$dir/watch/$(hostname -s)-$$.endpoint"
chmod 600 "$dir/watch/$(hostname -s)-$$.endpoint"
"$bin/sbctl" watch "$dir" --json --timeout 1 > /dev/null  # makes keys/watch.key
b=$(added 2000000)
echo "sbagent added over true, an endpoint file and no listener: $b ms per run (its helper sbagent-watch started once per run)"
rm -f "$dir/watch/"*.endpoint

"$bin/sbctl" watch "$dir" --json > /dev/null &
wpid=$!
until ls "$dir/watch/"*.endpoint > /dev/null 2>&1; do sleep 0.05; done
c=$(added 3000000)
echo "sbagent added over true, a listening watcher: $c ms per run"
kill "$wpid"; wait "$wpid" 2>/dev/null || true; wpid=

# latency: a child that runs 4 s with heartbeats every second
printf 'name: wl\ncommand: [sleep, "4"]\nparameters:\n  i: [0, 1, 2, 3]\nheartbeat: 1\n' > wl.yaml
ldir=$("$bin/sbctl" submit wl.yaml --json | jq -r .benchmark.dir)
"$bin/sbctl" watch "$ldir" --json --until-done --timeout 60 |
	while IFS= read -r line; do printf '%s %s\n' "$(now_ns)" "$line"; done > lat.txt || true
awk '{ t = $1; sub(/^[0-9]+ /, ""); print t "\t" $0 }' lat.txt |
	while IFS=$'\t' read -r t json; do
		echo "$json" | jq -r --arg t "$t" 'select(.type and .live) | (($t | tonumber) - .time_ns) / 1e6'
	done | sort -n > lat.ms
n=$(wc -l < lat.ms)
if [ "$n" -eq 0 ]; then
	echo "watch latency: no record came live (OVER BUDGET)"
else
	awk -v n="$n" '{a[NR]=$1} END {
		med = a[int((n + 1) / 2)]; max = a[n]
		printf "watch latency, write to watcher output: median %.1f ms, max %.1f ms over %d live records (budget 200 ms) %s\n",
			med, max, n, max < 200 ? "ok" : "OVER BUDGET"
	}' lat.ms
fi
