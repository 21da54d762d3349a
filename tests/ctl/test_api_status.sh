#!/bin/bash
# The public status, wait, analyze, index and output API against sbctl:
# two benchmarks on the fake Slurm (one finished, child 0 exit 0 with a
# metric, child 1 exit 3; one still running), what sbctl prints for them,
# and a copy with a broken record, then tests/test_api_status (cmocka, linked against libsbench.so) calls
# the library directly and compares every renderer's bytes with sbctl's.
. "$(dirname "$0")/../e2e/lib.sh"

dir=$(submit_spec mixed "name: mixed
command: [sh, -c, 'echo score: 7 > m.yaml; exit {code}']
metrics: m.yaml
parameters:
  code: [0, 3]")
busy=$(submit_spec busy "name: busy
command: [sleep, '60']
heartbeat: 1
parameters:
  x: [1]")
settled() { "$SBCTL" status "$1" --settle 0 --json 2>/dev/null | jq -e '.counts.pending + .counts.running == 0' >/dev/null; }
started() { "$SBCTL" status "$1" --json 2>/dev/null | jq -e '.counts.running == 1' >/dev/null; }
wait_for 60 settled "$dir"
wait_for 30 started "$busy"

out=$T_ROOT/cli
mkdir -p "$out"
"$SBCTL" status "$dir" > "$out/status.txt"
expect "sbctl status: exit 3" "$?" 3
"$SBCTL" status "$dir" --json > "$out/status.json"
"$SBCTL" status "$dir" --json --offline > "$out/status-offline.json"
"$SBCTL" analyze "$dir" > "$out/analyze.txt"
"$SBCTL" analyze "$dir" --json > "$out/analyze.json"
"$SBCTL" analyze "$dir" --csv > "$out/analyze.csv"
"$SBCTL" status "$dir" --class failed > "$out/status-failed.txt"
"$SBCTL" report "$dir" -o "$out/report.html" > /dev/null
"$SBCTL" list > "$out/list.txt"
"$SBCTL" list --json > "$out/list.json"
expect "the CLI's status: child 1 failed" "$(jq -r '.children[1].class' "$out/status.json")" failed
expect "the CLI's analysis: the score" "$(jq -c '.groups[0].metrics.score.mean' "$out/analyze.json")" 7

# a copy whose record names another digest than its spec plans to
tampered=$T_ROOT/tampered
cp -a "$dir" "$tampered"
digest=$(jq -r .benchmark.digest "$out/status.json")
other=$( [ "${digest:0:1}" = 0 ] && echo 1 || echo 0 )${digest:1}
perl -0777 -pi -e "s/$digest/$other/" "$tampered/benchmark.msgpack"
expect "the tampered copy names another digest" "$(grep -c "$other" "$tampered/benchmark.msgpack")" 1

SB_API_CHILDREN=$T_ROOT/children.jsonl SB_API_SBCTL=$SBCTL SB_API_BENCH=$dir SB_API_BUSY=$busy SB_API_TAMPERED=$tampered SB_API_OUT=$out "$SB_BUILD/tests/test_api_status" > api.out 2> api.err
rc=$?
cat api.out api.err
expect "test_api_status passes" "$rc" 0
expect "the library printed nothing on stdout" "$(grep -v '^\[' api.out | grep -v '^$')" ""
# each child rendered alone (sb_status_render_child) is the child object of sbctl status --json
expect "sb_status_render_child: sbctl's children" "$(jq -c . "$T_ROOT/children.jsonl")" \
	"$(jq -c '.children[]' "$out/status.json")"
expect "sb_status_render_child: two children" "$(wc -l < "$T_ROOT/children.jsonl")" 2
"$SBCTL" cancel "$busy" > /dev/null 2>&1
t_done
