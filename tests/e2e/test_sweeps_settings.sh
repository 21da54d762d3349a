#!/bin/bash
# Sweeps that change, the settings outside the identity (docs/sbctl-submit.md
# "Submitting an edited spec", docs/sbctl-rerun.md, docs/benchmark-dir.md
# "Attempt settings"), against the fake Slurm:
# - an edited time limit, heartbeat and analysis show as differences on a
#   resubmit (stderr and JSON), nothing submitted;
# - rerun --only killed --time reruns a child the time limit killed with
#   the new limit, which the fake's accounting shows; the next rerun goes
#   back to the benchmark's;
# - a submit that sbatch refused (time: "abc") is fixed by the corrected
#   spec; a rerun refused for its --time is fixed by another --time;
#   benchmark.msgpack is never rewritten.
. "$(dirname "$0")/lib.sh"

export SB_LOOKUP_WINDOW=0.5

# ---- differences on a resubmit ----------------------------------------------
write_spec tl.yaml "name: tl
command: [sh, -c, 'exit 0']
parameters:
  x: [0, 1]
slurm:
  time: 30
analysis:
  group_by: [x]"
"$SBCTL" submit tl.yaml --json > tl1.json
expect "first submit exits 0" "$?" 0
expect "a new benchmark has no differences" "$(jqf tl1.json '.differences|length')" 0
"$SBCTL" submit tl.yaml --json > same.json 2> same.err
expect "the same spec again: no difference, no warning" \
	"$(jqf same.json '[.already_submitted, (.differences|length)]|join(",")') $(wc -c < same.err)" "true,0 0"
write_spec tl.yaml "name: tl
command: [sh, -c, 'exit 0']
parameters:
  x: [0, 1]
heartbeat: 30
slurm:
  time: \"1:00:00\"
  array_throttle: 1
analysis:
  group_by: []
  metrics: [loss]"
"$SBCTL" submit tl.yaml --json > tl2.json 2> tl2.err
expect "an edited spec again exits 0" "$?" 0
expect "an edited spec: already submitted, nothing submitted" \
	"$(jqf tl2.json '[.already_submitted, ([.jobs[].submitted_now]|any)]|join(",")')" "true,false"
expect "every changed setting outside the identity is a difference, in order" \
	"$(jq -c '[.differences[]|[.key,.stored,.spec]]' tl2.json)" \
	'[["slurm.time","30","1:00:00"],["slurm.array_throttle",null,1],["heartbeat",60,30],["analysis.group_by",["x"],[]],["analysis.metrics",null,["loss"]]]'
expect "the time limit's advice is the rerun that uses it" "$(jqf tl2.json '.differences[0].advice')" \
	"'sbctl rerun tl --only killed --time 1:00:00' reruns the children the time limit killed with it (any class: --only CLASS[,CLASS...])"
expect "each difference is a warning on stderr" "$(grep -c '^sbctl: warning: the spec changes ' tl2.err)" 5
expect_match "the warning names the setting, both values and what to do" "$(head -n 1 tl2.err)" \
	"^sbctl: warning: the spec changes slurm.time from \"30\" to \"1:00:00\", which benchmark tl \\([0-9a-f]{12}\\) does not take: 'sbctl rerun tl --only killed --time 1:00:00'"
"$SBCTL" submit tl.yaml > tl3.out 2> /dev/null
expect_match "the text output still says already submitted" "$(head -n 1 tl3.out)" "was already submitted: nothing submitted$"

# ---- rerun --time -------------------------------------------------------------
write_spec kl.yaml "name: kl
command: [sh, -c, 'sleep {x}']
parameters:
  x: [0, 4]
slurm:
  time: 1"
"$SBCTL" submit kl.yaml --json > kl.json
dir=$(jqf kl.json .benchmark.dir)
rec=$(sha256sum "$dir/benchmark.msgpack")
"$SBCTL" wait kl --interval 0.2 --timeout 60 > /dev/null
"$SBCTL" status kl --json > kl.st
expect "the slow child is killed by its time limit" "$(classes kl.st)" "0:succeeded 1:killed"
"$SBCTL" rerun kl --only killed --time abc,def --json > bad.json 2> bad.err
expect "rerun --time with a control-free but refused limit: sbatch says no (exit 1)" "$?" 1
expect_match "the refusal says how to go on" "$(head -n 1 bad.err)" \
	"Invalid time limit specification \\(a rerun with another --time replaces the refused one\\)$"
"$SBCTL" rerun kl --only killed --time 10 --json > kr.json 2> kr.err
expect "a refused rerun is fixed by another --time (exit 0)" "$?" 0
expect "the rerun is attempt 1 with the killed child" \
	"$(jqf kr.json '[.jobs[0].submitted_now, (.jobs[0].children|map(tostring)|join(","))]|join(" ")')" "true 1"
expect "the fake's accounting: the first array had 1, the rerun has 10" \
	"$(sacct -n -X -P -j "$(jqf kl.json '.jobs[0].job_id')","$(jqf kr.json '.jobs[0].job_id')" --format=JobID,Timelimit | sort -u | tr '\n' ' ')" \
	"$(jqf kl.json '.jobs[0].job_id')_0|00:00:01 $(jqf kl.json '.jobs[0].job_id')_1|00:00:01 $(jqf kr.json '.jobs[0].job_id')_0|00:00:10 "
"$SBCTL" wait kl --interval 0.2 --timeout 60 > /dev/null
expect "with the new limit the child succeeds (wait exits 0)" "$?" 0
"$SBCTL" status kl --json > kl2.st
expect "the child's latest attempt is the rerun" "$(jqf kl2.st '.children[1]|"\(.class) \(.attempt)"')" "succeeded 1"
expect "benchmark.msgpack is written once" "$(sha256sum "$dir/benchmark.msgpack")" "$rec"
"$SBCTL" log "$dir/submissions" --json 2>/dev/null | jq -c 'select(.type=="settings")' > settings.jl
expect "the rerun's time limit is in its attempt's signed settings record" \
	"$(jq -c 'select(.time_limit=="10") | [.verified, .attempt_index, .time_limit]' settings.jl)" '[true,1,"10"]'
"$SBCTL" rerun kl --only succeeded > /dev/null 2>&1
expect "succeeded children cannot be rerun (exit 2)" "$?" 2
"$SBCTL" rerun kl --only killed --time "$(printf 'a\tb')" > /dev/null 2> ctl.err
expect "a time limit with a control character is a usage error" "$?" 2

# ---- a refused submit, fixed by the corrected spec -------------------------------
write_spec bad.yaml "name: refused
command: [sh, -c, 'exit 0']
parameters:
  x: [0, 1]
slurm:
  time: abc"
"$SBCTL" submit bad.yaml --json > r1.json 2> r1.err
expect "sbatch refuses time: abc (exit 1)" "$?" 1
expect_match "the refusal says that a corrected spec fixes it" "$(head -n 1 r1.err)" \
	"Invalid time limit specification \\(nothing of the benchmark was accepted: a corrected spec submitted again is submitted with its settings\\)$"
rdir=$(jqf r1.json .benchmark.dir)
rrec=$(sha256sum "$rdir/benchmark.msgpack")
"$SBCTL" submit bad.yaml > /dev/null 2>&1
expect "the same refused spec again is refused again (exit 1)" "$?" 1
sed -i 's/time: abc/time: 5/' bad.yaml
"$SBCTL" submit bad.yaml --json > r2.json 2> r2.err
expect "the corrected spec submits (exit 0)" "$?" 0
expect "it is the same benchmark, submitted now, with no difference left" \
	"$(jqf r2.json '[.benchmark.dir, .already_submitted, .jobs[0].submitted_now, (.differences|length)]|join(" ")')" \
	"$rdir false true 0"
expect_match "it says the spec's settings were taken" "$(cat r2.err)" "was accepted before: it is submitted with the spec's sbatch settings now"
expect "the accepted array has the corrected limit" \
	"$(sacct -n -X -P -j "$(jqf r2.json '.jobs[0].job_id')" --format=Timelimit | sort -u)" "00:00:05"
"$SBCTL" wait refused --interval 0.2 --timeout 60 > /dev/null
expect "the corrected benchmark succeeds" "$?" 0
expect "benchmark.msgpack of the refused benchmark is written once" "$(sha256sum "$rdir/benchmark.msgpack")" "$rrec"
sed -i 's/time: 5/time: 7/' bad.yaml
"$SBCTL" submit bad.yaml --json > r3.json 2> /dev/null
expect "once accepted, an edited limit is a difference from the taken one" \
	"$(jq -c '[.already_submitted, .differences[0].key, .differences[0].stored, .differences[0].spec]' r3.json)" \
	'[true,"slurm.time","5","7"]'

t_done
