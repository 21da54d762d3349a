#!/bin/bash
# sbctl report above SB_REPORT_MARKS_MAX (2,000) children: the timeline is
# two panels of bands (children running, children waiting, stacked by
# class) instead of one mark per child, and the rest of the report is
# whole.  2,500 children, submitted to an sbatch that only prints job ids,
# given the logs of a finished run by build/tests/gen_status_logs, and an
# sacct that answers for them (every fifth one TIMEOUT): no job runs.
. "$(dirname "$0")/../e2e/lib.sh"
n=2500
gen=$SB_BUILD/tests/gen_status_logs
shim sbatch 'echo $((7000 + n)); exit 0'
cat > "$SHIM/sacct" <<EOF
#!/bin/sh
case " \$* " in
*" -j "*) [ -f "$T_ROOT/acct" ] && exec cat "$T_ROOT/acct" ;;
esac
exec "$SB_FAKE_BIN/sacct" "\$@"
EOF
chmod +x "$SHIM/sacct"
printf 'name: bands\ncommand: [python, train.py]\nrepeats: %d\n' "$n" > spec.yaml
"$SBCTL" submit spec.yaml --json > submit.json 2> /dev/null
dir=$(jq -r .benchmark.dir submit.json)
digest=$(jq -r .benchmark.digest submit.json)
jq -r '.child_list[] | "\(.index) \(.digest)"' "$dir/benchmark.json" > digests
jq -r '.jobs[] | .job_id as $j | .children | to_entries[] | "\(.value) \(5000000 + .value) \($j) \(.key)"' \
	submit.json | sort -n -k1,1 > jobs
join -j 1 <(sort -k1,1 digests) <(sort -k1,1 jobs) | sort -n -k1,1 > lines
"$gen" "$dir" "$digest" < lines > /dev/null
day=$(date +%Y-%m-%d)
awk -v d="$day" -v n="$n" -v name="sb-${digest:0:12}-a0" '
function t(s) { return sprintf("%sT%02d:%02d:%02d", d, int(s / 3600), int(s % 3600 / 60), s % 60) }
{ i = $1; start = 60 + int(i * 3600 / n); end = start + 60 + (i * 37) % 180
  printf "%s_%s|%s|%s|%s|0:0|%s|%s|%s|node1\n", $4, $5, $3, name, i % 5 == 4 ? "TIMEOUT" : "COMPLETED",
	t(60), t(start), t(end) }' lines > "$T_ROOT/acct"
"$SBCTL" status "$dir" --json > st.json
expect "the classes" "$(jq -c '.counts | with_entries(select(.value > 0))' st.json)" '{"succeeded":2000,"killed":500}'

"$SBCTL" report "$dir" -o r.html > /dev/null 2>&1
expect "report: exit 3" "$?" 3
expect "no mark per child above 2,000" "$(grep -c 'class="mark"' r.html)" 0
expect "two band panels" "$(grep -o 'class="band" data-panel="[a-z]*"' r.html | tr '\n' ' ')" \
	'class="band" data-panel="running" class="band" data-panel="waiting" '
expect "the text says why" "$(grep -c 'too many for one mark each (the limit is 2000)' r.html)" 1
expect "the bands: succeeded and killed columns" \
	"$(grep -o 'rect class="c-[a-z]*' r.html | sort -u | tr '\n' ' ')" \
	'rect class="c-killed rect class="c-succeeded '
expect "counts" "$(grep -o 'data-class="[a-z]*"><b>[0-9]*' r.html | tr '\n' ' ')" \
	'data-class="succeeded"><b>2000 data-class="killed"><b>500 '
expect "every excluded child listed" "$(grep -c '<tr data-child=' r.html)" 500
expect "one group of identical reasons" "$(grep -c 'class="rgroup"' r.html)" 1
"$SBCTL" report "$dir" -o r2.html > /dev/null 2>&1
expect "the same bytes" "$(cmp -s r.html r2.html && echo same)" same
t_done
