#!/usr/bin/env bash
# Runs the benchmarks and prints their numbers beside their floors and budgets
# (docs/performance.md).
#   tests/bench/run.sh [BUILD]          every benchmark, sizes up to 100,000 children
#   tests/bench/run.sh --large [BUILD]  the million: bench_status.sh at 1,000,000
#                                       children (about 4 GB under TMPDIR: use tmpfs)
set -euo pipefail
large=0
if [ "${1:-}" = --large ]; then large=1; shift; fi
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
export SB_BUILD=$build SB_BIN=$build/bin SB_FAKE_BIN=$build/fake/bin SB_SRC=$(cd "$here/../.." && pwd)
if [ "$large" = 1 ]; then
	echo "== bench_status.sh --large"
	exec bash "$here/bench_status.sh" --large
fi
shopt -s nullglob
for b in "$build"/tests/bench_*; do echo "== $(basename "$b")"; "$b"; done
for s in "$here"/bench_*.sh; do echo "== $(basename "$s")"; bash "$s"; done
