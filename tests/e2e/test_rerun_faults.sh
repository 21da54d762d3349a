#!/bin/bash
# sbctl rerun (and submit) after a failed file operation while the jobs of
# an attempt are written: the failed run says what failed and that running
# it again continues, leaves no jobs/a<N> behind, and the next run prepares
# the attempt and submits it exactly once.  A jobs directory without task
# maps, as an older sbctl left it, is prepared again; leftovers of a
# preparation (jobs/.a<N>.tmp) are removed; an EINTR is retried.
#
# The faults come from tests/faults' LD_PRELOAD shim (sbfault.so, built
# into the build tree), acting in sbctl only and on the benchmark's jobs/.
. "$(dirname "$0")/lib.sh"

FAULT_SHIM=${SB_BUILD:?SB_BUILD must name the build directory}/tests/faults/sbfault.so
[ -f "$FAULT_SHIM" ] || { echo "not ok - $FAULT_SHIM is not built"; exit 1; }
export SB_FAKE_MIN_JOB_AGE=0

# faulted CALL N ERRNO PATH SBCTL-ARGS...: sbctl with the Nth CALL on a path
# containing PATH failed with ERRNO (the shim's trace in $T_ROOT/trace)
faulted() {
	local call=$1 n=$2 e=$3 path=$4
	shift 4
	rm -f "$T_ROOT/trace"
	env LD_PRELOAD="$FAULT_SHIM" SB_FAULT_EXE=/sbctl SB_FAULT_CALL="$call" SB_FAULT_N="$n" \
		SB_FAULT_ERRNO="$e" SB_FAULT_PATH="$path" SB_FAULT_TRACE="$T_ROOT/trace" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" "$SBCTL" "$@"
}
# fired DESC PATH-REGEX: the fault was injected once, on a path matching PATH-REGEX
fired() {
	local inj
	inj=$(grep ' INJ-' "$T_ROOT/trace" 2> /dev/null | cut -d' ' -f5-)
	expect_match "$1: the fault fired on $inj" "$inj" "^$2\$"
}
# arrays DIR NAME-TAIL: how many job arrays the scheduler has named sb-<digest12>-NAME-TAIL
arrays() {
	local d
	d=$(jqf "$1/benchmark.json" .digest)
	sacct -n -X -P --name="sb-${d:0:12}-$2" -S 2020-01-01 --format=JobID | sed 's/_.*//' | sort -u | wc -l
}
# failing NAME: a finished benchmark of 3 children whose child 2 failed in
# attempt 0 (and succeeds in any later one); prints its directory
failing() {
	local dir
	dir=$(submit_spec "$1" "name: $1
command: 'echo x > out.txt; [ \"\$SB_PARAM_x\" != 2 ] || [ \"\$SB_ATTEMPT\" != 0 ]'
parameters:
  x: [0, 1, 2]
results: [out.txt]") || return 1
	wait_for 20 all_done
	echo "$dir"
}
# rerun_ok DESC DIR: rerun --only failed succeeds, attempt 1 is one job
# array, and child 2 ends succeeded in it
rerun_ok() {
	"$SBCTL" rerun "$2" --only failed --json > r.json 2> r.err
	expect "$1: rerun again exits 0 ($(head -c 300 r.err))" "$?" 0
	wait_for 20 all_done
	expect "$1: attempt 1 is one job array" "$(arrays "$2" a1-c0)" 1
	expect "$1: attempt 0 is still one job array" "$(arrays "$2" a0-c0)" 1
	st s.json "$2"
	expect "$1: child 2 succeeded in attempt 1" "$(classes s.json)" "0:succeeded 1:succeeded 2:succeeded"
	expect "$1: no preparation left over" "$(ls -A "$2/jobs")" "a0
a1"
}

# -- an EIO or ENOSPC while attempt 1 is written ------------------------------
# rename 1: the first file put in place; write 1: the first map; fsync 1:
# the first sync (the map); rename 3: the attempt's directory put in place
for f in rename-1-EIO rename-1-ENOSPC write-1-EIO fsync-1-ENOSPC rename-3-EIO; do
	IFS=- read -r call n e <<< "$f"
	dir=$(failing "f$call$n${e,,}") || continue
	faulted "$call" "$n" "$e" "$dir/jobs/" rerun "$dir" --only failed > f.out 2> f.err
	expect "$f: the faulted rerun exits 1" "$?" 1
	fired "$f" "$dir/jobs/\\.a1\\.tmp(/chunk-0\\.map\\.tmp\\.[0-9]+)?"
	expect_match "$f: it says what failed" "$(head -n 1 f.err)" \
		"^sbctl rerun: cannot prepare the jobs of attempt 1: cannot .*/jobs/\\.a1\\.tmp.*: (Input/output error|No space left on device)\$"
	expect_match "$f: and that running it again continues" "$(sed -n 2p f.err)" \
		"^sbctl rerun: 0 of 1 job arrays are submitted; run 'sbctl rerun $dir --only failed' again to continue\$"
	expect "$f: nothing was submitted" "$(arrays "$dir" a1-c0)" 0
	expect "$f: no attempt 1, nothing half written" "$(ls -A "$dir/jobs")" a0
	rerun_ok "$f" "$dir"
done

# -- EINTR is retried: the rerun succeeds at once ------------------------------
# (no symlink: the jobs directory has none since output goes to a directory per chunk)
for f in rename-1-EINTR write-1-EINTR fsync-1-EINTR open-1-EINTR mkdir-1-EINTR; do
	IFS=- read -r call n e <<< "$f"
	dir=$(failing "i$call") || continue
	faulted "$call" "$n" "$e" "$dir/jobs/" rerun "$dir" --only failed --json > i.json 2> i.err
	expect "$f: the rerun exits 0 ($(head -c 300 i.err))" "$?" 0
	fired "$f" "$dir/jobs/.*"
	wait_for 20 all_done
	expect "$f: attempt 1 is one job array" "$(arrays "$dir" a1-c0)" 1
	st s.json "$dir"
	expect "$f: child 2 succeeded" "$(classes s.json)" "0:succeeded 1:succeeded 2:succeeded"
done

# -- the state an older sbctl left: jobs/a1 without a task map -----------------
dir=$(failing legacy)
mkdir "$dir/jobs/a1"
"$SBCTL" status "$dir" --json > l.json
expect "legacy: status ignores the empty attempt" "$(classes l.json)" "0:succeeded 1:succeeded 2:failed"
# and a preparation that died, with a file and an output link in it
mkdir -p "$dir/jobs/.a1.tmp/c0" "$dir/jobs/.a7.tmp"
echo junk > "$dir/jobs/.a1.tmp/chunk-0.map.tmp.12345"
ln -s ../../../runs/2 "$dir/jobs/.a1.tmp/c0/0"
rerun_ok legacy "$dir"
expect "legacy: the attempt has its map now" "$(ls "$dir/jobs/a1")" "c0
chunk-0.map
chunk-0.sh"

# -- the jobs are written, nothing is recorded: the next rerun resumes ---------
dir=$(failing recorded)
"$SBCTL" status "$dir" > /dev/null # outcomes recorded: the rerun's status writes none
# write 1 under submissions/: the first record of the rerun's own log
faulted write 1 EIO "$dir/submissions/" rerun "$dir" --only failed > w.out 2> w.err
expect "no record: the faulted rerun exits 1" "$?" 1
fired "no record" "$dir/submissions/.*\\.log"
expect_match "no record: it says to run it again" "$(cat w.err)" \
	"0 of 1 job arrays are submitted; run 'sbctl rerun $dir --only failed' again to continue"
expect "no record: attempt 1 is prepared" "$(ls "$dir/jobs/a1" | grep -c map)" 1
expect "no record: nothing was submitted" "$(arrays "$dir" a1-c0)" 0
"$SBCTL" rerun "$dir" --only failed > w2.out 2> w2.err
expect "no record: rerun again exits 0 ($(head -c 300 w2.err))" "$?" 0
expect_match "no record: it resumed the prepared attempt" "$(cat w2.out)" \
	"an interrupted submission \\(attempt below\\) was resumed first"
wait_for 20 all_done
expect "no record: attempt 1 is one job array" "$(arrays "$dir" a1-c0)" 1
st s.json "$dir"
expect "no record: child 2 succeeded" "$(classes s.json)" "0:succeeded 1:succeeded 2:succeeded"

# -- sbctl submit: the first attempt is prepared whole too ---------------------
write_spec sub.yaml "name: sub
command: [sh, -c, 'exit 0']
parameters:
  x: [0, 1]"
faulted rename 2 EIO /jobs/ submit sub.yaml > u.out 2> u.err
expect "submit: the faulted submit exits 1" "$?" 1
fired submit ".*/jobs/\\.a0\\.tmp/chunk-0\\.sh\\.tmp\\.[0-9]+"
expect_match "submit: it says what failed" "$(head -n 1 u.err)" \
	"^sbctl submit: cannot prepare the jobs of attempt 0: cannot replace '.*/jobs/\\.a0\\.tmp/chunk-0\\.sh': Input/output error\$"
expect_match "submit: and that running it again continues" "$(sed -n 2p u.err)" \
	"^sbctl submit: 0 of 1 job arrays are submitted; run 'sbctl submit sub.yaml' again to continue\$"
dir=$(ls -d "$SB_ROOT"/sub-*)
expect "submit: no attempt 0 half written" "$(ls -A "$dir/jobs")" ""
"$SBCTL" submit sub.yaml --json > u.json 2> u2.err
expect "submit: submit again exits 0 ($(head -c 300 u2.err))" "$?" 0
wait_for 20 all_done
expect "submit: attempt 0 is one job array" "$(arrays "$dir" a0-c0)" 1
st s.json "$dir"
expect "submit: every child succeeded" "$(classes s.json)" "0:succeeded 1:succeeded"

t_done
