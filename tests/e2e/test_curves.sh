#!/bin/bash
# Learning curves (issue 28, item 2; docs/spec.md "Metrics and learning
# curves"): with a metrics file and no early-stop rule, each heartbeat
# carries the file's numbers when they changed; `sbctl log --json` shows
# them, sbench.curves gives them as rows with the child's parameters; a
# file caught half written gives a heartbeat without metrics and the next
# one carries them; a heartbeat holds at most 256 metrics and counts the
# rest; a tampered log gives the points before the tampering and a warning.
. "$(dirname "$0")/lib.sh"

# acc rises 0.1 ... 0.4, a new value every 1.3 s, then stays for 2.5 s
cat > curve.sh <<'SH'
for i in 1 2 3 4; do
	printf '{"acc": 0.%d, "step": %d, "lr": %s}' $i $i "$1" > "$SB_METRICS_FILE"
	sleep 1.3
done
sleep 2.5
SH
# the file half written for 2.5 s (two heartbeats), then whole
cat > torn.sh <<'SH'
printf '{"acc": 0.5, "st' > "$SB_METRICS_FILE"
sleep 2.5
printf '{"acc": 0.5, "step": 1}' > "$SB_METRICS_FILE"
sleep 2.5
SH

write_spec curves.yaml "name: curves
command: [sh, $PWD/curve.sh, '{lr}']
parameters: {lr: [0.1, 0.2]}
heartbeat: 1
metrics: metrics.json"
write_spec torn.yaml "name: torn
command: [sh, $PWD/torn.sh]
heartbeat: 1
metrics: metrics.json"
"$SBCTL" submit curves.yaml --json > curves.submit.json
expect "submit curves exits 0" "$?" 0
"$SBCTL" submit torn.yaml --json > torn.submit.json
expect "submit torn exits 0" "$?" 0
wait_for 60 all_done
d=$(jqf curves.submit.json .benchmark.dir)
td=$(jqf torn.submit.json .benchmark.dir)

# --- sbctl log --json: the heartbeats carry the curve, only its changes
"$SBCTL" log "$d" --child 0 --json > c0.json
expect "the log verifies" "$?" 0
hb=$(jq -r 'select(.type=="heartbeat") | if .metrics then .metrics.acc else "-" end' c0.json | tr '\n' ' ')
with=$(jq -r 'select(.type=="heartbeat" and .metrics) | .metrics.acc' c0.json)
expect_match "heartbeats carry acc as it rose ($hb)" "$(echo $with)" '^(0\.1 )?0\.2 0\.3 0\.4$'
expect "each heartbeat with metrics has new numbers" \
	"$(jq -r 'select(.type=="heartbeat" and .metrics) | .metrics.acc' c0.json | uniq -d)" ""
expect_match "unchanged numbers: heartbeats without metrics ($hb)" "$hb" ' - '
expect "no heartbeat left metrics off" "$(jq -r 'select(.metrics_left_off) | .seq' c0.json)" ""
expect "the finish has the last numbers" \
	"$(jq -c 'select(.type=="finish") | .metrics' c0.json)" '{"acc":0.4,"lr":0.1,"step":4}'

# --- sbench.curves: rows ready for pandas, with the child's parameters
cat > curves.py <<'PY'
import json, sys, warnings
import sbench
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    rows = sbench.curves(sys.argv[1], **json.loads(sys.argv[2]))
print(json.dumps({"rows": rows, "warnings": [str(x.message) for x in w]}))
PY
py curves.py "$d" '{}' > rows.json
expect "sbench.curves runs" "$?" 0
expect "rows have the documented keys" "$(jq -c '.rows[0] | keys' rows.json)" \
	'["attempt","child","elapsed","final","metric","param.lr","restart","value"]'
expect "both children have rows" "$(jq -c '[.rows[].child] | unique' rows.json)" '[0,1]'
expect "child 1's rows carry its lr" "$(jq -c '[.rows[] | select(.child==1) | .["param.lr"]] | unique' rows.json)" '[0.2]'
acc0=$(jq -c '[.rows[] | select(.child==0 and .metric=="acc" and (.final|not)) | .value]' rows.json)
expect_match "child 0's acc curve rises ($acc0)" "$acc0" '^\[(0\.1,)?0\.2,0\.3,0\.4\]$'
expect "elapsed grows along the curve" \
	"$(jq -r '[.rows[] | select(.child==0 and .metric=="acc") | .elapsed] | . == sort' rows.json)" true
expect "the last row of child 0's acc is the finish's" \
	"$(jq -c '[.rows[] | select(.child==0 and .metric=="acc")] | last | [.value, .final]' rows.json)" '[0.4,true]'
expect "an int stays an int" "$(jq -c '[.rows[] | select(.child==0 and .metric=="step") | .value] | last' rows.json)" 4
expect "no warning" "$(jq -c .warnings rows.json)" "[]"
py curves.py "$d" '{"child": 1, "metrics": ["acc"]}' > rows1.json
expect "child= and metrics= select" "$(jq -c '[.rows[] | [.child, .metric]] | unique' rows1.json)" '[[1,"acc"]]'

# --- a file caught half written: no metrics that time, the next one has them
"$SBCTL" log "$td" --json > torn.json
seen=$(jq -r 'select(.type=="heartbeat") | has("metrics")' torn.json | uniq | tr '\n' ' ')
expect_match "half written: heartbeats without metrics, then one with ($seen)" "$seen" '^false true (false )?$'
expect "the heartbeat after it carries the whole file" \
	"$(jq -c 'select(.type=="heartbeat" and .metrics) | .metrics' torn.json)" '{"acc":0.5,"step":1}'
py curves.py "$td" '{}' > trows.json
expect "curves: one heartbeat point and the finish for each metric" \
	"$(jq -c '[.rows[] | [.metric, .value, .final]]' trows.json)" \
	'[["acc",0.5,false],["step",1,false],["acc",0.5,true],["step",1,true]]'

# --- the bound: at most 256 metrics a heartbeat, the others counted
"$SBCTL" keygen key > /dev/null
cat > many.sh <<'SH'
{ printf '{'; for i in $(seq 1 300); do printf '"m%03d": %d, ' $i $i; done; printf '"z": 0}'; } > m.json
sleep 1.5
SH
"$SB_BIN/sbagent" --key key --log many.log --heartbeat 0.5 --metrics m.json -- sh many.sh
expect "sbagent with 301 metrics exits 0" "$?" 0
"$SBCTL" log many.log --key key --json > many.json
expect "the first heartbeat: 256 metrics, 45 left off" \
	"$(jq -c 'select(.type=="heartbeat" and .metrics) | [(.metrics | length), .metrics_left_off, (.metrics | keys | first), (.metrics | keys | last)]' many.json | head -n 1)" \
	'[256,45,"m001","m256"]'
expect "the finish has all 301" "$(jq -c 'select(.type=="finish") | .metrics | length' many.json)" 301
expect_match "sbctl log's text says how many were left off" \
	"$("$SBCTL" log many.log --key key | grep -m 1 ' heartbeat .*metrics{')" ' \.\.\.} metrics_left_off=45 '
expect "sbctl log --json keeps the metrics of the heartbeat" \
	"$(jq -c 'select(.type=="heartbeat" and .metrics) | .metrics.m256' many.json | head -n 1)" 256

# --- a tampered log: the points before it, and a warning naming it
f=$(log_of "$d" 1)
size=$(stat -c %s "$f")
printf 'X' | dd of="$f" bs=1 seek=$((size - 60)) conv=notrunc 2>/dev/null
py curves.py "$d" '{"child": 1}' > bad.json
expect "tampered: sbench.curves still answers" "$?" 0
expect "tampered: no final row of child 1 (its finish does not verify)" \
	"$(jq -c '[.rows[] | select(.final)] | length' bad.json)" 0
expect_match "tampered: heartbeat rows before it" "$(jq -c '[.rows[] | select(.metric=="acc")] | length' bad.json)" '^[1-9]'
expect_match "tampered: a warning names the log and what was left out" "$(jq -r '.warnings[0]' bad.json)" \
	'^events/.*1\.a0\..*\.log: .*(corrupt|bad_mac).*not in the curves$'
t_done
