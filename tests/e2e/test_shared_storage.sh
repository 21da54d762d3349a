#!/bin/bash
# Shared storage (docs/shared-storage.md), on this machine's local file
# system: the storage lag set by hand stands for a client that shows other
# nodes' writes late, an owner file written as another node writes it
# stands for a submit running there.  (tests/storage/ runs the same over a
# real caching client, sshfs.)
# (a) the storage lag: a child whose log has no finish stays running for
#     the settle time plus the lag after its job's End, then incomplete;
#     --storage-lag, SB_STORAGE_LAG and auto (0 on a local file system)
# (b) wait for a directory another node made: retried for settle + lag
# (c) the lock of another node: a submit waits for it, and refuses one
#     abandoned (never broken); status counts it as a submit running
# (d) a benchmark made through another node, whose record and submissions
#     this node does not show: its jobs are found by name, none twice
. "$(dirname "$0")/lib.sh"

now() { date +%s; }
owner_file() { # DIR AGE: the owner file of pid 4242 on node login2, renewed AGE s ago
	local t=$(( $(now) - $2 ))
	printf 'sbench-lock 1 host=login2 boot=b0b mntns=mnt:[1] pid=4242 since=%s renewed=%s\n' \
		"$((t - 5))" "$t" > "$1/lock.owner"
}

# ---- (a) the storage lag ---------------------------------------------------------
# sbagent dies (SIGKILL from its command): no finish record, the job ends
dir=$(submit_spec torn 'name: torn
command: [sh, -c, "kill -9 $PPID; sleep 1"]
heartbeat: 1')
a=$(array_of torn)
wait_for 30 eval '[ -n "$(sacct -X -n -P -j "${a}_0" -o End | grep -v Unknown)" ]'
st s_auto.json "$dir" --settle 1
expect "auto on a local file system: no lag" \
	"$(jq -c '.storage | [.shared, .lag_s, (.fs | length > 0)]' s_auto.json)" '[false,0,true]'
st s_lag.json "$dir" --settle 1 --storage-lag 8
expect "the lag in the JSON" "$(jq -c '.storage.lag_s' s_lag.json)" 8
expect_child s_lag.json 0 running "^job ${a}_0 ended [0-9]+ s ago \([A-Z]+\); waiting up to 9 s for its finish record$"
SB_STORAGE_LAG=8 "$SBCTL" status "$dir" --settle 1 --json > s_env.json
expect "SB_STORAGE_LAG sets it too" "$(jq -r '.children[0].class' s_env.json)" running
"$SBCTL" status "$dir" --settle 1 --storage-lag 8 > s_lag.txt
expect_match "one child is said so" "$(head -n 1 s_lag.txt)" "^torn \([0-9a-f]{12}\): 1 child, scheduler consulted$"
expect_match "the text says the storage and its lag" "$(grep storage: s_lag.txt)" \
	"^  storage: [^ ]+, what other nodes write may show here up to 8 s late: verdicts that rest on a missing file wait for it$"
wait_for 20 eval '[ "$("$SBCTL" status "$dir" --settle 1 --storage-lag 8 --json | jq -r ".children[0].class")" = incomplete ]'
st s_after.json "$dir" --settle 1 --storage-lag 8
expect_child s_after.json 0 incomplete "^started, but no finish record"
"$SBCTL" status "$dir" --storage-lag soon > /dev/null 2> bad.err
expect "--storage-lag soon: a usage error" "$?" 2
expect_match "... saying what it takes" "$(cat bad.err)" "--storage-lag needs 'auto' or a number of seconds"
SB_STORAGE_LAG=-3 "$SBCTL" status "$dir" > /dev/null 2> bad.err
expect "SB_STORAGE_LAG=-3: refused" "$?" 2
expect_match "... naming it" "$(cat bad.err)" "SB_STORAGE_LAG '-3' is neither 'auto' nor a number of seconds"

# ---- (b) a directory another node made, not shown here yet ----------------------
t0=$(date +%s%N)
"$SBCTL" wait "$T_ROOT/runs/not-yet" --settle 1 --storage-lag 3 --interval 0.5 --timeout 30 > /dev/null 2> w.err
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect "wait: a directory that never shows is a usage error in the end" "$rc" 2
expect "... after settle + lag (4 s) of retries" "$([ "$ms" -ge 3500 ] && [ "$ms" -lt 15000 ] && echo yes)" yes
expect_match "... which it said" "$(head -n 1 w.err)" "retrying in"
t0=$(date +%s%N)
"$SBCTL" wait "$T_ROOT/runs/not-yet" --settle 1 --storage-lag 0 --timeout 30 > /dev/null 2>&1
expect "without a lag: at once" "$?:$(( ($(date +%s%N) - t0) / 1000000 < 3000 ))" "2:1"

# ---- (c) the lock of another node ---------------------------------------------------
dir=$(submit_spec held 'name: held
command: [true]')
a=$(array_of held)
owner_file "$dir" 0
"$SBCTL" submit held.yaml --json > again.json 2> again.err &
pid=$!
sleep 1.5
expect "a submit waits for the lock another node holds" "$(kill -0 $pid 2>/dev/null && echo waiting)" waiting
expect_match "... and says whom it waits for" "$(cat again.err)" \
	"another sbctl \(pid 4242 on login2 since [0-9T:-]+Z\) is submitting this benchmark; waiting for it to finish"
rm "$dir/lock.owner"
wait $pid
expect "... then goes on once it is released" "$?" 0
expect "... and finds the chunk submitted" "$(jq -c '[.already_submitted, .jobs[0].job_id]' again.json)" "[true,\"$a\"]"
expect "its own owner file is gone" "$([ -e "$dir/lock.owner" ] && echo left || echo gone)" gone
owner_file "$dir" 5000
"$SBCTL" submit held.yaml > /dev/null 2> abandoned.err
expect "an abandoned lock of another node: a runtime error" "$?" 1
expect_match "... naming its holder and the file to remove" "$(cat abandoned.err)" \
	"held by pid 4242 on login2 since .* and was not renewed for 900 s or more: if no sbctl runs there any more, remove '$dir/lock.owner'"
expect "... which it does not remove" "$([ -e "$dir/lock.owner" ] && echo kept)" kept
rm "$dir/lock.owner"

# status: no job id, and another node holds the lock: being submitted
shim sbatch 'echo "sbatch: error: Batch job submission failed: Socket timed out" >&2; exit 1'
write_spec nojob.yaml 'name: nojob
command: [true]'
"$SBCTL" submit nojob.yaml > /dev/null 2>&1
ndir=$(ls -d "$SB_ROOT"/nojob-*)
rm "$SHIM/sbatch"
st n0.json "$ndir" --settle 0 --storage-lag 0
expect_child n0.json 0 missing "never submitted"
owner_file "$ndir" 0
st n1.json "$ndir" --settle 0 --storage-lag 0
expect_child n1.json 0 pending "^being submitted \(a submit of this benchmark is running"
rm "$ndir/lock.owner"
# a benchmark made less than settle + lag ago may be submitted by another node
st n2.json "$ndir" --settle 0 --storage-lag 600
expect_child n2.json 0 pending "^no submission shows here yet \(the benchmark was made [0-9]+ s ago; another node's submit may take up to 600 s to show here\)$"

# ---- (d) a benchmark made through another node, its record not shown here --------
dir=$(submit_spec other 'name: other
command: [true]')
a=$(array_of other)
rm -f "$T_ROOT/calls.sbatch"
shim sbatch ''
# this node's view: the key, none of the record or the submissions
rm -f "$dir/benchmark.msgpack" "$dir/benchmark.json" "$dir"/submissions/*
"$SBCTL" submit other.yaml --json > other2.json 2> other2.err
expect "submit through the lagging view: exit 0" "$?" 0
expect "... the chunk found by name, not submitted again" \
	"$(jq -c '[.jobs[0].job_id, .jobs[0].recovered]' other2.json)" "[\"$a\",true]"
expect "... sbatch never ran" "$(count_calls sbatch)" 0
t_done
