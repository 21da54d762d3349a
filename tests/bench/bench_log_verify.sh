#!/usr/bin/env bash
# How fast `sbctl log DIR --json` verifies a benchmark's event logs, against
# the floor of docs/development.md ("Performance budgets"): reading the same files and HMACing their bytes
#   find DIR/events -type f -print0 | xargs -0 cat | openssl dgst -sha256 -hmac KEY
# Budget: within 3x the floor.  SB_BENCH_FILES (default 10000) files of
# SB_BENCH_RECORDS (default 4) records; 100000 files is the §10 size.
# Warm cache; the best of 3 runs of each.  SB_BENCH_STRICT=1 exits 1 when
# over budget.
set -euo pipefail
sbctl=${SB_BIN:?}/sbctl
tamper=${SB_BUILD:?}/tests/sbtamper
files=${SB_BENCH_FILES:-10000}
records=${SB_BENCH_RECORDS:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$tamper" gendir "$work/bench" "$files" "$records"
hexkey=$(od -An -tx1 -v "$work/bench/keys/hmac.key" | tr -d ' \n')

now() { date +%s.%N; }
best() { # best of 3 wall times of "$@"
	local b="" t0 t1 t i
	for i in 1 2 3; do
		t0=$(now); "$@" >/dev/null; t1=$(now)
		t=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}
floor_cmd() {
	find "$work/bench/events" -type f -print0 | xargs -0 cat |
		openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey"
}
verify_cmd() { "$sbctl" log "$work/bench" --json; }

verify_cmd >/dev/null || { echo "bench_log_verify: sbctl log failed" >&2; exit 1; }
floor_cmd >/dev/null
floor=$(best floor_cmd)
ours=$(best verify_cmd)
total=$((files * records))
ratio=$(echo "$ours / $floor" | bc -l)
rate=$(echo "$total / $ours" | bc -l)
bytes=$(du -sb "$work/bench/events" | cut -f1)
printf 'log verify: %d files, %d records, %d bytes\n' "$files" "$total" "$bytes"
printf '  floor (cat | openssl dgst -hmac): %.3f s\n' "$floor"
printf '  sbctl log --json:                 %.3f s  (%.0f records/s)\n' "$ours" "$rate"
if [ "$(echo "$ratio <= 3" | bc -l)" = 1 ]; then
	printf '  ratio %.2fx: within the 3x budget\n' "$ratio"
else
	printf '  ratio %.2fx: OVER the 3x budget\n' "$ratio"
	[ "${SB_BENCH_STRICT:-0}" = 1 ] && exit 1
fi
exit 0
