#!/bin/bash
# sbctl submit under faults, against the fake Slurm: interrupted (SIGINT to
# its process group as Ctrl-C sends it, SIGINT/SIGTERM/SIGKILL to sbctl
# alone) while a slow sbatch runs, then run again: every chunk is one job
# array, every child submitted exactly once.  A resume finds a job that
# only a lagging sacct knows; a scheduler that does not answer submits
# nothing.
. "$(dirname "$0")/lib.sh"

export SB_FAKE_MAX_ARRAY_SIZE=4
spec_for() { # NAME -> a spec file with 10 children (3 chunks) that do nothing much
	write_spec "$T_ROOT/work/$1.yaml" "name: $1
command: [sh, -c, 'exit 0']
parameters:
  x: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
	echo "$T_ROOT/work/$1.yaml"
}
# arrays_of DIGEST CHUNK: how many job arrays the scheduler has for the chunk
arrays_of() {
	sacct -n -X -P --name="sb-${1:0:12}-a0-c$2" -S 2020-01-01 --format=JobID | sed 's/_.*//' | sort -u | wc -l
}
# once DESC DIGEST: every chunk of the benchmark is exactly one job array
once() {
	local c
	for c in 0 1 2; do expect "$1: chunk $c is one job array" "$(arrays_of "$2" $c)" 1; done
}
# slow_sbatch N SECONDS: the Nth sbatch call sleeps SECONDS first, then runs
# the fake's sbatch (its stderr to a file: like a real sbatch, it does not
# die of a broken stderr before it submits); every call leaves its pid in
# $T_ROOT/sbatch.N.pid
slow_sbatch() {
	rm -f "$T_ROOT/calls.sbatch" "$T_ROOT"/sbatch.*.pid "$T_ROOT"/woke.*
	shim sbatch "echo \$\$ > \"$T_ROOT/sbatch.\$n.pid\"
if [ \"\$n\" = $1 ]; then sleep $2; touch \"$T_ROOT/woke.\$n\"; \"\$SB_FAKE_BIN/sbatch\" \"\$@\" 2>> \"$T_ROOT/sbatch.log\"; exit; fi"
}
gone() { ! kill -0 "$1" 2> /dev/null; }
running() { [ -s "$T_ROOT/sbatch.$1.pid" ]; }

# -- interrupted while the second sbatch runs ------------------------------
# mode: INT-group (Ctrl-C), INT, TERM, KILL (to sbctl alone)
export SB_LOOKUP_WINDOW=2
for mode in INT-group INT TERM KILL; do
	slow_sbatch 2 1
	spec=$(spec_for "intr-${mode,,}")
	# its own process group, as a shell with job control starts it; SIGINT
	# not ignored (a background job of a script would ignore it)
	setsid env --default-signal=INT "$SBCTL" submit "$spec" > i.out 2> i.err &
	pid=$!
	wait_for 20 running 2
	case $mode in
	INT-group) kill -INT -- -"$pid" ;;
	*) kill -"$mode" "$pid" ;;
	esac
	wait "$pid"
	rc=$?
	sbatch_pid=$(cat "$T_ROOT/sbatch.2.pid")
	if [ "$mode" = KILL ]; then
		expect "$mode: sbctl dies by SIGKILL" "$rc" 137
	else
		expect "$mode: interrupted submit exits 1" "$rc" 1
		expect_match "$mode: says it was interrupted and how to go on" "$(cat i.err)" \
			"interrupted: 2 of 3 job arrays are submitted; run 'sbctl submit .*' again to continue"
		expect "$mode: sbatch was waited for, not left behind" "$(gone "$sbatch_pid" && echo yes)" yes
	fi
	# at once, as a user would: an sbatch that outlived sbctl is still asleep
	shim sbatch ''
	"$SBCTL" submit "$spec" --json > r.json 2> r.err
	expect "$mode: the resumed submit exits 0" "$?" 0
	# such an sbatch would submit now: let it, then count
	wait_for 5 gone "$sbatch_pid"
	if [ "$mode" = KILL ]; then
		expect "$mode: the slow sbatch died with sbctl" "$([ -e "$T_ROOT/woke.2" ] || echo yes)" yes
	fi
	d=$(jqf r.json .benchmark.digest)
	once "$mode" "$d"
	expect "$mode: the resume lists every child once" \
		"$(jqf r.json '[.jobs[].children[]]|map(tostring)|join(",")')" "0,1,2,3,4,5,6,7,8,9"
	if [ "$mode" = KILL ]; then
		expect "$mode: chunks 1 and 2 submitted by the resume" \
			"$(jqf r.json '[.jobs[].submitted_now]|map(tostring)|join(" ")')" "false true true"
	else
		expect "$mode: only chunk 2 left for the resume" \
			"$(jqf r.json '[.jobs[].submitted_now]|map(tostring)|join(" ")')" "false false true"
	fi
done

# -- the resume waits for a lagging sacct ----------------------------------
# sbctl dies right after sbatch submitted chunk 1; the job is soon over and
# gone from squeue (MinJobAge 0), and sacct shows it only 6 s later
export SB_FAKE_MIN_JOB_AGE=0 SB_LOOKUP_WINDOW=20
sbfake lag 6 > /dev/null
rm -f "$T_ROOT/calls.sbatch"
shim sbatch 'if [ "$n" = 2 ]; then "$SB_FAKE_BIN/sbatch" "$@" > /dev/null; kill -9 $PPID; exit 0; fi'
spec=$(spec_for lagging)
"$SBCTL" submit "$spec" > /dev/null 2>&1
expect "lag: killed submit dies by SIGKILL" "$?" 137
d=$("$SBCTL" plan "$spec" --json | jq -r .benchmark.digest)
wait_for 20 squeue_is "" -h -t all --name="sb-${d:0:12}-a0-c1"
expect "lag: sacct does not know chunk 1 yet" "$(arrays_of "$d" 1)" 0
shim sbatch ''
"$SBCTL" submit "$spec" --json > r.json 2> r.err
expect "lag: the resumed submit exits 0" "$?" 0
expect "lag: chunk 1 was found by name" "$(jqf r.json '[.jobs[].recovered]|map(tostring)|join(" ")')" \
	"false true false"
sbfake lag 0 > /dev/null
# every record delayed so far has arrived once chunk 0's and chunk 2's have
wait_for 20 eval '[ "$(arrays_of "$d" 0)" -ge 1 ] && [ "$(arrays_of "$d" 2)" -ge 1 ]'
once lag "$d"
unset SB_FAKE_MIN_JOB_AGE

# -- neither squeue nor sacct answers: nothing is submitted ----------------
export SB_LOOKUP_WINDOW=1
rm -f "$T_ROOT/calls.sbatch"
shim sbatch 'if [ "$n" = 2 ]; then kill -9 $PPID; exit 1; fi'
spec=$(spec_for blind)
"$SBCTL" submit "$spec" > /dev/null 2>&1
expect "blind: killed submit dies by SIGKILL" "$?" 137
sbfake down > /dev/null
sbfake dbdown > /dev/null
calls=$(count_calls sbatch)
"$SBCTL" submit "$spec" > b.out 2> b.err
expect "blind: a resume that cannot look exits 1" "$?" 1
expect_match "blind: says why" "$(cat b.err)" "neither squeue nor sacct answered.*nothing was submitted"
expect "blind: no sbatch was run" "$(count_calls sbatch)" "$calls"
sbfake up > /dev/null
sbfake dbup > /dev/null
shim sbatch ''
"$SBCTL" submit "$spec" --json > r.json 2> r.err
expect "blind: the resume exits 0 once the scheduler answers" "$?" 0
once blind "$(jqf r.json .benchmark.digest)"
SB_LOOKUP_WINDOW=soon "$SBCTL" submit "$spec" > /dev/null 2> b.err
expect "a bad SB_LOOKUP_WINDOW is refused (an input error)" "$?" 2
expect_match "a bad SB_LOOKUP_WINDOW is named" "$(cat b.err)" "SB_LOOKUP_WINDOW 'soon' is not a number"
unset SB_LOOKUP_WINDOW

# -- a refused sbatch never adopts a job of the same name that is not its own --
# (issue 25 c) A job named like the chunk, submitted by hand (another
# directory's benchmark, or another user's, would look the same: no
# identity of this benchmark in its --comment), is in the queue when the
# chunk's sbatch is refused: the submit stops with Slurm's message, exit
# 1, and records no job for the chunk; once sbatch accepts, the chunk is a
# job array of its own.
spec=$(spec_for foreign)
fd=$("$SBCTL" plan "$spec" --json | jq -r .benchmark.digest)
foreign=$(sbatch --parsable --job-name="sb-${fd:0:12}-a0-c0" --wrap 'sleep 30')
sbfake limit 1 > /dev/null   # the foreign job's task is the one allowed: sbatch refuses the chunk
"$SBCTL" submit "$spec" --json > f.json 2> f.err
expect "foreign: the refused submit exits 1" "$?" 1
expect_match "foreign: with Slurm's message" "$(cat f.err)" \
	"sbatch failed for chunk 1 of 3 \('sb-${fd:0:12}-a0-c0'\): sbatch: error: Batch job submission failed: Job violates accounting/QOS policy"
st fs.json "$(jqf f.json .benchmark.dir)" --settle 0
expect "foreign: no child took the foreign job" "$(jq -r '[.children[].job_id] | unique | map(tostring) | join(" ")' fs.json)" null
sbfake limit off > /dev/null
"$SBCTL" submit "$spec" --json > f2.json 2> /dev/null
expect "foreign: the submit once sbatch accepts: exit 0" "$?" 0
expect "foreign: chunk 0 is a job array of its own, not the foreign job" \
	"$(jq -r --arg f "$foreign" '[.jobs[].job_id | select(. == $f)] | length' f2.json) $(jqf f2.json '.jobs[0].recovered')" "0 false"
scancel "$foreign"

t_done
