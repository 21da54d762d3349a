#!/bin/bash
# The live view on a terminal (through script(1), which gives sbctl watch a
# pseudo-terminal): redrawn in place, the counts per class, one line per
# running child with its latest heartbeat metrics and a progress bar from
# the metrics file's "progress"; heartbeats carry the metrics file's numbers.
. "$(dirname "$0")/lib.sh"

cat > "$T_ROOT/work/m.sh" <<'SH'
for s in 1 2 3 4; do
	printf '{"loss": 0.%s, "progress": 0.%s}\n' "$s" "$((s * 2))" > m.json.tmp
	mv m.json.tmp m.json
	sleep 1
done
SH
dir=$(submit_spec v "name: v
command: [sh, $T_ROOT/work/m.sh]
parameters:
  i: [0, 1]
metrics: m.json
heartbeat: 1") || exit 1
script -qfec "$SBCTL watch $dir --until-done --timeout 60" view.txt > /dev/null
expect "the view exits with status's code" "$?" 0
expect_match "it is redrawn in place (cursor home, clear), more than once" "$(grep -o $'\e\[H\e\[J' view.txt | wc -l)" '^ *([2-9]|[1-9][0-9]+)$'
expect_match "the counts per class" "$(tail -c 2000 view.txt)" 'succeeded 2'
expect_match "a running child's line: elapsed, metrics" "$(cat view.txt)" $'\n0 +0 +[0-9.]+s +[0-9]+ MiB +[0-9.]+s  \[#+ *\] +[0-9]+% loss=0\.[1-4]'
"$SBCTL" log "$dir" --json > log.json
expect_match "heartbeats carry the metrics file's numbers" \
	"$(jq -c 'select(.type == "heartbeat") | .metrics' log.json | sort -u | head -n 1)" '^\{"loss":0\.[1-4],"progress":0\.[2-8]\}$'
[ -n "${SB_KEEP_VIEW:-}" ] && cp view.txt "$SB_KEEP_VIEW"
t_done
