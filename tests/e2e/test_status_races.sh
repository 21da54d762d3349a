#!/bin/bash
# sbctl status and wait when evidence arrives out of step: no transient
# false verdict.  (a) A job that ends between the scheduler's answer and the
# reading of its log: the scheduler is asked first, so its log is seen
# finished.  (b) A log whose finish shows up late on shared storage (the job
# COMPLETED, the log has no finish yet): the child stays running for the
# settle time since the job's End, and wait waits for the finish.  (c) An
# sacct outage during wait: it retries, says so, and ends with the right
# verdicts.  (d) A wait started while a slow sbatch runs: the children are
# being submitted, not missing; (d2) one started while the submit is still
# creating the directory waits for it; (d3) a job that finishes before its
# submit records the job id is running, not inconsistent.  (e) A chunk
# submitted twice: detected, reported, and the same bytes whatever the order
# of the files.
. "$(dirname "$0")/lib.sh"

TAMPER=${SB_BUILD:?SB_BUILD must name the build directory}/tests/sbtamper
SUBMREC=$SB_BUILD/tests/sbsubmrec
export SB_FAKE_MIN_JOB_AGE=0

# -- (a) the job ends between the two reads ----------------------------------
# The child waits for a file; the sacct wrapper creates it and answers only
# once the job is over.  Had status read the log before asking sacct, it
# would see a start and no finish, then COMPLETED: "incomplete".
dir=$(submit_spec order "name: order
command: [sh, -c, 'while [ ! -e go ]; do sleep 0.05; done']
heartbeat: 1")
wait_for 10 started "$dir" 0
cat > "$SHIM/sacct" <<SH
#!/bin/bash
if [ -e "$T_ROOT/arm" ] && [ ! -e "$dir/runs/0/go" ]; then
	touch "$dir/runs/0/go"
	for i in \$(seq 200); do
		[ -z "\$("$SB_FAKE_BIN/squeue" -h -o %i)" ] && break
		sleep 0.05
	done
fi
exec "$SB_FAKE_BIN/sacct" "\$@"
SH
chmod +x "$SHIM/sacct"
touch "$T_ROOT/arm"
st o.json "$dir" --settle 0
expect "read order: exit 0" "$?" 0
expect_child o.json 0 succeeded '^$'
expect "read order: the job ended while status ran" "$(acct "$(array_of order)_0" State)" COMPLETED
rm -f "$SHIM/sacct" "$T_ROOT/arm"

# -- (b) the finish reaches shared storage after the job's End ---------------
dir=$(submit_spec lag "name: lag
command: [true]")
wait_for 10 all_done
wait_for 10 acct_is "$(array_of lag)_0" State COMPLETED
f=$(log_of "$dir" 0)
cp "$f" full.log
last=$("$TAMPER" frames full.log | tail -n 1 | cut -d' ' -f2)
"$TAMPER" truncate full.log "$last" "$f"
expect "lag: the log as seen before its finish arrives" "$(log_types "$f")" "start "
nsub=$(ls "$dir/submissions" | wc -l)
st g.json "$dir" --settle 30
expect "lag: exit 3 while settling" "$?" 3
expect_child g.json 0 running "^job $(array_of lag)_0 ended [0-9]+ s ago \\(COMPLETED\\); waiting up to 30 s for its finish record$"
expect "lag: no outcome recorded for a verdict still settling" "$(ls "$dir/submissions" | wc -l)" "$nsub"
"$SBCTL" wait "$dir" --settle 30 --interval 0.2 --timeout 60 > gw.out 2> gw.err &
wpid=$!
sleep 0.5
expect "lag: wait is still waiting for the finish" "$(kill -0 $wpid 2>/dev/null && echo waiting)" waiting
cp full.log "$f.new" && mv "$f.new" "$f"
wait $wpid
expect "lag: wait returns 0 once the finish is there" "$?" 0
expect_match "lag: wait's summary" "$(cat gw.out)" '  succeeded +1'

# -- (c) an sacct outage during wait ----------------------------------------
dir=$(submit_spec outage "name: outage
command: [true]")
wait_for 10 all_done
cat > "$SHIM/sacct" <<SH
#!/bin/bash
echo call >> "$T_ROOT/calls.outage"
if [ "\$(wc -l < "$T_ROOT/calls.outage")" -le 3 ]; then
	echo 'sacct: error: Problem talking to the database: Connection refused' >&2
	exit 1
fi
exec "$SB_FAKE_BIN/sacct" "\$@"
SH
chmod +x "$SHIM/sacct"
"$SBCTL" status "$dir" > /dev/null 2> out1.err
expect "outage: a plain status exits 1" "$?" 1
expect_match "outage: status says why and suggests --offline" "$(cat out1.err)" \
	'^sbctl status: sacct failed: sacct: error: Problem talking to the database: Connection refused \(use --offline'
"$SBCTL" wait "$dir" --interval 0.2 --timeout 60 --settle 10 > ow.out 2> ow.err
expect "outage: wait survives it and returns 0" "$?" 0
expect "outage: wait said it retried, twice (the third failure was status's)" \
	"$(grep -c '^sbctl wait: sacct failed: sacct: error: Problem talking to the database: Connection refused; retrying in 0.2 s$' ow.err)" 2
expect_match "outage: wait's summary" "$(cat ow.out)" '  succeeded +1'
# an sacct that hangs: each call is bounded by what is left of --timeout,
# and wait says so
cat > "$SHIM/sacct" <<SH
#!/bin/bash
exec sleep 60
SH
chmod +x "$SHIM/sacct"
t0=$(date +%s)
"$SBCTL" wait "$dir" --interval 0.2 --timeout 2 --settle 0 > /dev/null 2> hw.err
expect "hung sacct: wait exits 1 at its timeout" "$?" 1
expect "hung sacct: within its timeout, not sacct's 120 s" "$(( $(date +%s) - t0 < 20 ))" 1
expect_match "hung sacct: wait says sacct did not answer" "$(head -n 1 hw.err)" \
	'^sbctl wait: sacct failed: no answer within [0-9.]+ s; retrying in [0-9.]+ s$'
rm -f "$SHIM/sacct"

# -- (d) a wait started while a slow sbatch runs ------------------------------
shim sbatch 'sleep 3'
write_spec slow.yaml "name: slow
command: [true]
parameters:
  x: [1, 2]"
"$SBCTL" submit slow.yaml --json > slow.json 2> slow.err &
spid=$!
intent() { ls "$SB_ROOT"/slow-*/submissions/*.log > /dev/null 2>&1; }
wait_for 20 intent
dir=$(ls -d "$SB_ROOT"/slow-*)
st s.json "$dir" --settle 0
expect "slow submit: status exits 3 while it runs" "$?" 3
expect_child s.json 0 pending '^being submitted \(a submit of this benchmark is running'
expect "slow submit: nothing missing" "$(jqf s.json .counts.missing)" 0
# --settle 10, not 0: the fake job stays RUNNING for a moment after its finish
# record, and with no settle time that moment is rightly "inconsistent"
"$SBCTL" wait "$dir" --interval 0.2 --timeout 60 --settle 10 > sw.out 2> sw.err
expect "slow submit: wait waits for it and returns 0" "$?" 0
expect_match "slow submit: wait's summary" "$(cat sw.out)" '  succeeded +2'
wait $spid
expect "slow submit: the submit itself succeeded" "$?" 0
rm -f "$SHIM/sbatch"

# -- (d2) a wait started while the submit is still creating the directory --
# The directory exists and its lock is held (by sbholdlock, standing for the
# submit that is writing it): the submit launched now waits for the lock,
# and so does wait, instead of exiting 2 ("names no benchmark").
write_spec early.yaml "name: early
command: [true]"
edir=$("$SBCTL" submit early.yaml --dry-run | sed -n 's/^directory \(.*\) (not created: --dry-run)$/\1/p')
expect_match "early: the directory it will create" "$edir" "^$SB_ROOT/early-[0-9a-f]{12}\$"
mkdir -p "$edir"
coproc HOLD { exec "$SB_BUILD/tests/sbholdlock" "$edir/lock"; }
read -r -u "${HOLD[0]}" line
expect "early: the lock is held" "$line" locked
"$SBCTL" submit early.yaml --json > early.json 2> early.err &
epid=$!
"$SBCTL" wait "$edir" --interval 0.2 --timeout 60 --settle 10 > ew.out 2> ew.err &
ewpid=$!
retrying() { grep -q 'being created by a submit; retrying' ew.err; }
wait_for 20 retrying
expect "early: wait is still waiting" "$(kill -0 $ewpid 2>/dev/null && echo waiting)" waiting
eval "exec ${HOLD[1]}>&-" # the lock's holder goes
wait $ewpid
expect "early: wait returns 0 once the benchmark ran" "$?" 0
expect_match "early: wait's summary" "$(cat ew.out)" '  succeeded +1'
wait $epid
expect "early: the submit succeeded" "$?" 0

# -- (d2b) the lock between two holders -------------------------------------
# The submit that made the directory lets go of its lock before the one
# that waited for it takes it: a poll in that gap sees a directory with no
# record and no lock holder, which is still no verdict (10 s of grace).
write_spec gap.yaml "name: gap
command: [true]"
gdir=$("$SBCTL" submit gap.yaml --dry-run | sed -n 's/^directory \(.*\) (not created: --dry-run)$/\1/p')
mkdir -p "$gdir"
coproc HOLD2 { exec "$SB_BUILD/tests/sbholdlock" "$gdir/lock"; }
read -r -u "${HOLD2[0]}" line
"$SBCTL" wait "$gdir" --interval 0.2 --timeout 60 --settle 10 > gw.out 2> gw.err &
gwpid=$!
gretrying() { grep -q 'being created by a submit; retrying' gw.err; }
wait_for 20 gretrying
eval "exec ${HOLD2[1]}>&-" # the first holder goes; nobody holds the lock
sleep 0.3                 # a poll or two in the gap
expect "gap: wait is still waiting after a poll with no lock holder" \
	"$(kill -0 $gwpid 2>/dev/null && echo waiting)" waiting
"$SBCTL" submit gap.yaml --json > gap.json 2> gap.err
expect "gap: the submit succeeded" "$?" 0
wait $gwpid
expect "gap: wait returns 0 once the benchmark ran" "$?" 0

# -- (d3) the job finishes before its submit records the job id --------------
# sbatch has answered, the job ran and its log has its finish, but the submit
# has not written the job id yet: the scheduler was not asked about the job,
# so its silence is no evidence.  Not "inconsistent", even with --settle 0.
cat > "$SHIM/sbatch" <<SH
#!/bin/bash
out=\$("$SB_FAKE_BIN/sbatch" "\$@") || exit
while [ ! -e "$T_ROOT/answer" ]; do sleep 0.05; done
printf '%s\n' "\$out"
SH
chmod +x "$SHIM/sbatch"
write_spec quick.yaml "name: quick
command: [true]"
"$SBCTL" submit quick.yaml --json > quick.json 2> quick.err &
qpid=$!
qdir() { ls -d "$SB_ROOT"/quick-* > /dev/null 2>&1; }
wait_for 20 qdir
dir=$(ls -d "$SB_ROOT"/quick-*)
finished() { [[ "$(log_types "$(log_of "$dir" 0)")" == *finish* ]]; }
wait_for 20 finished
st q.json "$dir" --settle 0
expect "quick: status exits 3 while the job id is not recorded" "$?" 3
expect_child q.json 0 running '^finished with exit 0; its job id is not recorded yet'
touch "$T_ROOT/answer"
wait $qpid
expect "quick: the submit succeeded" "$?" 0
st q2.json "$dir" --settle 0
expect "quick: then status exits 0" "$?" 0
expect_child q2.json 0 succeeded '^$'
rm -f "$SHIM/sbatch"

# -- (e) a chunk submitted twice ------------------------------------------------
# A second SUBMITTED record for chunk 0, another job id, the same time as the
# first: the choice must not depend on which file sorts first.
dir=$(submit_spec dup "name: dup
command: [true]
parameters:
  x: [1, 2]")
a=$(array_of dup)
wait_for 10 all_done
wait_for 10 acct_is "$a" State "COMPLETED
COMPLETED"
orig=$(ls "$dir"/submissions/*.log)
# (the time from the JSON text itself: jq's doubles would round it)
t=$("$SBCTL" log "$orig" --json | grep '"type": *"submitted"' | sed 's/.*"time_ns": *\([0-9]*\).*/\1/')
expect_match "dup: the first record's time" "$t" '^[0-9]{19}$'
"$SUBMREC" "$dir/keys/hmac.key" "$dir/submissions/0-crafted.log" "$(jqf dup.submit.json .benchmark.digest)" \
	0 0 999999 "$t"
expect "dup: the crafted record verifies" "$(log_types "$dir/submissions/0-crafted.log")" "submitted "
st /dev/null "$dir" --settle 0 2> /dev/null # records the outcomes, so both runs below see the same
st d1.json "$dir" --settle 0 2> d1.err
expect "dup: exit 0 (the first array succeeded)" "$?" 0
mv "$dir/submissions/0-crafted.log" "$dir/submissions/zzzz-crafted.log"
st d2.json "$dir" --settle 0 2> d2.err
expect "dup: the same bytes whatever the order of the files" "$(cmp d1.json d2.json && echo same)" same
expect "dup: the same warning" "$(cat d2.err)" "$(cat d1.err)"
expect "dup: the warning names both arrays" "$(cat d1.err)" \
	"sbctl status: warning: chunk 0 of attempt 0 was submitted more than once (arrays $a and 999999); its children are classified by array $a"
expect_child d1.json 1 succeeded "^chunk 0 of attempt 0 was submitted more than once \\(arrays $a and 999999\\): classified by array $a$"
expect "dup: the children's job ids" "$(jq -r '[.children[].job_id] | join(" ")' d1.json)" "${a}_0 ${a}_1"

t_done
