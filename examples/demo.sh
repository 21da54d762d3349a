#!/usr/bin/env bash
# The demo: installs what is missing, builds, and shows signed evidence for
# one command.  sbagent runs a command that writes a result file and exits 3;
# sbctl log verifies the record chain; then one byte of the log is changed
# and sbctl log names the problem.  (The benchmark demo on the built-in fake
# Slurm replaces this once status and analyze exist.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash tests/install-deps.sh
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
bin=$root/build/bin
work=$(mktemp -d "${TMPDIR:-/tmp}/sbench-demo.XXXXXX")
cd "$work"
echo "== in $work"
set -x
"$bin/sbctl" keygen demo.key
"$bin/sbagent" --key demo.key --log run.log --result out.txt --heartbeat 1 -- \
	sh -c 'echo computing; sleep 1.5; echo 42 > out.txt; exit 3' || echo "sbagent exited $?"
"$bin/sbctl" log run.log --key demo.key
"$bin/sbctl" log run.log --key demo.key --json
printf '\x00' | dd of=run.log bs=1 seek=40 conv=notrunc status=none
"$bin/sbctl" log run.log --key demo.key || echo "sbctl log exited $? after one byte of run.log was changed"
