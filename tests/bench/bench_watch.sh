#!/usr/bin/env bash
# Live watch (docs/watch.md): what it costs an agent, how soon a record
# reaches a watcher, and how a watcher catches up with a large benchmark.
# Prints, beside their budgets:
# - sbagent -- true in benchmark mode over true: with no endpoint file
#   (the agent budget, 1.5 ms: docs/performance.md), with an endpoint file and
#   no listener, with a listening watcher;
# - latency from an agent's write (the record's time) to the watcher's
#   output line, for the records that came live (budget: under 200 ms);
# - for each size of SB_BENCH_SIZES (default 100000; "none" skips it): a
#   finished benchmark of that many children (4 records each, written by
#   build/tests/gen_status_logs as in bench_status.sh) watched with
#   `sbctl watch --json`: the first line's latency from the command's start
#   (budget 100 ms), the time to show every record (beside `sbctl log DIR
#   --json`), the watcher's peak RSS (budget: that of a watcher of the
#   same benchmark stopped before it reads a log -- start-up and the opened
#   benchmark -- plus 8 MiB: the per-log state of 37-73 bytes a log and what
#   one log needs, nothing per record; printed also per child beyond a
#   watcher of a 10-child benchmark), the latency of the records
#   agents send live while it catches up (budget 200 ms), and
#   `--until-done` to its exit (its peak RSS includes one `sbctl status` of
#   the benchmark, printed beside it).
# usage: SB_BIN=build/bin SB_FAKE_BIN=build/fake/bin bash tests/bench/bench_watch.sh [RUNS]
# RUNS (default 100) agent runs per agent figure; 0 skips the agent figures
# and the small latency run.  Put TMPDIR on tmpfs (TMPDIR=/dev/shm).
set -euo pipefail
runs=${1:-100}
sizes=${SB_BENCH_SIZES:-100000}
here=$(cd "$(dirname "$0")" && pwd)
bin=${SB_BIN:-build/bin}
fake=${SB_FAKE_BIN:-build/fake/bin}
bin=$(cd "$bin" && pwd) fake=$(cd "$fake" && pwd)
true_bin=$(type -P true)
py=$(command -v python3 || true)

# ---- catching up with a large finished benchmark ----

# watch_drive: the driver of one watcher (a Python program, so that lines
# are timed as they arrive): see its usage below
watch_drive() {
	"$py" - "$@" <<'PY'
import json, os, signal, subprocess, sys, threading, time

# usage: SBCTL DIR MODE EXPECT AGENT
#   MODE catchup: `watch DIR --json` until EXPECT records of the benchmark's
#        own logs are shown (an agent log's job id starts with 9), then
#        SIGTERM; with AGENT (a sbagent path, or "-"), agents of new logs
#        of children 0, 1, ... run one after another while it catches up
#   MODE until: `watch DIR --json --until-done` to its exit
# prints one JSON object: first_ms, records, catchup_s, exit_s, rc,
# maxrss_kib, live (latencies in ms of the live records), agents
sbctl, bdir, mode, expect, agent = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
cmd = [sbctl, "watch", bdir, "--json", "--timeout", "1800"] + (["--until-done"] if mode == "until" else [])
t0 = time.monotonic()
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=1 << 16)
st = {"first": None, "records": 0, "own": 0, "agent_records": 0, "catchup": None, "live": []}
caught = threading.Event()

def reader():
    for line in p.stdout:
        now, wall = time.monotonic(), time.time_ns()
        if st["first"] is None:
            st["first"] = now - t0
        if b'"type":' not in line:
            continue
        st["records"] += 1
        if b'"live":true' in line:
            rec = json.loads(line)
            st["live"].append((wall - rec["time_ns"]) / 1e6)
        if b'.j9' in line:
            st["agent_records"] += 1
        else:
            st["own"] += 1
            if st["own"] >= expect and st["catchup"] is None:
                st["catchup"] = now - t0
                caught.set()
    caught.set()

rt = threading.Thread(target=reader, daemon=True)
rt.start()
agents = 0
if mode == "catchup":
    if agent != "-":
        wdir = os.path.join(bdir, "watch")
        while not (os.path.isdir(wdir) and any(n.endswith(".endpoint") for n in os.listdir(wdir))):
            if p.poll() is not None or time.monotonic() - t0 > 60:
                break
            time.sleep(0.005)
        env = dict(os.environ, SB_BENCH_DIR=bdir, SB_ATTEMPT="0", SB_CHUNK="0", SLURM_ARRAY_JOB_ID="7001")
        while not caught.is_set() and p.poll() is None:
            env.update(SLURM_ARRAY_TASK_ID=str(agents), SLURM_JOB_ID=str(9000000 + agents))
            subprocess.run([agent, "--"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            agents += 1
            caught.wait(0.05)
        time.sleep(0.5)  # the agents' last records
    else:
        caught.wait()
    p.send_signal(signal.SIGTERM)
_, status, ru = os.wait4(p.pid, 0)
end = time.monotonic()
rt.join()
print(json.dumps({"first_ms": st["first"] * 1000 if st["first"] is not None else None,
    "records": st["records"], "catchup_s": st["catchup"], "exit_s": end - t0,
    "rc": os.waitstatus_to_exitcode(status), "maxrss_kib": ru.ru_maxrss,
    "live": sorted(st["live"]), "agents": agents, "agent_records": st["agent_records"],
    "stderr": p.stderr.read().decode(errors="replace")[-300:]}))
PY
}

# watch_large N: the figures of a finished benchmark of N children
watch_large() (
	set -e
	local n=$1 base_kib res first total records rss live nlive med max agents until
	export SB_BIN=$bin SB_FAKE_BIN=$fake SB_BUILD=${SB_BUILD:-$(cd "$bin/.." && pwd)}
	# shellcheck source=tests/bench/lib.sh
	. "$here/lib.sh"
	bench_work "watch-$n"
	# the baseline: a watcher of a 10-child benchmark
	printf 'name: benchwatch0\ncommand: [sleep, "0.2"]\nrepeats: 10\n' > "$work/spec.yaml"
	bench_submit
	res=$(watch_drive "$sbctl" "$dir" catchup 40 -)
	base_kib=$(jq -r .maxrss_kib <<< "$res")
	printf 'name: benchwatch\ncommand: [sleep, "0.2"]\nrepeats: %d\n' "$n" > "$work/spec.yaml"
	bench_submit
	bench_acct_completed "$work/acct"
	# the first status fills the local index and records the outcomes (a
	# log of 45 bytes a child), as a user's first look would
	"$sbctl" status "$dir" --json > /dev/null || true
	local files bytes biggest
	files=$(find "$dir/events" "$dir/submissions" -type f | wc -l)
	bytes=$(find "$dir/events" "$dir/submissions" -type f -print0 | du -cb --files0-from=- | tail -n 1 | cut -f1)
	biggest=$(find "$dir/events" "$dir/submissions" -type f -printf '%s\n' | sort -n | tail -n 1)
	# what a watcher costs before it reads a log: start-up, the benchmark opened
	local open_kib
	open_kib=$(bench_rss "$sbctl" watch "$dir" --json --timeout 0.001)
	local logt logrss
	logt=$(bench_best "$sbctl" log "$dir" --json)
	logrss=$(cat "$work/best.rss")
	# --until-done first (the agents below add logs to the benchmark)
	until=$(watch_drive "$sbctl" "$dir" until 0 -)
	records=$(jq -r .records <<< "$until")
	[ "$(jq -r .rc <<< "$until")" = 0 ] || {
		echo "bench_watch: watch --until-done exited $(jq -r .rc <<< "$until"): $(jq -r .stderr <<< "$until")" >&2; exit 1; }
	local strss
	strss=$(bench_rss "$sbctl" status "$dir" --json)
	res=$(watch_drive "$sbctl" "$dir" catchup "$records" "$bin/sbagent")
	first=$(jq -r .first_ms <<< "$res")
	total=$(jq -r .catchup_s <<< "$res")
	rss=$(jq -r .maxrss_kib <<< "$res")
	agents=$(jq -r .agents <<< "$res")
	nlive=$(jq -r '.live | length' <<< "$res")
	printf 'watch of a finished benchmark of %d children: %d log files, %d bytes (largest %d), %d records\n' \
		"$n" "$files" "$bytes" "$biggest" "$records"
	printf '  first line after %.1f ms (budget 100 ms) %s\n' "$first" "$(bench_judge "$n children: watch first line ms" "$first" 100)"
	printf '  every record shown after %.2f s (sbctl log DIR --json: %.2f s, %d MiB)\n' \
		"$total" "$logt" $((logrss / 1024))
	local budget=$((open_kib + 8192))
	printf '  peak RSS %.1f MiB (budget %.1f MiB: a watcher stopped before it reads a log, %.1f MiB, + 8 MiB) %s\n' \
		"$(calc "$rss / 1024")" "$(calc "$budget / 1024")" "$(calc "$open_kib / 1024")" \
		"$(bench_judge "$n children: watch peak RSS KiB" "$rss" "$budget")"
	printf '    beyond a watcher of 10 children (%.1f MiB): %.0f B per child (opening the benchmark and the per-log state included)\n' \
		"$(calc "$base_kib / 1024")" "$(calc "($rss - $base_kib) * 1024 / $n")"
	if [ "$nlive" -eq 0 ]; then
		printf '  live records while it caught up: none came (%d agents ran) OVER\n' "$agents"
		printf 'bench: %d children: no live record while watch caught up\n' "$n" >> "$work/over"
	else
		med=$(jq -r '.live | .[(length - 1) / 2 | floor]' <<< "$res")
		max=$(jq -r '.live[-1]' <<< "$res")
		printf '  live records while it caught up: %d of the %d records shown of %d agents, write to output median %.1f ms, max %.1f ms (budget 200 ms) %s\n' \
			"$nlive" "$(jq -r .agent_records <<< "$res")" "$agents" "$med" "$max" "$(bench_judge "$n children: live latency during catch-up ms" "$max" 200)"
	fi
	printf '  --until-done: first line %.1f ms, exit after %.2f s, peak RSS %.1f MiB (sbctl status --json alone: %.1f MiB)\n' \
		"$(jq -r .first_ms <<< "$until")" "$(jq -r .exit_s <<< "$until")" \
		"$(calc "$(jq -r .maxrss_kib <<< "$until") / 1024")" "$(calc "$strss / 1024")"
	# over a budget: the lines to stderr, and 10 for finish
	if [ -f "$work/over" ]; then cat "$work/over" >&2; exit 10; fi
)

# the end: what was over its budget (SB_BENCH_STRICT=1: exit 1)
finish() {
	local n over=0 rc
	if [ "$sizes" != none ] && [ -z "$py" ]; then
		echo "watch of a large benchmark: not measured (no python3 to time its lines)"
	elif [ "$sizes" != none ]; then
		for n in $sizes; do
			set +e # (not `|| rc=$?`: that would turn set -e off inside it)
			watch_large "$n"
			rc=$?
			set -e
			case $rc in 0) ;; 10) over=1 ;; *) exit "$rc" ;; esac
		done
	fi
	[ "$over" = 1 ] && [ "${SB_BENCH_STRICT:-0}" = 1 ] && exit 1
	exit 0
}
[ "$runs" -gt 0 ] || finish

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
finish
