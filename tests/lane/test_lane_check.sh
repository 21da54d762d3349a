#!/bin/bash
# sbctl submit --check: watches the new benchmark, returns as soon as its
# first array has ended (long before SECONDS), and reports: a healthy
# benchmark exits 0; one whose child exits 1 after a second exits 3 and
# shows that child with the tail of its Slurm stderr; a benchmark still
# pending at the end of the check shows why it waits.
. "$(dirname "$0")/../e2e/lib.sh"

write_spec ok.yaml "name: ok
command: [sh, -c, 'sleep 1']
parameters: {x: [1, 2]}"
write_spec bad.yaml "name: bad
command: [sh, -c, 'echo loading data >&2; sleep 1; if [ \$0 = 2 ]; then echo \"error: no such dataset\" >&2; exit 1; fi', '{x}']
parameters: {x: [1, 2]}"

start=$(date +%s)
"$SBCTL" submit ok.yaml --check=60 --json > ok.json
expect "a healthy check exits 0" "$?" 0
took=$(( $(date +%s) - start ))
expect_match "it returned once the first array ended, not after 60 s ($took s)" "$took" '^([0-9]|[1-3][0-9])$'
expect "ok: healthy" "$(jqf ok.json .check.healthy)" true
expect "ok: ended early" "$(jqf ok.json .check.ended_early)" true
expect "ok: seconds asked" "$(jqf ok.json .check.seconds)" 60
expect "ok: counts" "$(jqf ok.json .check.counts.succeeded)" 2
expect "ok: no failures" "$(jq '.check.failures | length' ok.json)" 0
expect "ok: the submit's own keys are there" "$(jq -r '[.format, .benchmark.name, (.jobs | length)] | @tsv' ok.json)" \
	"$(printf '1\tok\t1')"

"$SBCTL" submit bad.yaml --check=60 --json > bad.json
expect "an unhealthy check exits 3" "$?" 3
expect "bad: not healthy" "$(jqf bad.json .check.healthy)" false
expect "bad: one failure, child 1, failed" "$(jq -c '[.check.failures[] | [.index, .class, .reason]]' bad.json)" \
	'[[1,"failed","exit 1"]]'
expect "bad: its stderr tail" "$(jq -r '.check.failures[0].stderr_tail' bad.json)" \
	"$(printf 'loading data\nerror: no such dataset')"
expect "bad: the other child succeeded" "$(jqf bad.json .check.counts.succeeded)" 1

"$SBCTL" submit bad.yaml --check=5 > bad.txt
expect "text: exits 3 too" "$?" 3
expect_match "text: says unhealthy" "$(cat bad.txt)" 'UNHEALTHY'
expect_match "text: names the failed child" "$(cat bad.txt)" 'failed: child 1: exit 1'
expect_match "text: shows its stderr" "$(cat bad.txt)" '\| error: no such dataset'

# a job that stays pending: the check ends at its SECONDS, with the reason
write_spec held.yaml "name: held
command: [sh, -c, 'true']
slurm: {extra: ['--begin=now+3600']}"
"$SBCTL" submit held.yaml --check=2 --json > held.json
rc=$?
expect "held: a pending benchmark is healthy (nothing failed yet)" "$rc $(jqf held.json .check.healthy)" "0 true"
expect "held: not ended early" "$(jqf held.json .check.ended_early)" false
expect "held: counts one pending" "$(jqf held.json .check.counts.pending)" 1
expect "held: the pending reason" "$(jq -c '.check.pending' held.json)" '[{"reason":"BeginTime","children":1}]'

"$SBCTL" submit ok.yaml --check=1 --dry-run > /dev/null 2> dry.err
expect "--check with --dry-run is a usage error" "$?" 2
"$SBCTL" submit ok.yaml --check=abc > /dev/null 2> abc.err
expect "--check=abc is a usage error" "$?" 2

# the scheduler's accounting down for the whole check: exit 1, and it says
# that the benchmark was submitted all the same
write_spec down.yaml "name: down
command: [sh, -c, 'sleep 1']"
shim sacct 'echo "sacct: error: slurmdbd is down" >&2; exit 1'
"$SBCTL" submit down.yaml --check=2 > down.out 2> down.err
expect "a check that never reaches the scheduler exits 1" "$?" 1
expect_match "and says the benchmark was submitted" "$(cat down.err)" \
	'submitted /.*/down-[0-9a-f]{12}, but the check could not run: .*slurmdbd is down'
rm -f "$SHIM/sacct"
t_done
