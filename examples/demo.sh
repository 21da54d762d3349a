#!/usr/bin/env bash
# The demo: installs what is missing, builds, then
#   1. wraps one command in sbagent and verifies its signed log, and shows
#      that changing one byte of the log is detected;
#   2. submits a 12-child benchmark (examples/demo-sweep.yaml: some children
#      fail, one times out, one is cancelled, on purpose) to the built-in
#      fake Slurm and waits for it;
#   3. classifies every child (sbctl status), 4. aggregates the metrics of
#      the succeeded children only (sbctl analyze), and 5. shows that a
#      fresh process without the local index says exactly the same.
# Everything happens in a fresh temporary directory; nothing else is touched.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash tests/install-deps.sh
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
bin=$root/build/bin
work=$(mktemp -d "${TMPDIR:-/tmp}/sbench-demo.XXXXXX")
cd "$work"
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "1. one command under sbagent (in $work)"
"$bin/sbctl" keygen demo.key
set +e
"$bin/sbagent" --key demo.key --log run.log --result out.txt --heartbeat 1 -- \
	sh -c 'echo computing; sleep 1.2; echo 42 > out.txt; exit 3'
echo "sbagent exited $? (the command's own status)"
set -e
"$bin/sbctl" log run.log --key demo.key
printf '\x00' | dd of=run.log bs=1 seek=40 conv=notrunc status=none
echo "-- after changing byte 40 of run.log:"
"$bin/sbctl" log run.log --key demo.key || echo "sbctl log exited $?: the change is detected"

step "2. a benchmark on the fake Slurm"
export PATH="$root/build/fake/bin:$PATH"
export SB_FAKE_SLURM_DIR="$work/fake-slurm" SB_FAKE_TIME_UNIT=s SB_FAKE_KILLWAIT=0.5
export SB_ROOT="$work/runs" SB_INDEX="$work/index.sqlite"
"$bin/sbctl" submit "$root/examples/demo-sweep.yaml" --json > submit.json
jq -r '"submitted \(.benchmark.name): job \(.jobs[0].job_id), array \(.jobs[0].array)\ndirectory \(.benchmark.dir)"' submit.json
job=$(jq -r '.jobs[0].job_id' submit.json)
dir=$(jq -r '.benchmark.dir' submit.json)
echo "-- sbctl submit returned; the children run as detached jobs:"
squeue
sleep 1
echo "-- cancelling child 3 (task ${job}_3) by hand, as a user would:"
scancel "${job}_3"
echo "-- sbctl watch: the records live as the agents write them, until done"
"$bin/sbctl" watch demo-sweep --json --until-done | jq -c 'select(.type) | {child, type, live}' | tail -n 3 || true
echo "-- sbctl wait: polls until nothing is pending or running"
"$bin/sbctl" wait demo-sweep --interval 1 > /dev/null || true

step "3. status: every child classified, from the signed logs and sacct"
sacct -X --format=JobID,State,ExitCode
"$bin/sbctl" status demo-sweep || echo "(sbctl status exited $?: not every child succeeded)"

step "4. analysis over the children that succeeded, and nothing else"
"$bin/sbctl" analyze demo-sweep || echo "(sbctl analyze exited $?)"

step "5. the same status from a fresh process, with the local index deleted"
"$bin/sbctl" status demo-sweep > first.txt || true
rm -f "$SB_INDEX"
"$bin/sbctl" status "$dir" > again.txt || true
if cmp -s first.txt again.txt; then echo "the same status, byte for byte, with no local index"; else diff first.txt again.txt; fi
echo "offline (logs and the outcomes sbctl recorded, no sacct):"
{ "$bin/sbctl" status "$dir" --offline --json || true; } | jq -c .counts
echo "sbctl log verifies every record:"
"$bin/sbctl" log "$dir" | tail -n 1

step "6. the same analysis from Python (import sbench, over the same library)"
PYTHONPATH="$root/build/python" python3 - "$dir" <<'PY'
import sys, sbench
a = sbench.analyze(sys.argv[1])
best = max((g for g in a["groups"] if g["n"]), key=lambda g: g["metrics"]["accuracy"]["mean"])
print("best configuration:", best["params"], "mean accuracy", best["metrics"]["accuracy"]["mean"])
print("the same document as sbctl analyze --json:", a["counts"]["succeeded"], "succeeded")
PY

step "7. the report: one self-contained HTML file to open in a browser"
"$bin/sbctl" report demo-sweep || true
echo
echo "Everything is in $work; the benchmark directory is $dir."
