#!/bin/bash
# Training that outlives its time limit (docs/spec.md "Checkpoints and
# requeue", docs/classification.md "Restarts and checkpoints"): the job is
# signalled before its limit, the command checkpoints, sbagent records the
# checkpoint's digest and requeues the job, the next run starts from it.
# A child succeeds only when every restart started from exactly the
# checkpoint its predecessor recorded; a replaced checkpoint, a stale one at
# a fresh start, giving up after max_restarts and a failed requeue are
# each caught with the restart and the digest named.  Every status seen
# while the runs go on is polled: no final class ever changes.
. "$(dirname "$0")/lib.sh"
export SB_FAKE_KILLWAIT=3

# EPOCHS steps of STEP seconds; on the checkpoint signal (or TERM) it saves
# its epoch atomically and exits 0; it resumes from ckpt.txt when there
cat > train.py <<'PY'
import os, signal, sys, time
epochs, step = int(os.environ.get("EPOCHS", "10")), float(os.environ.get("STEP", "0.5"))
stop = False
def handler(sig, frame):
    global stop
    stop = True
signal.signal(getattr(signal, "SIG" + os.environ.get("SB_CHECKPOINT_SIGNAL", "USR1")), handler)
signal.signal(signal.SIGTERM, handler)
epoch = int(open("ckpt.txt").read()) if os.path.exists("ckpt.txt") else 0
while epoch < epochs:
    time.sleep(step)
    epoch += 1
    if stop:
        open("ckpt.tmp", "w").write(str(epoch))
        os.replace("ckpt.tmp", "ckpt.txt")
        sys.exit(0)
open("model.txt", "w").write("trained %d epochs\n" % epoch)
PY

# spec NAME EPOCHS MAX_RESTARTS TIME [EXTRA-LINE]
spec() {
	printf 'name: %s\ncommand: [python3, "{spec_dir}/train.py"]\nenv: {EPOCHS: "%s"}\nheartbeat: 1\nresults: [model.txt]\nslurm: {time: "%s"}\ncheckpoint: {files: [ckpt.txt], before: 2, max_restarts: %s}\n%s\n' \
		"$1" "$2" "$4" "$3" "${5:-}"
}

# poll DIR SECONDS OUT: status every 0.3 s until the child is in a final
# class (or the time is up), every class seen appended to OUT
poll() {
	local end=$(( $(date +%s) + $2 )) c
	: > "$3"
	while [ "$(date +%s)" -le "$end" ]; do
		"$SBCTL" status "$1" --json > poll.json 2>/dev/null
		c=$(jq -r '.children[0].class' poll.json)
		echo "$c" >> "$3"
		case $c in pending|running) sleep 0.3 ;; *) break ;; esac
	done
}

# ---- the spec section: errors, the digest, what sbatch is asked ----------
write_spec bad1.yaml "$(printf 'name: b\ncommand: [true]\ncheckpoint: {signal: USR1}')"
"$SBCTL" plan bad1.yaml > /dev/null 2> bad1.err
expect "a checkpoint without files: exit 2" "$?" 2
expect_match "it says what is missing" "$(cat bad1.err)" "bad1.yaml:3:13: 'checkpoint' needs 'files'"
write_spec bad2.yaml "$(printf 'name: b\ncommand: [true]\ncheckpoint: {files: [c], signal: KILL}')"
"$SBCTL" plan bad2.yaml > /dev/null 2> bad2.err
expect_match "an unknown signal is refused at its place" "$(cat bad2.err)" \
	"bad2.yaml:3:[0-9]+: checkpoint 'signal' is 'KILL', not one of USR1, USR2, TERM, INT, HUP, QUIT"
write_spec bad3.yaml "$(printf 'name: b\ncommand: [true]\ncheckpoint: {files: [../c]}')"
"$SBCTL" plan bad3.yaml > /dev/null 2> bad3.err
expect_match "a checkpoint outside the run directory is refused" "$(cat bad3.err)" "leaves the run directory"
write_spec bad4.yaml "$(printf 'name: b\ncommand: [true]\ncheckpoint: {files: [c], requeue_on: [oom]}')"
"$SBCTL" plan bad4.yaml > /dev/null 2> bad4.err
expect_match "an unknown cause is refused" "$(cat bad4.err)" "requeue_on' names 'oom', not one of timeout, preempt, node_fail"
write_spec bad5.yaml "$(printf 'name: b\ncommand: [true]\nslurm: {extra: ["--signal=B:USR2@10"]}\ncheckpoint: {files: [c]}')"
"$SBCTL" plan bad5.yaml > /dev/null 2> bad5.err
expect_match "slurm.extra may not ask for the signal itself" "$(cat bad5.err)" \
	"slurm 'extra' has '--signal=B:USR2@10', which 'checkpoint' sets itself \(--signal=B:USR1@90 and --requeue\)"
write_spec d1.yaml "$(printf 'name: d\ncommand: [true]')"
write_spec d2.yaml "$(printf 'name: d\ncommand: [true]\ncheckpoint: {files: [c]}')"
write_spec d3.yaml "$(printf 'name: d\ncommand: [true]\ncheckpoint: {files: [c], max_restarts: 4}')"
d1=$("$SBCTL" plan d1.yaml --json | jq -r '.children[0].digest')
d2=$("$SBCTL" plan d2.yaml --json | jq -r '.children[0].digest')
d3=$("$SBCTL" plan d3.yaml --json | jq -r '.children[0].digest')
expect "the section enters the child digest" "$([ "$d1" != "$d2" ] && [ "$d2" != "$d3" ] && echo differ)" differ
shim sbatch "printf '%s\\n' \"\$*\" >> '$T_ROOT/sbatch.args'"

# ---- 1. a run of 10 epochs under a 4 s limit: two or more restarts ------
# (about 4 epochs a run; on a loaded machine Python's start eats into the
# 2 s before the signal and a run may do fewer: up to 12 restarts allowed)
spec train 10 12 4 > train.yaml
dir=$(submit_spec train "$(cat train.yaml)")
a=$(array_of train)
expect_match "sbatch is asked for the signal before the limit and for requeue" \
	"$(cat "$T_ROOT/sbatch.args")" "--signal=B:USR1@2 --requeue"
poll "$dir" 90 seen1.txt
st s1.json "$dir"
expect_child s1.json 0 succeeded '^$'
expect "no status during the run showed a final class" "$(grep -cvE '^(pending|running|succeeded)$' seen1.txt)" 0
n=$(jq '.children[0].restarts | length' s1.json)
expect "it ran three times or more" "$([ "$n" -ge 3 ] && echo yes)" yes
expect "every run but the last ended by the pre-timeout signal, the last by its finish" \
	"$(jq -r '[.children[0].restarts[].ended_by] | .[:-1] | unique | join(",")' s1.json)/$(jq -r '.children[0].restarts[-1].ended_by' s1.json)" \
	"requeue_signal/finish"
expect "restart k started from the checkpoint restart k-1 ended with" \
	"$(jq '[.children[0].restarts as $r | range(1; $r | length) | select($r[.].resumed_from != $r[. - 1].checkpoint)] | length' s1.json)" 0
expect "restart 0 started from none" "$(jq -r '.children[0].restarts[0].resumed_from' s1.json)" null
expect "each has its node and times" \
	"$(jq -r '[.children[0].restarts[] | (.node != null and .started != null and .ended != null)] | all' s1.json)" true
expect "the restarts are numbered in order" "$(jq -c '[.children[0].restarts[].restart]' s1.json)" \
	"$(jq -c '[range(0; '"$n"')]' -n)"
expect "the total run time adds the runs" "$(jq '.children[0].total_run_s > 4' s1.json)" true
expect "the trained model is the result" "$(cat "$dir/runs/0/model.txt")" "trained 10 epochs"
expect "the scheduler ran the job as many times" "$(sacct -X -D -n -P -j "${a}_0" -o State | wc -l)" "$n"
"$SBCTL" log "$(ls "$dir"/events/*/0.a0.j*.r0.log)" > log0.txt
expect_match "sbctl log shows the interruption and the checkpoint" "$(cat log0.txt)" \
	"interrupted\{by=requeue_signal .*requeue=true .*\} checkpoint=[0-9a-f]{12}"

# ---- 2. the checkpoint replaced between two restarts: invalid -----------
export SB_FAKE_REQUEUE_DELAY=3
spec swap 10 5 4 > swap.yaml
dir=$(submit_spec swap "$(cat swap.yaml)")
a=$(array_of swap)
r0() { [[ "$(log_types "$(ls "$dir"/events/*/0.a0.j*.r0.log 2>/dev/null)")" == *finish* ]]; }
wait_for 30 r0
echo 999 > "$dir/runs/0/ckpt.txt"
poll "$dir" 60 seen2.txt
st s2.json "$dir"
expect_child s2.json 0 invalid \
	"^broken checkpoint chain: restart 1 started from checkpoint [0-9a-f]{12}, but restart 0 ended with checkpoint [0-9a-f]{12}$"
expect "the digests in the reason are the two runs'" \
	"$(jq -r '.children[0].reason' s2.json | grep -o '[0-9a-f]\{12\}' | tr '\n' ' ')" \
	"$(jq -r '.children[0].restarts[1].resumed_from[:12] + " " + .children[0].restarts[0].checkpoint[:12] + " "' s2.json)"
unset SB_FAKE_REQUEUE_DELAY

# ---- 3. more restarts than allowed: killed, "gave up" -------------------
# 4 epochs a run (the signal comes 2 s in): 4, 8, then it gives up (on a
# loaded machine a run may do fewer, or be signalled before Python has its
# handler: it gives up all the same)
spec giveup 10 1 4 > giveup.yaml
dir=$(submit_spec giveup "$(cat giveup.yaml)")
a=$(array_of giveup)
poll "$dir" 60 seen3.txt
st s3.json "$dir"
expect_child s3.json 0 killed \
	"^gave up after 1 restarts: interrupted by SIGUSR1 before the time limit again at restart 1 \(checkpoint ([0-9a-f]{12}|none)\), and checkpoint max_restarts is 1; the scheduler says job ${a}_0 is [A-Z]+ with no run after it$"
expect "two runs" "$(jq '.children[0].restarts | length' s3.json)" 2
expect "no status during the run showed a final class but the last" "$(grep -cvE '^(pending|running|killed)$' seen3.txt)" 0

# a rerun resumes from the checkpoint the previous attempt ended with:
# restart 0 of attempt 1 starts from it (epoch 8), the chain holds
# (with a longer limit: its run finishes the two epochs left before the
# signal, however loaded the machine)
"$SBCTL" rerun "$dir" --only killed --time 20 > /dev/null 2> rr.err
expect "rerun: exit 0" "$?" 0
poll "$dir" 60 seen3b.txt
st s3b.json "$dir"
expect_child s3b.json 0 succeeded '^$'
expect "attempt 1 started from attempt 0's last checkpoint" \
	"$(jq -r '.children[0].restarts[0].resumed_from' s3b.json)" \
	"$(jq -r '.children[0].restarts[-1].checkpoint' s3.json)"

# ---- 4. a checkpoint nobody recorded at a fresh start: invalid ----------
# (the job begins 3 s after its submission: the file is there before)
spec stale 6 5 100 'slurm: {time: "100", extra: ["--begin=now+3"]}' | grep -v '^slurm: {time: "100"}$' > stale.yaml
dir=$(submit_spec stale "$(cat stale.yaml)")
mkdir -p "$dir/runs/0" && echo 3 > "$dir/runs/0/ckpt.txt"
poll "$dir" 30 seen4.txt
st s4.json "$dir"
expect_child s4.json 0 invalid \
	"^restart 0 started from checkpoint [0-9a-f]{12}, which no earlier run of this child recorded at its end"

# ---- 5. preemption: SIGTERM, the command checkpoints, Slurm requeues -----
spec preempt 12 5 100 > preempt.yaml
dir=$(submit_spec preempt "$(cat preempt.yaml)")
a=$(array_of preempt)
wait_for 20 started "$dir" 0
sleep 1.5
sbfake preempt --requeue "${a}_0" > /dev/null
poll "$dir" 60 seen5.txt
st s5.json "$dir"
expect_child s5.json 0 succeeded '^$'
expect "restart 0 ended preempted, restart 1 by its finish" \
	"$(jq -r '[.children[0].restarts[].ended_by] | join(",")' s5.json)" "preempted,finish"
expect "restart 1 resumed from restart 0's checkpoint" \
	"$(jq -r '.children[0].restarts[1].resumed_from == .children[0].restarts[0].checkpoint' s5.json)" true

# ---- 6. the requeue fails: the finish said requeued, nothing ran again --
shim scontrol '[ "$1" = requeue ] && { echo "scontrol: error: Requeue of job $2 refused" >&2; exit 1; }'
spec norq 10 5 4 > norq.yaml
dir=$(submit_spec norq "$(cat norq.yaml)")
a=$(array_of norq)
poll "$dir" 40 seen6.txt
st s6.json "$dir" --settle 2
expect_child s6.json 0 killed \
	"^interrupted by SIGUSR1 before the time limit at restart 0 with checkpoint [0-9a-f]{12}, and requeued; the scheduler says job ${a}_0 is COMPLETED with no run after it$"
expect_match "the job's stderr says why" "$(cat "$dir"/jobs/a0/c0/*.err 2>/dev/null)" \
	"but the job could not be requeued: scontrol requeue ${a}_0 exited 1"
rm -f "$SHIM/scontrol"

# ---- 8. a node failure: no finish; Slurm requeues (requeue_on node_fail) --
# the run after it must start from none: a checkpoint it finds was never
# recorded by a finish, and proves nothing
node_spec() { spec "$1" 6 5 100 | sed 's/max_restarts: 5}/max_restarts: 5, requeue_on: [node_fail, timeout]}/'; }
node_spec nodefail > nodefail.yaml
dir=$(submit_spec nodefail "$(cat nodefail.yaml)")
a=$(array_of nodefail)
wait_for 20 started "$dir" 0
sleep 0.5
sbfake fail-node --requeue "${a}_0" > /dev/null
poll "$dir" 40 seen8.txt
st s8.json "$dir"
expect_child s8.json 0 succeeded '^$'
expect "the failed node's run ended by node_fail, the next by its finish" \
	"$(jq -r '[.children[0].restarts[].ended_by] | join(",")' s8.json)" "node_fail,finish"
expect "no status during the requeue showed a final class" "$(grep -cvE '^(pending|running|succeeded)$' seen8.txt)" 0
node_spec nodefail2 > nodefail2.yaml
dir=$(submit_spec nodefail2 "$(cat nodefail2.yaml)")
a=$(array_of nodefail2)
wait_for 20 started "$dir" 0
echo 2 > "$dir/runs/0/ckpt.txt" # a checkpoint saved between two signals
sbfake fail-node --requeue "${a}_0" > /dev/null
poll "$dir" 40 seen8b.txt
st s8b.json "$dir"
expect_child s8b.json 0 invalid \
	"^broken checkpoint chain: restart 1 started from checkpoint [0-9a-f]{12}, but restart 0 ended without a finish \(a node failure, a kill\), so no checkpoint of it is proven$"

# ---- 7. in an array, only the interrupted task is requeued --------------
# (the task whose raw id is the array's own id must not requeue the array)
# (the short child has no epoch to run: done long before the signal, 4 s
# in, even on a loaded machine)
printf 'name: pair\ncommand: [python3, "{spec_dir}/train.py"]\nparameters: {e: ["0", "10"]}\nenv: {EPOCHS: "{e}"}\nheartbeat: 1\nresults: [model.txt]\nslurm: {time: "6"}\ncheckpoint: {files: [ckpt.txt], before: 2}\n' > pair.yaml
dir=$(submit_spec pair "$(cat pair.yaml)")
a=$(array_of pair)
wait_for 60 eval '[ "$("$SBCTL" status "$dir" --json | jq -r "[.children[].class] | join(\",\")")" = succeeded,succeeded ]'
st s7.json "$dir"
expect "the short child ran once, the long one more" \
	"$(jq -r '[.children[].restarts | length > 1] | join(",")' s7.json)" "false,true"
expect "the scheduler ran the short child's task once" "$(sacct -X -D -n -P -j "${a}_0" -o State | wc -l)" 1
t_done
