#!/bin/bash
# sbctl analyze cannot mislead: parameters named like statistics columns
# (`metric`, `n`) get their own CSV columns (param.NAME) so that Python's
# csv.DictReader loses nothing; a misspelt --metrics is an error with a
# did-you-mean; a metric of the spec's analysis.metrics that no succeeded
# child reported is a warning (stderr and JSON); --sort ranks the groups and
# the text names the best one.
. "$(dirname "$0")/../e2e/lib.sh"

dir=$(submit_spec views "name: views
command: [sh, -c, 'echo \"accuracy: 0.{n}{metric}\" > m.yaml; [ {n} != 3 ]']
metrics: m.yaml
parameters:
  metric: [1, 2]
  n: [1, 2, 3]
analysis:
  metrics: [accuracy, acuracy]")
settled() { "$SBCTL" status "$1" --json 2>/dev/null | jq -e '.counts.pending + .counts.running == 0' >/dev/null; }
wait_for 60 settled "$dir"

# -- CSV: no two columns of the same name ----------------------------------
"$SBCTL" analyze "$dir" --csv > a.csv 2> a.err
expect "csv: exit 3 (two children failed)" "$?" 3
expect "csv: header" "$(head -n 1 a.csv | tr -d '\r')" "param.metric,param.n,metric,n,mean,stddev,min,median,max"
python3 - a.csv > dict.out <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
hdr = next(csv.reader(open(sys.argv[1], newline="")))
assert len(hdr) == len(set(hdr)), hdr
for r in rows:
    if r["metric"] == "accuracy":
        print(r["param.metric"], r["param.n"], r["n"], r["mean"])
PY
expect "csv: DictReader keeps parameters and statistics apart" "$(cat dict.out)" "1 1 1 0.11
1 2 1 0.21
1 3 0 
2 1 1 0.12
2 2 1 0.22
2 3 0 "

# a parameter whose name is no statistic's keeps its own name
dir2=$(submit_spec plain "name: plain
command: [sh, -c, 'echo \"accuracy: 0.{lr}\" > m.yaml']
metrics: m.yaml
parameters:
  lr: [1, 2]")
wait_for 60 settled "$dir2"
"$SBCTL" analyze "$dir2" --csv > p.csv
expect "csv: a plain parameter's column is its name" "$(head -n 1 p.csv | tr -d '\r')" "lr,metric,n,mean,stddev,min,median,max"

# -- a metric of the spec that no succeeded child reported: a warning ------
expect_match "spec metric: warned on stderr" "$(cat a.err)" \
	"sbctl analyze: warning: metric of the spec's analysis.metrics 'acuracy' was reported by no succeeded child \(did you mean 'accuracy'\?\)"
"$SBCTL" analyze "$dir" --json > a.json 2> /dev/null
expect "spec metric: the warning in the JSON" "$(jq -r '.warnings | length' a.json)" 1
expect_match "spec metric: its text" "$(jq -r '.warnings[0]' a.json)" "'acuracy'.*did you mean 'accuracy'"
expect "json: no sort" "$(jq -c .sort a.json)" null
# no job ran twice: every group's restarts 0, and the text as it always was
expect "json: no restarts" "$(jq -c '[.groups[].restarts]' a.json)" "[0,0,0,0,0,0]"
"$SBCTL" analyze "$dir" > a.txt 2> /dev/null
expect "text: no restarts, none named" "$(grep -c restart a.txt)" 0
expect "text: a group's line" "$(grep -c '^metric=1 n=1: 1 of 1 succeeded$' a.txt)" 1

# -- a misspelt --metrics: an error, exit 2 --------------------------------
"$SBCTL" analyze "$dir" --metrics acurracy > m.out 2> m.err
expect "--metrics misspelt: exit 2" "$?" 2
expect "--metrics misspelt: nothing on stdout" "$(cat m.out)" ""
expect_match "--metrics misspelt: says why, with a did-you-mean" "$(cat m.err)" \
	"^sbctl analyze: metrics: no child reported a metric 'acurracy' and the spec's analysis.metrics does not list it \(did you mean 'accuracy'\?\)$"
"$SBCTL" analyze "$dir" --metrics zzz > /dev/null 2> m3.err
expect "--metrics with no near name: exit 2" "$?" 2
expect_match "... lists the metrics the children reported" "$(cat m3.err)" \
	"^sbctl analyze: metrics: no child reported a metric 'zzz' and the spec's analysis.metrics does not list it \(the children reported: [a-z_]+(, [a-z_]+)*\)$"
"$SBCTL" analyze "$dir" --metrics acuracy > /dev/null 2> m2.err
expect "--metrics listed in the spec but never reported: a warning, not an error" "$?" 3
expect_match "--metrics listed in the spec: warned" "$(cat m2.err)" "warning: .*'acuracy'"
"$SBCTL" analyze "$dir" --group-by nn > /dev/null 2> g.err
expect "--group-by misspelt: exit 2" "$?" 2
expect_match "--group-by misspelt: did you mean" "$(cat g.err)" "group_by: 'nn' is not a parameter of benchmark 'views' \(did you mean 'n'\?\)"

# -- --sort ranks the groups, the text names the best ----------------------
"$SBCTL" analyze "$dir" --metrics accuracy --sort -accuracy --json > s.json 2> /dev/null
expect "sort desc: order of the groups" \
	"$(jq -c '[.groups[] | [.params.metric, .params.n, (.metrics.accuracy.mean // null)]]' s.json)" \
	'[[2,2,0.22],[1,2,0.21],[2,1,0.12],[1,1,0.11],[1,3,null],[2,3,null]]'
expect "sort desc: said in the JSON" "$(jq -c .sort s.json)" '{"metric":"accuracy","descending":true}'
"$SBCTL" analyze "$dir" --metrics accuracy --sort accuracy --desc --json > s2.json 2> /dev/null
expect "--desc is --sort -METRIC" "$(cmp -s s.json s2.json && echo same)" same
"$SBCTL" analyze "$dir" --metrics accuracy --sort accuracy > s.txt 2> /dev/null
expect_match "sort asc: the text names the best group" "$(cat s.txt)" \
	$'groups ranked by the mean of accuracy, lowest first\nbest: metric=1 n=1 \(accuracy mean 0\.11, n=1\)'
"$SBCTL" analyze "$dir" --sort accuracyy > /dev/null 2> s.err
expect "sort by an unknown metric: exit 2" "$?" 2
expect_match "sort by an unknown metric: did you mean" "$(cat s.err)" "sort: 'accuracyy' is not one of the metrics analysed \(did you mean 'accuracy'\?\)"
"$SBCTL" analyze "$dir" --desc > /dev/null 2>&1
expect "--desc alone: usage error" "$?" 2
t_done
