#!/bin/bash
# sbctl status on a full disk.  Recording the reconciled outcomes fails
# (ENOSPC); status warns, prints the whole classification, exits with its
# usual code (0 or 3) and leaves no empty or partial file in submissions/.
# Once there is room again, the next status records them.
#
# Two ways to fill the disk, each a real test:
#  - tmpfs: the benchmark directories live on a tiny tmpfs filled to the
#    last block once the jobs are over (needs root to mount: the tests run
#    as root here and in CI; without it this part says so and the shim part
#    still runs);
#  - shim: enospc_shim.so (LD_PRELOAD) fails every write and sync under the
#    benchmark's submissions/ with ENOSPC.
. "$(dirname "$0")/lib.sh"

SHIMLIB=${SB_BUILD:?SB_BUILD must name the build directory}/tests/enospc_shim.so
export SB_FAKE_MIN_JOB_AGE=0

# the disk-full cases for one way of filling it: $1 names it, fill/unfill
# make it full and empty, on_full CMD DIR ARGS runs sbctl CMD on the full disk
cases() {
	local m=$1 dir dir2 before before2
	dir=$(submit_spec "full$m" "name: full$m
command: [sh, -c, 'echo {x} > out.txt']
parameters:
  x: [1, 2, 3]
results: [out.txt]")
	dir2=$(submit_spec "fail$m" "name: fail$m
command: [sh, -c, 'exit 2']")
	wait_for 10 all_done
	wait_for 10 acct_is "$(array_of "full$m")" State "COMPLETED
COMPLETED
COMPLETED"
	wait_for 10 acct_is "$(array_of "fail$m")_0" State FAILED
	before=$(ls "$dir/submissions")
	before2=$(ls "$dir2/submissions")
	fill "$dir"
	on_full status "$dir" --json > f.json 2> f.err
	expect "$m: status exits 0 (every child succeeded)" "$?" 0
	expect "$m: the whole classification" "$(classes f.json)" "0:succeeded 1:succeeded 2:succeeded"
	expect_match "$m: it warns that outcomes could not be recorded" "$(cat f.err)" \
		"^sbctl status: warning: the scheduler's final states could not be recorded in submissions/ \\(.*No space left on device\\); the classification is complete"
	expect "$m: no new file in submissions/" "$(ls "$dir/submissions")" "$before"
	expect "$m: no empty file in submissions/ or events/" \
		"$(find "$dir/submissions" "$dir/events" -type f -empty | wc -l)" 0
	on_full status "$dir" > f.txt 2> /dev/null
	expect "$m: the human summary exits 0 too" "$?" 0
	expect_match "$m: the human summary" "$(cat f.txt)" '  succeeded +3'
	expect "$m: no outcomes claimed recorded" "$(grep -c 'recorded the scheduler' f.txt)" 0
	on_full analyze "$dir" > a.txt 2> a.err
	expect "$m: analyze exits 0 too" "$?" 0
	expect_match "$m: analyze warns as well" "$(cat a.err)" "^sbctl analyze: warning: the scheduler's final states could not be recorded"
	expect "$m: no new file after analyze" "$(ls "$dir/submissions")" "$before"
	fill "$dir2"
	on_full status "$dir2" --json > g.json 2> g.err
	expect "$m: exit 3 when a child failed" "$?" 3
	expect_child g.json 0 failed '^exit 2$'
	expect "$m: no new file (failed child)" "$(ls "$dir2/submissions")" "$before2"
	# room again: the next status records the outcomes
	unfill
	"$SBCTL" status "$dir" --settle 0 > r.txt 2> r.err
	expect "$m, room again: exit 0" "$?" 0
	expect "$m, room again: no warning" "$(cat r.err)" ""
	expect_match "$m, room again: the outcomes are recorded" "$(cat r.txt)" \
		'recorded the scheduler.s final state of 3 children'
	st r.json "$dir" --settle 0
	expect "$m, room again: the same classification" "$(cmp f.json r.json && echo same)" same
}

# -- tmpfs ----------------------------------------------------------------------
mnt="$T_ROOT/full"
mkdir -p "$mnt"
if mount -t tmpfs -o size=4m,mode=0755 tmpfs "$mnt" 2> mount.err; then
	trap 'umount "$mnt" 2>/dev/null; t_cleanup' EXIT
	fill() {
		dd if=/dev/zero of="$mnt/filler" bs=64k 2> /dev/null
		cat /dev/zero >> "$mnt/filler" 2> /dev/null
		expect "tmpfs: the disk is full" "$(echo x 2>/dev/null > "$mnt/probe" && echo room || echo full)" full
		rm -f "$mnt/probe"
	}
	unfill() { rm -f "$mnt/filler"; }
	on_full() { local c=$1 d=$2; shift 2; "$SBCTL" "$c" "$d" --settle 0 "$@"; }
	SB_ROOT="$mnt/runs" cases tmpfs
	unfill
else
	echo "# no tmpfs (mount: $(cat mount.err)): the disk-full cases run under the ENOSPC shim only"
fi

# -- shim -----------------------------------------------------------------------
FULL_DIR=
fill() { FULL_DIR=$(realpath "$1/submissions"); }
unfill() { FULL_DIR=; }
on_full() {
	local c=$1 d=$2; shift 2
	LD_PRELOAD="$SHIMLIB" SB_ENOSPC_DIR="$FULL_DIR" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
		"$SBCTL" "$c" "$d" --settle 0 "$@"
}
cases shim

t_done
