#!/usr/bin/env bash
# Runs every benchmark and prints its numbers.  usage: tests/bench/run.sh [BUILD]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
export SB_BUILD=$build SB_BIN=$build/bin SB_FAKE_BIN=$build/fake/bin SB_SRC=$(cd "$here/../.." && pwd)
shopt -s nullglob
for b in "$build"/tests/bench_*; do echo "== $(basename "$b")"; "$b"; done
for s in "$here"/bench_*.sh; do echo "== $(basename "$s")"; bash "$s"; done
