#!/bin/bash
# Record a run (scheduler snapshots + a benchmark directory growing), then
# replay it: at a frozen moment and at double speed.
. "$(dirname "$0")/lib.sh"
SACCT_FMT=JobID,JobIDRaw,JobName,State,ExitCode,Submit,Start,End,NodeList,Comment,Timelimit,Partition,Account,WorkDir,AllocCPUS

mkdir -p bench/events
cat > bj.sh <<'SCRIPT'
#!/bin/bash
echo "start $SLURM_ARRAY_TASK_ID" >> events/log-$SLURM_ARRAY_TASK_ID
sleep 0.6
echo "finish $SLURM_ARRAY_TASK_ID" >> events/log-$SLURM_ARRAY_TASK_ID
exit $((SLURM_ARRAY_TASK_ID == 2))
SCRIPT
id=$(sbatch --parsable -a 0-3%2 -t 30 --comment=rec -D bench -o /dev/null bj.sh)
sbfake record bench rec --interval 0.1 --jobs "$id"
expect "recording ends once the jobs are over" "$(acct $id State | sort | uniq -c | tr -s ' ')" " 3 COMPLETED
 1 FAILED"
expect_match "timeline header" "$(head -1 rec/timeline)" "^sbfake-record 1 [0-9]+\.[0-9]+$"
# the times of the first and last sacct snapshots
first_t=$(awk '$1 == "S" {print $2; exit}' rec/timeline)
last_s=$(awk '$1 == "S" {t = $2} END {print t}' rec/timeline)

export SB_FAKE_SLURM_DIR="$T_ROOT/replay-state"
# a frozen moment: the first snapshot
sbfake replay rec tgt --at "$first_t"
first_rec=$(awk '$1 == "S" {c = $3; p = 1; next} p && c-- > 0 {print} p && c < 0 {exit}' rec/timeline)
expect "sacct at the first moment answers as recorded" \
	"$(sacct -P -n -X -D -j $id --format=$SACCT_FMT)" "$first_rec"
# (which tasks run then depends on how fast the machine was while recording)
expect_match "squeue at the first moment: tasks pending or running" \
	"$(squeue -h -r -o '%i %T' | tr '\n' ' ')" "${id}_[0-3] (RUNNING|PENDING)"
# every replayed file is what the benchmark directory held at some moment
prefixes=0
shopt -s nullglob
for f in tgt/events/*; do
	b=bench/events/${f##*/}
	[ "$(head -c "$(stat -c %s "$f")" "$b")" == "$(cat "$f")" ] || prefixes=1
done
expect "files at the first moment are earlier states" "$prefixes" "0"
# at the moment log-0 first appeared, it held the script's first line
t_log0=$(awk '$1 == "F" && $7 == "events/log-0" {print $2; exit}' rec/timeline)
sbfake replay rec tgt-log0 --at "$t_log0"
# (the recorder samples every 0.1 s: on a loaded machine it may first see the
# file after the task's second line too)
expect "files as they were then: the first line first" "$(head -n 1 tgt-log0/events/log-0)" "start 0"
out=$(sbatch --wrap true 2>&1); rc=$?
expect "no submissions during a replay" "$out rc=$rc" \
	"sbatch: error: Batch job submission failed: the fake Slurm is replaying a recording (sbfake reset ends it) rc=1"

# the end of the recording
sbfake replay rec tgt-end --at "$last_s"
last_rec=$(awk -v t="$last_s" '$1 == "S" && $2 == t {c = $3; p = 1; next} p && c-- > 0 {print}' rec/timeline)
expect "sacct at the end answers as recorded" "$(sacct -P -n -X -D -j $id --format=$SACCT_FMT)" "$last_rec"
expect "squeue at the end is empty" "$(squeue -h)" ""
expect "all files at the end" "$(cat tgt-end/events/log-2)" "start 2
finish 2"

# at double speed the answers evolve: pending/running first, then done
sbfake replay rec tgt2 --speed 2 --detach
expect_match "early: still running" "$(sacct -P -n -X -j $id -o State | tr '\n' ' ')" "RUNNING"
wait_for 5 acct_is "${id}_2" State FAILED
same_files() { [ "$(cat tgt2/events/log-* 2>/dev/null)" == "$(cat bench/events/log-*)" ]; }
wait_for 5 same_files
sbfake reset
expect "reset leaves replay mode" "$(sbatch --parsable --wrap true >/dev/null; echo $?)" "0"
t_done
