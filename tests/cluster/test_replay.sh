#!/bin/bash
# Replays the recording of the real-Slurm acceptance run
# (tests/data/recordings/real-acceptance: `sbfake record` next to
# tests/cluster/acceptance.sh on Slurm 22.05) through the fake, and checks
# what sbctl status and analyze say at three moments of it: early (child 0
# running, child 1 cancelled, the rest pending), after the short children
# (child 0 still running) and at the end, after child 5's result was changed.
. "$(dirname "$0")/../e2e/lib.sh"
REC="$SB_TEST_DATA/recordings/real-acceptance"
A=$(awk -F'|' '$1 ~ /^[0-9]+_/ {sub(/_.*/, "", $1); print $1; exit}' "$REC/timeline")

# at T [SUFFIX]: the benchmark directory (a new one per T and SUFFIX) and the
# scheduler as they were T s into the run; prints the directory
at() {
	local t=$1 d="$T_ROOT/at-$1${2:-}"
	sbfake replay "$REC" "$d" --at "$t" >/dev/null || { echo "not ok - replay --at $t"; T_FAILS=$((T_FAILS + 1)); }
	# replay writes plain files: the key needs its owner-only mode again
	chmod 700 "$d/keys" && chmod 600 "$d/keys/hmac.key"
	echo "$d"
}

# 8 s: real accounting still showed the array's pending record with its old
# range, 24_[2-7%8], next to the rows of tasks 2, 3 and 4 that had already
# run (the timeline keeps that answer); the replay keeps the tasks' rows
d=$(at 8)
st s8.json "$d"; rc=$?
expect "8 s: status exit" "$rc" 3
expect "8 s: classes" "$(classes s8.json)" "0:running 1:killed 2:killed 3:failed 4:succeeded 5:pending 6:pending 7:pending"
expect_child s8.json 0 running "^RUNNING on vm$"
expect_child s8.json 1 killed "^CANCELLED by uid 1001; the command was killed by signal 15$"
expect "8 s: squeue" "$(squeue -h -r -o '%i %T' | sort | tr '\n' ' ')" \
	"${A}_0 RUNNING ${A}_5 PENDING ${A}_6 PENDING ${A}_7 PENDING "
expect "8 s: sacct" "$(sacct -X -P -n -j "$A" --format=JobID,State | sed "s/^${A}_//" | tr '\n' ' ')" \
	"0|RUNNING 1|CANCELLED by 1001 2|OUT_OF_MEMORY 3|FAILED 4|COMPLETED [5-7%8]|PENDING "

# The same moment with sacct answering exactly as the real one did, stale
# range included ("24_[2-7%8] PENDING" beside the rows of tasks 2-4 that
# already ran): a range row counts only for tasks without a row of their own
# (ctl/status/status_sched.c find_row).  The recorded rows carry more fields than sbctl
# asks for: cut to sbctl's --format (the first 9).
mkdir -p "$T_ROOT/raw"
awk '$1 == "S" && $2 == "7.956" {c = $3; next} c > 0 {print; c--}' "$REC/timeline" | cut -d'|' -f1-9 > "$T_ROOT/raw/sacct.txt"
printf '#!/bin/sh\ncat %s/raw/sacct.txt\n' "$T_ROOT" > "$T_ROOT/raw/sacct"
chmod +x "$T_ROOT/raw/sacct"
d=$(at 8 -raw)
PATH="$T_ROOT/raw:$PATH" "$SBCTL" status "$d" --json > s8raw.json
echo "# 8 s, real sacct answer: $(classes s8raw.json)"
expect "8 s, real sacct answer: classes" "$(classes s8raw.json)" \
	"0:running 1:killed 2:killed 3:failed 4:succeeded 5:pending 6:pending 7:pending"

d=$(at 20)
st s20.json "$d"; rc=$?
expect "20 s: status exit" "$rc" 3
expect "20 s: classes" "$(classes s20.json)" "0:running 1:killed 2:killed 3:failed 4:succeeded 5:succeeded 6:succeeded 7:succeeded"
expect_child s20.json 2 killed "^OUT_OF_MEMORY; "
expect_child s20.json 3 failed "^exit 3$"

d=$(at 95)
st s95.json "$d"; rc=$?
expect "end: status exit" "$rc" 3
expect "end: classes" "$(classes s95.json)" "0:killed 1:killed 2:killed 3:failed 4:succeeded 5:invalid 6:succeeded 7:succeeded"
expect_child s95.json 0 killed "^TIMEOUT; the command was killed by signal 15$"
expect_child s95.json 5 invalid "^result 'out.txt' changed after the verified finish"
expect "end: sacct as recorded" "$(sacct -X -P -n -j "$A" --format=JobID,State,ExitCode | sed "s/^${A}_//")" "0|TIMEOUT|0:0
1|CANCELLED by 1001|0:0
2|OUT_OF_MEMORY|0:125
3|FAILED|3:0
4|COMPLETED|0:0
5|COMPLETED|0:0
6|COMPLETED|0:0
7|COMPLETED|0:0"
"$SBCTL" analyze "$d" --json > an.json; rc=$?
expect "end: analyze exit" "$rc" 3
expect "end: statistics over the successes only" \
	"$(jq -c '[.counts.succeeded, .groups[0].metrics.score.n, .groups[0].metrics.score.mean, [.excluded[].index]]' an.json)" \
	"[3,3,8.5,[0,1,2,3,5]]"
t_done
