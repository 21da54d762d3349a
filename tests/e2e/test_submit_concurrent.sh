#!/bin/bash
# Who submitted what: two sbctl submit of one spec at the same moment (one
# array per chunk; the one that waited says so and names the other's jobs);
# a resume says which arrays it submitted and which were there before; a
# chunk submitted twice is reported, and nothing depends on the order or
# the names of the files in submissions/.
. "$(dirname "$0")/lib.sh"

export SB_FAKE_MAX_ARRAY_SIZE=4 SB_LOOKUP_WINDOW=0.5
spec_for() { # NAME -> a spec file with 10 children (3 chunks)
	write_spec "$T_ROOT/work/$1.yaml" "name: $1
command: [sh, -c, 'exit 0']
parameters:
  x: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
	echo "$T_ROOT/work/$1.yaml"
}
arrays_of() { # DIGEST CHUNK: job arrays the scheduler has for the chunk
	sacct -n -X -P --name="sb-${1:0:12}-a0-c$2" -S 2020-01-01 --format=JobID | sed 's/_.*//' | sort -u | wc -l
}
once() { # DESC DIGEST
	local c
	for c in 0 1 2; do expect "$1: chunk $c is one job array" "$(arrays_of "$2" $c)" 1; done
}
ids() { jqf "$1" '[.jobs[].job_id]|join(" ")'; }
now() { jqf "$1" '[.jobs[].submitted_now]|map(tostring)|join(" ")'; }

# -- two submits at the same moment, sbatch slow ----------------------------
rm -f "$T_ROOT/calls.sbatch"
shim sbatch 'sleep 0.3'
spec=$(spec_for twin)
"$SBCTL" submit "$spec" --json > a.json 2> a.err &
pa=$!
"$SBCTL" submit "$spec" --json > b.json 2> b.err &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
expect "twin: both exit 0" "$ra $rb" "0 0"
expect "twin: three sbatch calls in all" "$(count_calls sbatch)" 3
once twin "$(jqf a.json .benchmark.digest)"
expect "twin: exactly one of them submitted" \
	"$(jqf a.json .already_submitted) $(jqf b.json .already_submitted)" \
	"$([ "$(jqf a.json .already_submitted)" = true ] && echo 'true false' || echo 'false true')"
expect "twin: both name the same job arrays" "$(ids a.json)" "$(ids b.json)"
if [ "$(jqf a.json .already_submitted)" = true ]; then sub=b.json other=a.json; else sub=a.json other=b.json; fi
expect "twin: the submitter submitted all three" "$(now $sub)" "true true true"
expect "twin: the other submitted none" "$(now $other)" "false false false"

# -- the second starts while the first holds the lock -----------------------
rm -f "$T_ROOT/calls.sbatch"
shim sbatch 'sleep 0.5'
spec=$(spec_for waiter)
"$SBCTL" submit "$spec" > a.out 2> a.err &
pa=$!
wait_for 20 test -s "$T_ROOT/calls.sbatch"
"$SBCTL" submit "$spec" > b.out 2> b.err
rb=$?
wait $pa; ra=$?
expect "waiter: both exit 0" "$ra $rb" "0 0"
expect_match "waiter: the first submitted" "$(head -n 1 a.out)" "^submitted waiter .*: 3 job arrays$"
expect_match "waiter: the second says whom it waited for" "$(cat b.err)" \
	"another sbctl \\(pid $pa\\) is submitting this benchmark; waiting for it to finish"
expect_match "waiter: the second submitted nothing" "$(head -n 1 b.out)" \
	"was already submitted \\(by the sbctl this one waited for\\): nothing submitted"
expect "waiter: the second lists the first's jobs" "$(sed -n 2,4p b.out)" "$(sed -n 2,4p a.out)"
expect "waiter: three sbatch calls in all" "$(count_calls sbatch)" 3

# -- a resume says what it submitted and what was there ---------------------
rm -f "$T_ROOT/calls.sbatch"
shim sbatch 'if [ "$n" = 2 ]; then kill -9 $PPID; exit 1; fi'
spec=$(spec_for half)
"$SBCTL" submit "$spec" > /dev/null 2>&1
expect "half: killed submit dies by SIGKILL" "$?" 137
shim sbatch ''
"$SBCTL" submit "$spec" > h.out 2> h.err
expect "half: resume exits 0" "$?" 0
expect_match "half: counts what it submitted" "$(head -n 1 h.out)" \
	"^submitted half .*: 2 job arrays now, 1 before$"
expect_match "half: marks the array submitted before" "$(sed -n 2p h.out)" "children 0-3  \\(submitted before\\)$"
expect_match "half: not the ones it submitted" "$(sed -n 3p h.out)" "children 4-7$"

# -- a chunk submitted twice: reported, and the same bytes whatever the
#    order or names of the submissions logs ---------------------------------
spec=$(spec_for dup)
"$SBCTL" submit "$spec" --json > d1.json
dir=$(jqf d1.json .benchmark.dir)
mkdir -p "$T_ROOT/aside"
mv "$dir"/submissions/*.log "$T_ROOT/aside/"
# knows nothing, and (a scheduler that has forgotten the jobs) finds none of
# them by their identity: submits again
shim squeue 'exit 0'
shim sacct 'exit 0'
"$SBCTL" submit "$spec" --json > d2.json 2> /dev/null
rm -f "$SHIM/squeue" "$SHIM/sacct"
mv "$T_ROOT"/aside/*.log "$dir/submissions/"
wait_for 30 all_done
"$SBCTL" submit "$spec" --json > dup.json 2> dup.err
expect "dup: submit exits 0" "$?" 0
expect "dup: nothing submitted" "$(jqf dup.json .already_submitted)" true
expect "dup: every chunk listed as duplicated" \
	"$(jqf dup.json '[.duplicates[]|"\(.attempt)/\(.chunk):\(.job_ids|join(","))"]|join(" ")')" \
	"$(jq -rn --slurpfile a d1.json --slurpfile b d2.json \
		'[range(3) as $c | "0/\($c):\($a[0].jobs[$c].job_id),\($b[0].jobs[$c].job_id)"]|join(" ")')"
expect "dup: one warning per chunk" "$(grep -c 'warning: chunk [0-2] of attempt 0 was submitted 2 times, as jobs' dup.err)" 3
expect_match "dup: the warning names both jobs" "$(head -n 1 dup.err)" \
	"chunk 0 of attempt 0 was submitted 2 times, as jobs $(jqf d1.json '.jobs[0].job_id') $(jqf d2.json '.jobs[0].job_id'): "
"$SBCTL" status "$dir" --json --offline > st.json 2> st.err

# same_bytes DESC: submit and status print what they printed first
same_bytes() {
	"$SBCTL" submit "$spec" --json > x.json 2> x.err
	expect "$1: submit --json, same bytes" "$(cmp -s x.json dup.json && echo same)" same
	expect "$1: submit warnings, same bytes" "$(cmp -s x.err dup.err && echo same)" same
	"$SBCTL" status "$dir" --json --offline > x.json 2> x.err
	expect "$1: status --json, same bytes" "$(cmp -s x.json st.json && echo same)" same
}
logs=($(ls "$dir"/submissions/*.log | sort))
expect "dup: two submissions logs" "${#logs[@]}" 2
# the two names swapped
mv "${logs[0]}" "$dir/submissions/swap"; mv "${logs[1]}" "${logs[0]}"; mv "$dir/submissions/swap" "${logs[1]}"
same_bytes "names swapped"
# the directory written again, files in the other order
mkdir "$T_ROOT/re"
for f in $(ls "$dir"/submissions/*.log | sort -r); do cp -p "$f" "$T_ROOT/re/"; done
rm -f "$dir"/submissions/*.log
for f in $(ls "$T_ROOT"/re/*.log | sort); do cp -p "$f" "$dir/submissions/"; done
same_bytes "created in the other order"
# a log copied under another name
cp -p "${logs[0]}" "$dir/submissions/0-copy.log"
same_bytes "a log copied"

t_done
