#!/bin/bash
# sbctl status on a full disk: the benchmark directory lives on a tiny tmpfs
# that is filled once the jobs are over.  Recording the reconciled outcomes
# fails (ENOSPC); status warns, prints the whole classification, exits with
# its usual code and leaves no empty or partial file in submissions/.  Once
# there is room again, the next status records them.  Needs root (mount),
# as the tests have here and in CI: without it the test fails, never skips.
. "$(dirname "$0")/lib.sh"

export SB_FAKE_MIN_JOB_AGE=0
mnt="$T_ROOT/full"
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=4m,mode=0755 tmpfs "$mnt" 2> mount.err; then
	echo "not ok - cannot mount a tmpfs for the disk-full test (needs root): $(cat mount.err)"
	exit 1
fi
trap 'umount "$mnt" 2>/dev/null; t_cleanup' EXIT
export SB_ROOT="$mnt/runs"

dir=$(submit_spec full "name: full
command: [sh, -c, 'echo {x} > out.txt']
parameters:
  x: [1, 2, 3]
results: [out.txt]")
wait_for 10 all_done
wait_for 10 acct_is "$(array_of full)" State "COMPLETED
COMPLETED
COMPLETED"
before=$(ls "$dir/submissions")
# fill the file system to the last block
dd if=/dev/zero of="$mnt/filler" bs=64k 2> /dev/null
cat /dev/zero >> "$mnt/filler" 2> /dev/null
expect "the disk is full" "$(echo x 2>/dev/null > "$mnt/probe" && echo room || echo full)" full
rm -f "$mnt/probe"

st f.json "$dir" --settle 0 2> f.err
expect "disk full: status exits 0 (every child succeeded)" "$?" 0
expect "disk full: the whole classification" "$(classes f.json)" "0:succeeded 1:succeeded 2:succeeded"
expect_match "disk full: it warns that outcomes could not be recorded" "$(cat f.err)" \
	"^sbctl status: warning: the scheduler's final states could not be recorded in submissions/ \\(.*No space left on device\\); the classification is complete"
expect "disk full: no new file in submissions/" "$(ls "$dir/submissions")" "$before"
expect "disk full: no empty file in submissions/ or events/" \
	"$(find "$dir/submissions" "$dir/events" -type f -empty | wc -l)" 0
"$SBCTL" status "$dir" --settle 0 > f.txt 2> f2.err
expect "disk full: the human summary exits 0 too" "$?" 0
expect_match "disk full: the human summary" "$(cat f.txt)" '  succeeded +3'
expect "disk full: no outcomes claimed recorded" "$(grep -c 'recorded the scheduler' f.txt)" 0

# a failing child: the usual exit 3 on a full disk as well
rm -f "$mnt/filler"
dir2=$(submit_spec full2 "name: full2
command: [sh, -c, 'exit 2']")
wait_for 10 all_done
wait_for 10 acct_is "$(array_of full2)_0" State FAILED
dd if=/dev/zero of="$mnt/filler" bs=64k 2> /dev/null
cat /dev/zero >> "$mnt/filler" 2> /dev/null
before2=$(ls "$dir2/submissions")
st g.json "$dir2" --settle 0 2> g.err
expect "disk full: exit 3 when a child failed" "$?" 3
expect_child g.json 0 failed '^exit 2$'
expect "disk full: no new file (failed child)" "$(ls "$dir2/submissions")" "$before2"

# room again: the next status records the outcomes
rm -f "$mnt/filler"
"$SBCTL" status "$dir" --settle 0 > r.txt 2> r.err
expect "room again: exit 0" "$?" 0
expect "room again: no warning" "$(cat r.err)" ""
expect_match "room again: the outcomes are recorded" "$(cat r.txt)" 'recorded the scheduler.s final state of 3 children'
st r.json "$dir" --settle 0
expect "room again: the same classification" "$(cmp f.json r.json && echo same)" same

t_done
