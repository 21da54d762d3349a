#!/usr/bin/env bash
# Acceptance of a multi-run benchmark on a real single-node Slurm 22.05, and
# the fidelity check of the fake against it.  Run as root (CI: .ci/run):
#   tests/cluster/acceptance.sh [BUILD_DIR]      (default: build)
# 1. starts the cluster (tests/cluster/start.sh; stopped by PID at exit, even on failure)
# 2. as an ordinary user (SB_CLUSTER_USER, default sbtest, created if missing)
#    runs tests/cluster/scenario.sh against the real Slurm and, at the same
#    time, against the fake (build/fake/bin, same KillWait, CPUs, cluster name)
# 3. from a fresh shell: sbctl status --json and sbctl analyze --json of both
#    runs must give every child its expected class, statistics over the
#    successes only, exit 3; a sweep that grows (scenario.sh: its second
#    benchmark reuses the first's two children and submits one) and an
#    early-stopped child (a rising loss past its declared rule: `stopped`);
#    checkpoints: a child signalled before its time limit requeues itself and
#    succeeds on its second run, one whose checkpoint is replaced between its
#    runs is invalid, one preempted by a higher-priority partition's job is
#    requeued by Slurm and succeeds, its chain verified
# 4. tests/cluster/compare.sh: sacct/squeue/sbatch answers of the two runs,
#    field by field; fails on a difference not in tests/cluster/fidelity-allow.txt
# SB_CLUSTER_KEEP=DIR copies the work directory (recording included) there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
user=${SB_CLUSTER_USER:-sbtest}
T0=$(date +%s)
elapsed() { echo "$(( $(date +%s) - T0 ))s"; }
fail() { echo "cluster acceptance: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "run as root (it starts Slurm and creates the test user)"
for f in sbctl sbagent; do [ -x "$build/bin/$f" ] || fail "$build/bin/$f missing: build first"; done
[ -x "$build/fake/bin/sbfake" ] || fail "$build/fake/bin/sbfake missing: build first"
command -v jq >/dev/null || fail "jq missing (tests/install-deps.sh installs it)"

W=$(mktemp -d /tmp/sbench-cluster.XXXXXX)
fake_pids=()
cleanup() {
	local rc=$?
	set +e
	# the fake's jobs, if any are left (as the user that owns them)
	[ -d "$W/fake/state" ] && runuser -u "$user" -- env SB_FAKE_SLURM_DIR="$W/fake/state" "$W/fakebin/sbfake" shutdown >/dev/null 2>&1
	for p in "${fake_pids[@]}"; do kill "$p" 2>/dev/null; done
	echo "== stopping the cluster ($(elapsed))"
	bash "$here/stop.sh"
	if [ -n "${SB_CLUSTER_KEEP:-}" ]; then mkdir -p "$SB_CLUSTER_KEEP" && cp -a "$W/." "$SB_CLUSTER_KEEP/"; fi
	rm -rf "$W"
	if [ $rc -eq 0 ]; then echo "cluster acceptance: PASS ($(elapsed))"; else echo "cluster acceptance: FAIL (exit $rc, $(elapsed))" >&2; fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== starting the single-node Slurm ($(elapsed))"
bash "$here/start.sh" || fail "the Slurm cluster could not start (see the messages above)"
cgmode=$(cat /run/slurmlab.mode)
echo "   process tracking: $cgmode; $(sinfo -h -o '%N %T %c CPUs %m MB'); $(sbatch --version)"

id "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$user"
uid=$(id -u "$user")
# jobs an earlier run left (a run stopped half-way keeps its jobs in the
# controller's saved state): gone before this one counts CPUs
if [ -n "$(squeue -h -u "$user" -o %i 2>/dev/null)" ]; then
	echo "   cancelling the jobs an earlier run of $user left"
	scancel -u "$user" 2>/dev/null || true
	for ((i = 0; i < 120 && $(squeue -h -u "$user" -o %i 2>/dev/null | wc -l) > 0; i++)); do sleep 0.5; done
fi
home=$(getent passwd "$user" | cut -d: -f6)
[ -d "$home" ] || { mkdir -p "$home" && chown "$user:" "$home"; }

# a world-readable copy of the programs: the clone may live under /root
chmod 755 "$W"
mkdir -p "$W/bin" "$W/fakebin" "$W/real" "$W/fake"
cp "$build/bin/sbctl" "$build/bin/sbagent" "$W/bin/"
cp -a "$build/fake/bin/." "$W/fakebin/"
cp "$here/spec.yaml" "$here/scenario.sh" "$W/"
chmod -R a+rX "$W"
chown "$user:" "$W/real" "$W/fake"

# as_user ENV... -- CMD...: a fresh login-less shell of the test user
base_env=(HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 TZ="${TZ:-UTC}" SB_AGENT="$W/bin/sbagent" SBFAKE="$W/fakebin/sbfake")
# SB_CLUSTER_LOAD=1: the real run under load (scenario.sh says what load)
real_env=("${base_env[@]}" PATH="$W/bin:/usr/local/bin:/usr/bin:/bin" SB_CLUSTER_LOAD="${SB_CLUSTER_LOAD:-0}")
fake_env=("${base_env[@]}" PATH="$W/fakebin:$W/bin:/usr/local/bin:/usr/bin:/bin"
	SB_FAKE_SLURM_DIR="$W/fake/state" SB_FAKE_CLUSTER=lab SB_FAKE_CPUS="$(nproc)"
	SB_FAKE_KILLWAIT=10 SB_FAKE_NODENAME="$(hostname -s)")
as_real() { runuser -u "$user" -- env -i "${real_env[@]}" "$@"; }
as_fake() { runuser -u "$user" -- env -i "${fake_env[@]}" "$@"; }

echo "== scenario: 8 children, real Slurm and fake side by side, as $user (uid $uid) ($(elapsed))"
as_real bash "$W/scenario.sh" real "$W/real" "$W/spec.yaml" > "$W/real.log" 2>&1 &
real_pid=$!
as_fake bash "$W/scenario.sh" fake "$W/fake" "$W/spec.yaml" > "$W/fake.log" 2>&1 &
fake_pids+=($!)
rc_real=0; wait "$real_pid" || rc_real=$?
rc_fake=0; wait "${fake_pids[0]}" || rc_fake=$?
echo "---- real run"; cat "$W/real.log"
echo "---- fake run"; cat "$W/fake.log"
[ $rc_real -eq 0 ] || fail "the scenario against the real Slurm failed (exit $rc_real)"
[ $rc_fake -eq 0 ] || fail "the scenario against the fake Slurm failed (exit $rc_fake)"
echo "   scenarios done ($(elapsed))"

# expected classes, by child index
# Without cgroups (linuxproc) Slurm kills the whole step at its memory poll,
# sbagent included: FAILED 0:9 and no finish record, which sbctl classes
# incomplete (docs/classification.md row 7)
oom_class=killed; oom_state=OUT_OF_MEMORY; extra_allow=
if [ "$cgmode" != cgroup ]; then
	oom_class=incomplete; oom_state=FAILED; extra_allow="$here/fidelity-allow-linuxproc.txt"
	echo "   NOTE: no cgroups: the OOM child is expected FAILED 0:9 / incomplete (not OUT_OF_MEMORY / killed)"
fi
exp_real=(killed killed "$oom_class" failed succeeded invalid succeeded succeeded)
exp_fake=(killed killed killed failed succeeded invalid succeeded succeeded)
exp_state=(TIMEOUT "CANCELLED by $uid" "$oom_state" FAILED COMPLETED COMPLETED COMPLETED COMPLETED)
exp_fake_state=(TIMEOUT "CANCELLED by $uid" OUT_OF_MEMORY FAILED COMPLETED COMPLETED COMPLETED COMPLETED)

errors=0
check() { # check WHAT GOT WANT
	if [ "$2" = "$3" ]; then echo "   ok   $1: $2"; else echo "   FAIL $1: got '$2', want '$3'"; errors=$((errors + 1)); fi
}

# changed_finals POLLS: "child N: A then B" for each child whose class,
# once final (not pending or running), was later another (one line a poll)
changed_finals() {
	awk '{ for (i = 1; i <= NF; i++) {
		if (fin[i] != "" && $i != fin[i] && !seen[i]) { print "child " i - 1 ": " fin[i] " then " $i; seen[i] = 1 }
		if ($i != "pending" && $i != "running" && fin[i] == "") fin[i] = $i } }' "$1" | paste -sd ';' -
}

verify() { # verify MODE
	local mode=$1 dir A as exp states rc i cls
	dir=$(cat "$W/$mode/bench_dir"); A=$(cat "$W/$mode/array_id")
	if [ "$mode" = real ]; then as=as_real; exp=("${exp_real[@]}"); states=("${exp_state[@]}")
	else as=as_fake; exp=("${exp_fake[@]}"); states=("${exp_fake_state[@]}"); fi
	echo "== $mode Slurm: the benchmark's children (array job $A)"
	jq -r '.jobs[] | "   job \(.job_id) array \(.array) children \(.children | map(tostring) | join(","))"' "$W/$mode/submit.json"
	echo "-- sacct -X -P --format=JobID,JobName,State,ExitCode"
	$as sacct -X -P -j "$A" --format=JobID,JobName,State,ExitCode | sed 's/^/   /'
	echo "-- sbctl status (fresh shell, as $user)"
	rc=0; $as bash -c "cd '$W/$mode' && SB_INDEX='$W/$mode/index.sqlite' sbctl status '$dir'" > "$W/$mode/status.txt" 2>&1 || rc=$?
	sed 's/^/   /' "$W/$mode/status.txt"
	check "$mode: sbctl status exit" "$rc" 3
	rc=0; $as bash -c "cd '$W/$mode' && SB_INDEX='$W/$mode/index.sqlite' sbctl status '$dir' --json" > "$W/$mode/status.json" 2> "$W/$mode/status.err" || rc=$?
	check "$mode: sbctl status --json exit" "$rc" 3
	rc=0; $as bash -c "cd '$W/$mode' && SB_INDEX='$W/$mode/index.sqlite' sbctl analyze '$dir' --json" > "$W/$mode/analyze.json" 2> "$W/$mode/analyze.err" || rc=$?
	check "$mode: sbctl analyze --json exit" "$rc" 3
	echo "-- classes (child: class / sacct state / reason)"
	for i in 0 1 2 3 4 5 6 7; do
		cls=$(jq -r ".children[$i].class" "$W/$mode/status.json")
		st=$($as sacct -X -P -n -j "${A}_$i" --format=State 2>/dev/null | head -n 1)
		echo "   child $i: $cls / $st / $(jq -r ".children[$i].reason // \"\"" "$W/$mode/status.json")"
		check "$mode: child $i class" "$cls" "${exp[$i]}"
		check "$mode: child $i sacct state" "$st" "${states[$i]}"
	done
	check "$mode: analyze counts" "$(jq -S -c '.counts | with_entries(select(.value > 0))' "$W/$mode/analyze.json")" \
		"$(printf '%s\n' "${exp[@]}" | jq -R . | jq -sSc 'group_by(.) | map({(.[0]): length}) | add')"
	check "$mode: analyze score over successes (n mean min max)" \
		"$(jq -r '.groups[0].metrics.score | "\(.n) \(.mean) \(.min) \(.max)"' "$W/$mode/analyze.json")" "3 8.5 6 10.5"
	check "$mode: analyze excluded children" "$(jq -c '[.excluded[].index]' "$W/$mode/analyze.json")" "[0,1,2,3,5]"
	echo "-- every status polled during the run: no final class that later changed"
	check "$mode: statuses polled" "$([ "$(wc -l < "$W/$mode/polls.txt")" -ge 10 ] && echo enough)" enough
	check "$mode: final classes that later changed" "$(changed_finals "$W/$mode/polls.txt")" ""
	echo "-- a grown sweep: reuse"
	check "$mode: grown sweep, children reused and submitted" \
		"$(jq -r '"\(.reused) \([.jobs[].children[]] | length) \(.jobs | length)"' "$W/$mode/grow2.json")" "2 1 1"
	check "$mode: grown sweep, classes" "$(jq -c '.counts | with_entries(select(.value > 0))' "$W/$mode/grow2.status.json")" '{"succeeded":3}'
	check "$mode: grown sweep, reused_from" \
		"$(jq -c '[.children[] | select(.reused_from) | .reused_from.index]' "$W/$mode/grow2.status.json")" "[0,1]"
	echo "-- an early stop"
	check "$mode: early stop, class" "$(jq -r '.children[0].class' "$W/$mode/stop.status.json")" stopped
	check "$mode: early stop, reason" \
		"$(jq -r '.children[0].reason' "$W/$mode/stop.status.json" | grep -oE '^early stop: loss=[0-9]+ above 5')" \
		"$(jq -r '.children[0].reason' "$W/$mode/stop.status.json" | grep -oE '^early stop: loss=([6-9]|[1-9][0-9]+) above 5')"
	check "$mode: early stop, the command did not run to its end" \
		"$(( $(cat "$(jq -r .benchmark.dir "$W/$mode/stop.json")/runs/0/out.txt") < 120 ))" 1
	echo "-- checkpoints and requeue"
	local ck="$W/$mode/ckpt.status.json" pj="$W/$mode/preempt.status.json"
	echo "   child 0: $(jq -c '[.children[0].restarts[] | [.restart, .ended_by, (.resumed_from // "-")[:12], (.checkpoint // "-")[:12]]]' "$ck")"
	check "$mode: checkpoint, signalled child requeued itself twice and succeeded" "$(jq -r '.children[0].class' "$ck")" succeeded
	check "$mode: checkpoint, its runs ended by the signal, then by its finish" \
		"$(jq -r '[.children[0].restarts[].ended_by] | join(",")' "$ck")" "requeue_signal,requeue_signal,finish"
	check "$mode: checkpoint, each restart resumed from the checkpoint the run before it ended with" \
		"$(jq -r '.children[0].restarts as $r | [range(1; $r | length) | $r[.].resumed_from == $r[. - 1].checkpoint and $r[. - 1].checkpoint != null] | all' "$ck")" true
	check "$mode: checkpoint, a replaced checkpoint is caught" \
		"$(jq -r '.children[1].class + ": " + .children[1].reason' "$ck" | grep -oE '^invalid: broken checkpoint chain: restart 1 started from checkpoint [0-9a-f]{12}, but restart 0 ended with')" \
		"invalid: broken checkpoint chain: restart 1 started from checkpoint $(jq -r '.children[1].restarts[1].resumed_from[:12]' "$ck"), but restart 0 ended with"
	echo "   preempted: $(jq -c '[.children[0].restarts[] | [.restart, .ended_by]]' "$pj"); sacct: $(paste -sd ' ' "$W/$mode/preempt.sacct")"
	check "$mode: preemption, the requeued child succeeded" "$(jq -r '.children[0].class' "$pj")" succeeded
	check "$mode: preemption, its runs" "$(jq -r '[.children[0].restarts[].ended_by] | join(",")' "$pj")" "preempted,finish"
	check "$mode: preemption, restart 1 resumed from what restart 0 saved on TERM" \
		"$(jq -r '.children[0].restarts[1].resumed_from == .children[0].restarts[0].checkpoint and .children[0].restarts[0].checkpoint != null' "$pj")" true
	check "$mode: checkpoints, final classes that later changed" "$(changed_finals "$W/$mode/ckpt.polls")" ""
	check "$mode: preemption, final classes that later changed" "$(changed_finals "$W/$mode/preempt.polls")" ""
}
verify real
verify fake

echo "== fidelity: the real Slurm's answers against the fake's ($(elapsed))"
frc=0; SB_FIDELITY_ALLOW_EXTRA=$extra_allow bash "$here/compare.sh" "$W/real/snap" "$W/fake/snap" "$uid" || frc=$?
[ $frc -eq 0 ] || { echo "   FAIL fidelity: unexpected differences (above)"; errors=$((errors + 1)); }

[ $errors -eq 0 ] || fail "$errors check(s) failed"
