#!/usr/bin/env bash
# The demo: installs what is missing, builds, then
#   1. wraps one command in sbagent and verifies its signed log, and shows
#      that changing one byte of the log is detected;
#   2. submits a 12-child benchmark (examples/demo-sweep.yaml, where the
#      children with lr=1.0 fail on purpose) to the built-in fake Slurm,
#      waits for it, and verifies every signed record its agents wrote.
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
"$bin/sbctl" submit "$root/examples/demo-sweep.yaml"
echo "-- sbctl submit returned; the children run as detached jobs:"
squeue
while [ -n "$(squeue -h -o %i)" ]; do sleep 0.5; done
echo "-- what the scheduler says (sacct):"
sacct -X --format=JobID,JobName%24,State,ExitCode
dir=$(echo "$SB_ROOT"/demo-sweep-*)
echo "-- the signed evidence (sbctl log $dir):"
"$bin/sbctl" log "$dir" | grep -E '^== .*/events/|^ +[0-9]+ .*finish|^total' \
	| sed -e "s|^== $dir/|== |" -e 's/  host=.*//' | cut -c1-120
echo
echo "The benchmark directory is $dir; 'sbctl log $dir --json' shows every record."
