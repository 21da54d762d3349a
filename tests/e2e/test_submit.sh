#!/bin/bash
# sbctl submit against the fake Slurm: the benchmark directory, chunking by
# MaxArraySize, idempotent resubmission, exactly-once resume after a submit
# killed around an sbatch call, scheduler limits, ownership.
. "$(dirname "$0")/lib.sh"

export SB_FAKE_MAX_ARRAY_SIZE=4 SB_LOOKUP_WINDOW=1
spec_for() { # NAME -> a spec file with 10 children that do nothing much
	write_spec "$T_ROOT/work/$1.yaml" "name: $1
command: [sh, -c, 'exit 0']
parameters:
  x: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
	echo "$T_ROOT/work/$1.yaml"
}
# jobs_named NAME: how many jobs the scheduler has by that name
jobs_named() { sacct -n -X -P --name="$1" -S 2020-01-01 --format=JobID | sed 's/_.*//' | sort -u | wc -l; }

# -- chunking and the directory ----------------------------------------
shim sbatch ''
spec=$(spec_for sweep)
"$SBCTL" submit "$spec" --json > s1.json 2> s1.err
expect "submit exits 0" "$?" 0
expect "ceil(10/4) sbatch calls" "$(count_calls sbatch)" 3
expect "array ranges" "$(jqf s1.json '[.jobs[].array]|join(" ")')" "0-3 0-3 0-1"
expect "children per array" "$(jqf s1.json '[.jobs[].children|map(tostring)|join(",")]|join(" ")')" \
	"0,1,2,3 4,5,6,7 8,9"
expect "first submit is not already_submitted" "$(jqf s1.json .already_submitted)" false
expect "format" "$(jqf s1.json .format)" 1
dir=$(jqf s1.json .benchmark.dir)
digest=$(jqf s1.json .benchmark.digest)
expect "directory name" "$(basename "$dir")" "sweep-${digest:0:12}"
expect "digest is plan's" "$digest" "$("$SBCTL" plan "$spec" --json | jq -r .benchmark.digest)"
for f in benchmark.msgpack benchmark.json keys/hmac.key submissions events runs jobs \
	jobs/a0/chunk-0.sh jobs/a0/chunk-0.map jobs/a0/chunk-2.sh jobs/a0/chunk-2.map; do
	expect "$f exists" "$([ -e "$dir/$f" ] && echo yes)" yes
done
expect "directory mode" "$(stat -c %a "$dir")" 755
expect "keys mode" "$(stat -c %a "$dir/keys")" 700
expect "key mode" "$(stat -c %a "$dir/keys/hmac.key")" 600
expect "key size" "$(stat -c %s "$dir/keys/hmac.key")" 32
expect "record is read-only" "$(stat -c %a "$dir/benchmark.msgpack")" 444
for c in 0 1 2; do expect "chunk $c has its output directory" "$([ -d "$dir/jobs/a0/c$c" ] && echo yes)" yes; done
expect "no per-child symlink in jobs/" "$(find "$dir/jobs" -type l | wc -l)" 0
expect "record twin names the benchmark" "$(jq -r '.name + " " + (.children|tostring)' "$dir/benchmark.json")" "sweep 10"
expect "record twin keeps the spec source" "$(jq -r .spec.source "$dir/benchmark.json")" "$(cat "$spec")"
expect "provenance user" "$(jq -r .provenance.user "$dir/benchmark.json")" "$(id -un)"
expect "provenance cluster" "$(jq -r .provenance.cluster "$dir/benchmark.json")" lab
expect "scripts exec the agent" "$(tail -n 1 "$dir/jobs/a0/chunk-1.sh")" "exec '$SB_BIN/sbagent' --"
sublog=$(ls "$dir"/submissions/*.log)
expect "one submission log" "$(echo "$sublog" | wc -l)" 1
expect "submission records verify" "$("$SBCTL" log "$sublog" --key "$dir/keys/hmac.key" --json | tail -n 1 | jq -r .summary.tail)" ok
expect "intent and submitted per chunk" \
	"$("$SBCTL" log "$sublog" --json | jq -r 'select(.type) | .type + "/" + (.chunk|tostring) + "/" + (.job // "-")' | tr '\n' ' ')" \
	"intent/0/- submitted/0/$(jqf s1.json '.jobs[0].job_id') intent/1/- submitted/1/$(jqf s1.json '.jobs[1].job_id') intent/2/- submitted/2/$(jqf s1.json '.jobs[2].job_id') "
expect "each chunk's job name carries the digest" "$(jobs_named "sb-${digest:0:12}-a0-c1")" 1

# -- the same spec again: nothing submitted ------------------------------
"$SBCTL" submit "$spec" --json > s2.json
expect "resubmit exits 0" "$?" 0
expect "resubmit is already_submitted" "$(jqf s2.json .already_submitted)" true
expect "resubmit calls no sbatch" "$(count_calls sbatch)" 3
expect "resubmit writes no submission record" "$(ls "$dir"/submissions | wc -l)" 1
expect "resubmit reports the same jobs" "$(jqf s2.json '[.jobs[].job_id]|join(" ")')" \
	"$(jqf s1.json '[.jobs[].job_id]|join(" ")')"
out=$("$SBCTL" submit "$spec")
expect_match "resubmit says so" "$out" "was already submitted: nothing submitted"

# -- killed right after its second sbatch succeeded ----------------------
rm -f "$T_ROOT/calls.sbatch"
shim sbatch 'if [ "$n" = 2 ]; then "$SB_FAKE_BIN/sbatch" "$@" > /dev/null; kill -9 $PPID; exit 0; fi'
spec=$(spec_for after)
"$SBCTL" submit "$spec" --json > /dev/null 2>&1
expect "killed submit dies by SIGKILL" "$?" 137
shim sbatch ''
"$SBCTL" submit "$spec" --json > r.json 2> r.err
expect "resumed submit exits 0" "$?" 0
expect "resumed submit is not already_submitted" "$(jqf r.json .already_submitted)" false
expect "chunk 1 was found by name" "$(jqf r.json '[.jobs[].recovered]|map(tostring)|join(" ")')" "false true false"
d=$(jqf r.json .benchmark.digest)
for c in 0 1 2; do expect "after: chunk $c submitted exactly once" "$(jobs_named "sb-${d:0:12}-a0-c$c")" 1; done
expect "after: three arrays in all" "$(jqf r.json '.jobs|length')" 3

# -- killed right before its second sbatch ran ---------------------------
rm -f "$T_ROOT/calls.sbatch"
shim sbatch 'if [ "$n" = 2 ]; then kill -9 $PPID; exit 1; fi'
spec=$(spec_for before)
"$SBCTL" submit "$spec" > /dev/null 2>&1
expect "killed submit dies by SIGKILL" "$?" 137
shim sbatch ''
"$SBCTL" submit "$spec" --json > r.json 2> r.err
expect "resumed submit exits 0" "$?" 0
d=$(jqf r.json .benchmark.digest)
for c in 0 1 2; do expect "before: chunk $c submitted exactly once" "$(jobs_named "sb-${d:0:12}-a0-c$c")" 1; done
expect "before: nothing was recovered" "$(jqf r.json '[.jobs[].recovered]|map(tostring)|join(" ")')" "false false false"

# -- a scheduler limit stops the submit; running it again continues ------
rm -f "$T_ROOT/calls.sbatch"
shim sbatch 'if [ "$n" = 2 ]; then echo "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user'"'"'s size and/or time limits)" >&2; exit 1; fi'
spec=$(spec_for limited)
"$SBCTL" submit "$spec" > l.out 2> l.err
expect "limited submit exits 1" "$?" 1
expect_match "limit message is Slurm's" "$(cat l.err)" "job submit limit"
expect_match "says how to continue" "$(cat l.err)" "1 of 3 job arrays are submitted; run 'sbctl submit .*limited.yaml' again"
shim sbatch ''
"$SBCTL" submit "$spec" --json > l.json 2> l.err
expect "continued submit exits 0" "$?" 0
d=$(jqf l.json .benchmark.digest)
for c in 0 1 2; do expect "limited: chunk $c submitted exactly once" "$(jobs_named "sb-${d:0:12}-a0-c$c")" 1; done

# -- the local index ---------------------------------------------------------
names() { "$SBCTL" list --json | jq -r '[.benchmarks[].name]|sort|join(" ")'; }
expect "list knows every submitted benchmark" "$(names)" "after before limited sweep"
expect_match "list table" "$("$SBCTL" list)" "sweep +- +${digest:0:12} +10 "
rm -f "$SB_INDEX"
expect "a lost index knows nothing" "$(names)" ""
"$SBCTL" index --rebuild "$SB_ROOT" > /dev/null 2> i.err
expect "index --rebuild exits 0" "$?" 0
expect_match "index --rebuild counts" "$(cat i.err)" "4 benchmarks indexed"
expect "the rebuilt index knows them again" "$(names)" "after before limited sweep"
"$SBCTL" index --rebuild "$T_ROOT/nowhere" 2> /dev/null
expect "index --rebuild of a missing directory exits 2" "$?" 2

# -- input errors ----------------------------------------------------------
"$SBCTL" submit "$T_ROOT/work/nope.yaml" 2> e.err
expect "missing spec exits 2" "$?" 2
expect_match "missing spec message" "$(cat e.err)" "nope.yaml.*No such file"
printf 'name: bad\ncommand: [true]\nparamters: {x: [1]}\n' > bad.yaml
"$SBCTL" submit bad.yaml 2> e.err
expect "bad spec exits 2" "$?" 2
expect_match "bad spec points at line and column" "$(cat e.err)" "bad.yaml:3:1: "
"$SBCTL" submit 2> /dev/null
expect "no spec is a usage error" "$?" 2

# -- a benchmark directory owned by someone else is refused ----------------
if [ "$(id -u)" = 0 ]; then
	chown 65534 "$dir"
	"$SBCTL" submit "$(spec_for sweep)" 2> o.err
	expect "foreign directory exits 2 (an input error, as in status)" "$?" 2
	expect_match "foreign directory message" "$(cat o.err)" "owned by uid 65534"
	chown 0 "$dir"
else
	echo "ok - foreign-owner check needs root (CI runs it as root)"
fi

t_done
