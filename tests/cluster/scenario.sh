#!/usr/bin/env bash
# One run of the acceptance scenario, as the ordinary user that runs it,
# against whatever Slurm is first on PATH (real or fake):
#   scenario.sh MODE OUT SPEC
# MODE: real | fake (fake: injects the OOM with `sbfake oom`, since the fake
# limits no memory).  OUT: an empty directory this user owns; everything goes
# there: root/ (the benchmark root), submit.json, snap/<moment>.<what>
# (sacct/squeue/sbatch answers for the fidelity comparison), rec/ (an
# `sbfake record` of the run, real mode only), scenario.log.
# Needs on PATH: sbctl (SB_AGENT set when sbagent is not beside it), the
# Slurm commands, jq.  SBFAKE: the sbfake program (for record/oom).
set -euo pipefail
mode=$1 out=$2 spec=$3
cd "$out"
# a scenario that stops half-way leaves no status poller or recorder behind
trap 'touch polls.stop ckpt.polls.stop preempt.polls.stop; kill $(jobs -p) 2>/dev/null || true' EXIT
mkdir -p snap shim root
log() { printf '[%s %s] %s\n' "$(date +%T)" "$mode" "$*"; }
export SB_ROOT="$out/root" SB_INDEX="$out/index.sqlite"

# sbatch goes through a shim that keeps its arguments, output and status
real_sbatch=$(command -v sbatch)
cat > shim/sbatch <<SHIM
#!/bin/bash
printf '%s\n' "\$*" >> "$out/snap/submit.sbatch-args"
"$real_sbatch" "\$@" > "$out/shim/sbatch.out" 2> "$out/shim/sbatch.err"; rc=\$?
cat "$out/shim/sbatch.out" >> "$out/snap/submit.sbatch-stdout"
cat "$out/shim/sbatch.err" >> "$out/snap/submit.sbatch-stderr"
echo "rc=\$rc" >> "$out/snap/submit.sbatch-stdout"
cat "$out/shim/sbatch.out"; cat "$out/shim/sbatch.err" >&2
exit \$rc
SHIM
chmod +x shim/sbatch
export PATH="$out/shim:$PATH"

SACCT_FIELDS=JobID,JobIDRaw,JobName,State,ExitCode,Timelimit,NodeList,AllocCPUS,Partition,Elapsed,Start,End,User
# snap MOMENT: what sacct and squeue say now about the array
snap() {
	local m=$1
	sacct -X -P -n -j "$A" --format="$SACCT_FIELDS" > "snap/$m.sacct-X" 2>&1 || true
	sacct -P -n -j "$A" --format=JobID,JobIDRaw,JobName,State,ExitCode > "snap/$m.sacct-steps" 2>&1 || true
	squeue -h -r -j "$A" -o '%i|%A|%F|%K|%j|%T|%t|%r|%l|%C|%D' > "snap/$m.squeue-r" 2>&1 || true
	squeue -h -j "$A" -o '%i|%F|%K|%T|%r' > "snap/$m.squeue" 2>&1 || true
}
# state_of TASK: the task's state in squeue (-r), empty when not listed
state_of() { squeue -h -r -j "${A}_$1" -o %T 2>/dev/null | head -n 1 || true; }
# wait_state TASK STATE SECONDS
wait_state() {
	local i
	for ((i = 0; i < $3 * 4; i++)); do
		[ "$(state_of "$1")" = "$2" ] && return 0
		sleep 0.25
	done
	log "task $1 never reached $2 (now: $(state_of "$1"))"; return 1
}

t0=$(date +%s)
log "sbctl submit (PATH: $(command -v sbatch))"
sbctl submit "$spec" --json > submit.json
A=$(jq -r '.jobs[0].job_id' submit.json)
dir=$(jq -r '.benchmark.dir' submit.json)
echo "$A" > array_id
echo "$dir" > bench_dir
log "array job $A, directory $dir"
snap submit

# every second until the benchmark is over: each child's class, as a fresh
# `sbctl status` gives it, one line per poll (acceptance.sh fails when a
# final class is later another: the scheduler's word, not a guess)
(
	while [ ! -e "$out/polls.stop" ]; do
		sbctl status "$dir" --json 2> /dev/null | jq -r '[.children[].class] | join(" ")' >> "$out/polls.txt" || true
		sleep 1
	done
) &
poll_pid=$!

# load, on the real cluster: slurmdbd kept busy while the classes are polled
# (a busy machine is where accounting lags): another user's-style stream of
# short jobs of another name at the lowest priority, and sacct asked for the
# whole day's history in a loop.  Stopped with the polls; its jobs are
# cancelled then.  Only with SB_CLUSTER_LOAD=1 (not in CI: under it, the
# later checkpoint scenario failed once; docs/fake-slurm.md).
if [ "$mode" = real ] && [ "${SB_CLUSTER_LOAD:-0}" = 1 ]; then
	(
		while [ ! -e "$out/polls.stop" ]; do
			"$real_sbatch" --nice=10000 -J sb-load -o /dev/null -e /dev/null --wrap true \
				> /dev/null 2>&1 || true
			sacct -a -X -P -n -S now-1days --format=JobID,State,ExitCode > /dev/null 2>&1 || true
			sleep 0.2
		done
		scancel -n sb-load > /dev/null 2>&1 || true
	) &
	load_pid=$!
fi

if [ "$mode" = real ] && [ -n "${SBFAKE:-}" ]; then
	# record the real run for the replay tests (stopped after the tamper below)
	SB_FAKE_SLURM_DIR="$out/fake-unused" "$SBFAKE" record "$dir" "$out/rec" --interval 1 --duration 600 --jobs "$A" \
		> rec.log 2>&1 &
	rec_pid=$!
fi

# child 1: scancel its task once it runs
wait_state 1 RUNNING 60
wait_state 0 RUNNING 60
sleep 1
snap running
log "scancel ${A}_1"
scancel "${A}_1"
sleep 2
snap cancelled

# child 2: the OOM kill (the fake has no memory limit: inject it)
if [ "$mode" = fake ]; then
	wait_state 2 RUNNING 60
	sleep 2
	log "sbfake oom ${A}_2"
	"$SBFAKE" oom "${A}_2"
fi

log "sbctl wait"
rc=0; sbctl wait "$dir" --timeout 280 --interval 5 > wait.out 2>&1 || rc=$?
log "sbctl wait: exit $rc after $(( $(date +%s) - t0 )) s"
[ "$rc" = 0 ] || [ "$rc" = 3 ] || { cat wait.out; exit 1; }

touch "$out/polls.stop"
wait "$poll_pid" 2>/dev/null || true
if [ -n "${load_pid:-}" ]; then
	wait "$load_pid" 2>/dev/null || true
	log "load: $(sacct -X -n -P -S now-1days --name=sb-load --format=JobID 2>/dev/null | wc -l) short jobs of another name ran beside it"
fi
log "status polled $(wc -l < "$out/polls.txt") times during the run"

# child 5: its result changes after it finished
log "changing runs/5/out.txt after the finish"
echo "edited afterwards" >> "$dir/runs/5/out.txt"
sleep 2
snap final
# what Slurm wrote into each child's output files (its own messages
# included), found where `sbctl output` finds them (jobs/a<N>/c<k>/)
for i in 0 1 2 3 4 5 6 7; do
	: > "snap/final.child$i-out"; : > "snap/final.child$i-err"
	sbctl output "$dir" "$i" | sed -n 's/^== //p' | while IFS= read -r f; do
		case $f in
		*.out) [ -f "$f" ] && cat "$f" >> "snap/final.child$i-out" ;;
		*.err) [ -f "$f" ] && cat "$f" >> "snap/final.child$i-err" ;;
		esac
	done || true
done

# error answers
{
	echo "## sacct --format=ArrayJobID"; sacct -X -P -n -j "$A" --format=ArrayJobID 2>&1; echo "rc=$?"
	echo "## sacct --format=Restarts"; sacct -X -P -n -j "$A" --format=Restarts 2>&1; echo "rc=$?"
	echo "## scancel of a finished task"; scancel "${A}_3" 2>&1; echo "rc=$?"
	echo "## squeue -j of an unknown job"; squeue -h -j 999999 2>&1; echo "rc=$?"
	echo "## sbatch --array above MaxArraySize"; "$real_sbatch" --parsable --array=0-2000 --wrap true 2>&1; echo "rc=$?"
	echo "## sbatch without #!"; printf 'true\n' > noshebang.sh; "$real_sbatch" noshebang.sh 2>&1; echo "rc=$?"
	echo "## scontrol show config"; scontrol show config | grep -E '^(MaxArraySize|KillWait|MinJobAge) '
} > snap/final.errors 2>&1 || true

# a sweep that grows: the second submit reuses the proven children of the
# first (same name, no tag) and submits only the new one.  Its sbatch calls
# bypass the shim: the snapshots compared for fidelity are the first
# benchmark's alone.
export PATH=${PATH#"$out/shim:"}
grow() { # grow VALUES
	printf '%s\n' "name: cluster-grow" \
		"command: [sh, -c, 'echo {x} > out.txt; echo \"score: {x}\" > m.yaml']" \
		"parameters:" "  x: [$1]" "results: [out.txt]" "metrics: m.yaml" "slurm:" '  time: "1"' > grow.yaml
}
grow "1, 2"
log "grown sweep: the first benchmark"
sbctl submit grow.yaml --json > grow1.json
rc=0; sbctl wait "$(jq -r .benchmark.dir grow1.json)" --timeout 120 --interval 2 > grow1.wait 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat grow1.wait; exit 1; }
grow "1, 2, 3"
log "grown sweep: one more value"
sbctl submit grow.yaml --json > grow2.json
rc=0; sbctl wait "$(jq -r .benchmark.dir grow2.json)" --timeout 120 --interval 2 > grow2.wait 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat grow2.wait; exit 1; }
sbctl status "$(jq -r .benchmark.dir grow2.json)" --json > grow2.status.json

# an early stop: the loss rises past the declared threshold; sbagent stops
# the command at a heartbeat (TERM to its group), hashes the results and
# records which rule held
cat > stop.yaml <<'Y'
name: cluster-stop
command: [sh, -c, 'i=0; while [ $i -lt 120 ]; do i=$((i+1)); echo "loss: $i" > m.yaml; echo $i > out.txt; sleep 0.5; done']
results: [out.txt]
metrics: m.yaml
heartbeat: 1
early_stop:
  - {metric: loss, above: 5}
slurm:
  time: "1"
Y
log "early stop: a rising loss"
sbctl submit stop.yaml --json > stop.json
rc=0; sbctl wait "$(jq -r .benchmark.dir stop.json)" --timeout 120 --interval 2 > stop.wait 2>&1 || rc=$?
[ "$rc" = 3 ] || { echo "early stop: wait exit $rc, not 3"; cat stop.wait; exit 1; }
sbctl status "$(jq -r .benchmark.dir stop.json)" --json > stop.status.json || true

# checkpoints and requeue (docs/spec.md "Checkpoints and requeue"): each
# run works until the signal (or a TERM) asks it to checkpoint, saves its
# stage and exits; a run that finds its last stage works 3 s more and
# finishes.  Child 0 (2 stages) is signalled before its 1-minute limit
# twice (Slurm sends --signal=B:USR1@30 up to a minute early), requeues
# itself each time and finishes on its third run, after 2 restarts; child
# 1's checkpoint (1 stage) is replaced between its runs.
cat > train.py <<'PY'
import os, signal, sys, time
stop = False
def request(sig, frame):
    global stop
    stop = True
signal.signal(getattr(signal, "SIG" + os.environ.get("SB_CHECKPOINT_SIGNAL", "USR1")), request)
signal.signal(signal.SIGTERM, request)
stage = int(open("ckpt.txt").read()) if os.path.exists("ckpt.txt") else 0
if stage >= int(os.environ.get("STAGES", "1")):
    time.sleep(3)
    open("model.txt", "w").write("trained, stage %d\n" % stage)
    sys.exit(0)
while not stop:
    time.sleep(0.2)
open("ckpt.tmp", "w").write(str(stage + 1))
os.replace("ckpt.tmp", "ckpt.txt")
PY
ckspec() { # ckspec NAME TIME [MORE-LINES]
	printf '%s\n' "name: $1" "command: [python3, \"{spec_dir}/train.py\"]" ${3:+"$3"} \
		"heartbeat: 2" "results: [model.txt]" "slurm:" "  time: \"$2\"" \
		"checkpoint: {files: [ckpt.txt], before: 30}" > "$1.yaml"
}
# poll_classes DIR OUT: each child's class every second until OUT.stop exists
poll_classes() {
	while [ ! -e "$2.stop" ]; do
		sbctl status "$1" --json 2> /dev/null | jq -r '[.children[].class] | join(" ")' >> "$2" || true
		sleep 1
	done
}
# child 0 needs 2 stages, child 1 one
ckspec cluster-ckpt 1 'parameters: {stages: ["2", "1"]}
env: {STAGES: "{stages}"}'
log "checkpoints: a 1-minute limit, the signal 30 s before it"
sbctl submit cluster-ckpt.yaml --json > ckpt.json
ckdir=$(jq -r .benchmark.dir ckpt.json)
poll_classes "$ckdir" "$out/ckpt.polls" &
ckpoll=$!
# child 1: its first run's finish is there; its next run waits: replace
r0=
for ((i = 0; i < 400; i++)); do
	r0=$(ls "$ckdir"/events/*/1.a0.j*.r0.log 2>/dev/null | head -n 1) || true
	[ -n "$r0" ] && sbctl log "$r0" --json 2>/dev/null | grep -q '"type":"finish"' && break
	sleep 0.25
done
log "replacing child 1's checkpoint between its runs"
echo 7 > "$ckdir/runs/1/ckpt.txt"
rc=0; sbctl wait "$ckdir" --timeout 150 --interval 2 > ckpt.wait 2>&1 || rc=$?
[ "$rc" = 3 ] || { echo "checkpoints: wait exit $rc, not 3"; cat ckpt.wait; exit 1; }
touch "$out/ckpt.polls.stop"; wait "$ckpoll" 2>/dev/null || true
sbctl status "$ckdir" --json > ckpt.status.json || true

# preemption: a job of a higher-priority partition takes the node
# (PreemptType=preempt/partition_prio, PreemptMode=REQUEUE); the command
# saves on TERM, Slurm requeues the job, its next run resumes
ckspec cluster-preempt 10
log "preemption by a higher-priority partition"
sbctl submit cluster-preempt.yaml --json > preempt.json
pdir=$(jq -r .benchmark.dir preempt.json)
P=$(jq -r '.jobs[0].job_id' preempt.json)
poll_classes "$pdir" "$out/preempt.polls" &
ppoll=$!
for ((i = 0; i < 240; i++)); do
	ls "$pdir"/events/*/0.a0.j*.r0.log > /dev/null 2>&1 && break
	sleep 0.25
done
sleep 1
if [ "$mode" = fake ]; then
	"$SBFAKE" preempt --requeue "${P}_0"
else
	sbatch -Q -p urgent --exclusive --time=1 --wrap 'sleep 2' -o /dev/null
fi
rc=0; sbctl wait "$pdir" --timeout 120 --interval 2 > preempt.wait 2>&1 || rc=$?
[ "$rc" = 0 ] || { echo "preemption: wait exit $rc, not 0"; cat preempt.wait; exit 1; }
touch "$out/preempt.polls.stop"; wait "$ppoll" 2>/dev/null || true
sbctl status "$pdir" --json > preempt.status.json || true
sacct -X -D -P -n -j "$P" --format=JobID,State,ExitCode > preempt.sacct 2>&1 || true

if [ -n "${rec_pid:-}" ]; then
	sleep 2
	kill "$rec_pid" 2>/dev/null || true
	wait "$rec_pid" 2>/dev/null || true
fi
log "done after $(( $(date +%s) - t0 )) s"
