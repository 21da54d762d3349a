#!/bin/bash
# sbctl submit --check counts `partial` as unhealthy (docs/lane.md): a run
# that exits 0 without its declared metrics file, and one without a
# declared result, are early failures (exit 3), each with the reason that
# names the missing file and its stderr tail; the same spec writing both
# is healthy (exit 0).
. "$(dirname "$0")/lib.sh"

write_spec nometrics.yaml "name: nometrics
command: [sh, -c, 'echo training >&2; echo 1 > model.pt; if [ \$0 = good ]; then echo loss: 0.5 > metrics.json; fi', '{m}']
parameters: {m: [good, forgot]}
results: [model.pt]
metrics: metrics.json"
"$SBCTL" submit nometrics.yaml --check=60 --json > nm.json
expect "a run that wrote no declared metrics: unhealthy, exit 3" "$?" 3
expect "healthy false" "$(jqf nm.json .check.healthy)" false
expect "counts: one succeeded, one partial" "$(jq -c '[.check.counts.succeeded, .check.counts.partial]' nm.json)" "[1,1]"
expect "the failure is child 1, partial" "$(jq -c '[.check.failures[] | [.index, .class]]' nm.json)" '[[1,"partial"]]'
expect_match "its reason names the metrics file" "$(jq -r '.check.failures[0].reason' nm.json)" \
	"^exit 0, but the metrics file could not be read: .*metrics.json"
expect "its stderr tail" "$(jq -r '.check.failures[0].stderr_tail' nm.json)" "training"

write_spec noresult.yaml "name: noresult
command: [sh, -c, 'echo loss: 1 > metrics.json']
results: [model.pt]
metrics: metrics.json"
"$SBCTL" submit noresult.yaml --check=60 > nr.txt
expect "a run without a declared result: exit 3 too" "$?" 3
expect_match "the text says unhealthy" "$(cat nr.txt)" "UNHEALTHY"
expect_match "and names the missing result" "$(cat nr.txt)" "partial: child 0: exit 0, but result 'model.pt' was missing at finish"

write_spec whole.yaml "name: whole
command: [sh, -c, 'echo 1 > model.pt; echo loss: 1 > metrics.json']
results: [model.pt]
metrics: metrics.json"
"$SBCTL" submit whole.yaml --check=60 --json > wh.json
expect "results and metrics written: healthy, exit 0" "$?:$(jqf wh.json .check.healthy)" "0:true"
t_done
