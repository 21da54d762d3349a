#!/bin/bash
# The fake's timers (sbfake-tick, one per state directory, serving --begin
# times) do not outlive their use: a timer exits within a few seconds when
# its state directory is removed or replaced (it wakes at least every 2 s),
# and is stopped when no job waits for a begin time any more.
. "$(dirname "$0")/lib.sh"

# ticks_of DIR: pids of the sbfake-tick processes serving DIR, found by the
# environment they inherit (and, since the fix, their command line)
ticks_of() {
	local p
	for p in $(pgrep -f '^sbfake-tick '); do
		tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qxF "SB_FAKE_SLURM_DIR=$1" && echo "$p"
	done
}
no_ticks() { [ -z "$(ticks_of "$1")" ]; }
has_ticks() { [ -n "$(ticks_of "$1")" ]; }

# sleeping DIR: a fresh state directory DIR with a job waiting an hour for
# its begin time, so a timer sleeps for it
sleeping() {
	SB_FAKE_SLURM_DIR=$1 sbatch --parsable --begin=now+3600 --wrap true > /dev/null
	wait_for 10 has_ticks "$1"
}

# -- the state directory removed: the timer exits
d1="$T_ROOT/state-removed-$$"
sleeping "$d1" && echo "ok - a timer sleeps for the pending job"
expect "the timer names its directory on its command line" \
	"$(pgrep -f "^sbfake-tick [0-9.]+ $d1\$")" "$(ticks_of "$d1")"
rm -rf "$d1"
wait_for 10 no_ticks "$d1" && echo "ok - removed directory: its timer is gone"
expect "the timer did not re-create the directory" "$([ -e "$d1" ] && echo yes || echo no)" no

# -- the state directory replaced by a new one of the same name
d2="$T_ROOT/state-replaced-$$"
sleeping "$d2"
rm -rf "$d2" && mkdir -p "$d2"
wait_for 10 no_ticks "$d2" && echo "ok - replaced directory: its timer is gone"

# -- the last waiting job cancelled: no timer left either
d3="$T_ROOT/state-cancelled-$$"
id=$(SB_FAKE_SLURM_DIR=$d3 sbatch --parsable --begin=now+3600 --wrap true)
wait_for 10 has_ticks "$d3"
SB_FAKE_SLURM_DIR=$d3 scancel "$id"
wait_for 10 no_ticks "$d3" && echo "ok - nothing waits for a begin time: the timer is stopped"

# -- a timer still does its job: a begin time 1 s away starts the job
id=$(sbatch --parsable --begin=now+1 --wrap true)
wait_for 15 acct_is "$id" State COMPLETED && echo "ok - the timer started the job at its begin time"
wait_for 10 no_ticks "$SB_FAKE_SLURM_DIR" && echo "ok - and exited after it"

t_done
