#!/usr/bin/env bash
# Submitting a benchmark of N children (default 10,000) to the fake Slurm:
# the wall time of `sbctl submit`, and the number of sbatch calls, which must
# be ceil(N / MaxArraySize) (docs/development.md).  The children themselves do not run
# (sbatch is shimmed to add --begin=now+3600: they stay pending).
# usage: SB_BIN=build/bin SB_FAKE_BIN=build/fake/bin bash tests/bench/bench_submit.sh [N]
set -euo pipefail
n=${1:-10000}
bin=${SB_BIN:-build/bin}
fake=${SB_FAKE_BIN:-build/fake/bin}
[ -x "$bin/sbctl" ] && [ -x "$fake/sbatch" ] || { echo "bench_submit: build first" >&2; exit 2; }
bin=$(cd "$bin" && pwd) fake=$(cd "$fake" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sb-bench-submit.XXXXXX")
trap 'SB_FAKE_SLURM_DIR=$work/state "$fake/sbfake" shutdown >/dev/null 2>&1; rm -rf "$work"' EXIT
cd "$work"
mkdir shim
cat > shim/sbatch <<SHIM
#!/bin/sh
echo call >> "$work/calls"
exec "$fake/sbatch" --begin=now+3600 "\$@"
SHIM
chmod +x shim/sbatch
export PATH="$work/shim:$fake:$PATH" SB_FAKE_SLURM_DIR="$work/state" SB_INDEX="$work/index" SB_ROOT="$work/runs"
max=$(scontrol show config | awk '/^MaxArraySize/ {print $3}')
printf 'name: bench-submit\ncommand: [true, "{i}"]\nparameters:\n  i: [%s]\n' \
	"$(seq -s, 0 $((n - 1)))" > spec.yaml
t0=$(date +%s%N)
"$bin/sbctl" submit spec.yaml > /dev/null
t1=$(date +%s%N)
calls=$(wc -l < calls)
want=$(( (n + max - 1) / max ))
echo "submit of $n children: $(( (t1 - t0) / 1000000 )) ms, $calls sbatch calls (MaxArraySize $max; budget: ceil($n/$max) = $want calls)"
[ "$calls" -eq "$want" ] || { echo "bench_submit: $calls sbatch calls, budget $want" >&2; exit 1; }
t0=$(date +%s%N)
"$bin/sbctl" submit spec.yaml > /dev/null
t1=$(date +%s%N)
echo "resubmit (nothing to do): $(( (t1 - t0) / 1000000 )) ms, $(( $(wc -l < calls) - calls )) sbatch calls"
