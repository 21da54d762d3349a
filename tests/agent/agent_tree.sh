#!/usr/bin/env bash
# The whole process tree is waited for (a subreaper): a grandchild that
# outlives the command still writes its result before finish.  Heartbeats;
# the run identity from Slurm's environment.
. "$(dirname "$0")/lib.sh"

# A grandchild in the background, and one in a new session, outlive the
# command, which exits 0 at once.
t0=$(date +%s%N)
rc=0
"$AGENT" --key "$K" --log "$T/tree" --result late.txt --result late2.txt -- sh -c '
	(sleep 0.6; echo late > late.txt) &
	setsid sh -c "sleep 0.8; echo later > late2.txt" &
	exit 0' || rc=$?
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
check "tree: exit 0 of the command (got $rc)" test "$rc" -eq 0
check "tree: sbagent waited for the grandchildren (${ms} ms)" test "$ms" -ge 750
logjson "$T/tree"
fin=$(record finish <<<"$OUT")
for f in late.txt late2.txt; do
	sum=$(sha256sum "$f" | cut -d' ' -f1)
	check "tree: $f written before finish and hashed" grep -q "\"path\":\"$f\",\"sha256\":\"$sum\"" <<<"$fin"
done

# TERM while only an orphaned grandchild is left: forwarded to the group,
# which the grandchild is still in.
"$AGENT" --key "$K" --log "$T/orphan" -- sh -c '(trap "echo got > orphan.txt; exit 0" TERM; echo > ready; while :; do sleep 0.05; done) & exit 0' &
pid=$!
wait_for ready
sleep 0.1
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
check "orphan: got the forwarded TERM" test "$(cat orphan.txt 2>/dev/null)" = got
check "orphan: sbagent exits with the command's status 0 (got $rc)" test "$rc" -eq 0

# Heartbeats every second.
"$AGENT" --key "$K" --log "$T/hb" --heartbeat 1 -- sleep 2.5
logjson "$T/hb"
n=$(count_type heartbeat <<<"$OUT")
check "heartbeat 1: two heartbeats in 2.5 s (got $n)" test "$n" -ge 2 -a "$n" -le 3
hb=$(record heartbeat <<<"$OUT" | head -n 1)
for k in elapsed_s max_rss_kb user_s sys_s; do
	check "heartbeat has $k" grep -q "\"$k\":[0-9]" <<<"$hb"
done
e=$(field elapsed_s <<<"$hb")
check "heartbeat elapsed_s about 1 ($e)" awk -v e="$e" 'BEGIN { exit !(e >= 0.99 && e < 1.5) }'
check "heartbeat: finish counts every record" test "$(record finish <<<"$OUT" | field records)" = $((n + 2))
check "heartbeat: start says 1.0" grep -q '"heartbeat_s":1' <<<"$OUT"

"$AGENT" --key "$K" --log "$T/nohb" --heartbeat 0 -- sleep 0.3
logjson "$T/nohb"
check "heartbeat 0: none" test "$(count_type heartbeat <<<"$OUT")" -eq 0

# Identity from Slurm's environment; absent outside Slurm.
SLURM_JOB_ID=4242 SLURM_CLUSTER_NAME=alpha SLURM_ARRAY_JOB_ID=4240 \
	SLURM_ARRAY_TASK_ID=2 SLURM_RESTART_COUNT=1 \
	"$AGENT" --key "$K" --log "$T/slurm" -- true
logjson "$T/slurm"
start=$(record start <<<"$OUT")
check "slurm: job_id" test "$(field job_id <<<"$start")" = '"4242"'
check "slurm: cluster" test "$(field cluster <<<"$start")" = '"alpha"'
check "slurm: array ids" grep -q '"array_job_id":"4240","array_task_id":"2"' <<<"$start"
check "slurm: restart" test "$(field restart <<<"$start")" = 1
check "slurm: host is the short host name" test "$(field host <<<"$start")" = "\"$(uname -n | cut -d. -f1)\""
(unset SLURM_JOB_ID SLURM_CLUSTER_NAME SLURM_ARRAY_JOB_ID SLURM_ARRAY_TASK_ID SLURM_RESTART_COUNT
 exec "$AGENT" --key "$K" --log "$T/noslurm" -- true)
logjson "$T/noslurm"
start=$(record start <<<"$OUT")
check "no slurm: job_id and restart null" grep -q '"job_id":null.*"restart":null' <<<"$start"
# No descriptor of sbagent's (log, signalfd, exec pipe) leaks into the command.
# (ls lists its own descriptors: one more, its directory, in both cases)
direct=$(ls /proc/self/fd | sort -n | tr "\n" " ")
wrapped=$("$AGENT" --key "$K" --log "$T/fds" -- ls /proc/self/fd | sort -n | tr "\n" " ")
check "open descriptors as without sbagent ($wrapped)" test "$direct" = "$wrapped"

# SB_RUN_DIR always; SB_METRICS_FILE only with --metrics.
"$AGENT" --key "$K" --log "$T/env" -- sh -c 'echo "${SB_RUN_DIR-unset} ${SB_METRICS_FILE-unset}" > env.txt'
check "environment: SB_RUN_DIR set, SB_METRICS_FILE unset" test "$(cat env.txt)" = "$T unset"
finish_tests
