#!/usr/bin/env bash
# Runs every fuzz target built in BUILD/fuzz for SECONDS each, starting from
# its seed corpus (copied, so the repository's corpus is not modified).
# usage: tests/fuzz/run.sh [BUILD] [SECONDS]
set -euo pipefail
build=${1:-build-fuzz}
secs=${2:-30}
src=$(cd "$(dirname "$0")" && pwd)
shopt -s nullglob
targets=("$build"/fuzz/fuzz_*)
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz: no targets in $build/fuzz" >&2
	exit 1
fi
for t in "${targets[@]}"; do
	name=$(basename "$t"); name=${name#fuzz_}
	work=$(mktemp -d)
	if [ -d "$src/corpus/$name" ]; then cp -r "$src/corpus/$name/." "$work/"; fi
	echo "fuzz: $name for ${secs}s"
	"$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 "$work" 2>&1 | tail -n 3
	rm -rf "$work"
done
echo "fuzz: all targets ran without a crash"
