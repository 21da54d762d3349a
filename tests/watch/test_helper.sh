#!/bin/bash
# sbagent's live watch helper, sbagent-watch (docs/watch.md): started only
# for a watcher, one per agent, gone when its agent is; when it cannot be
# found or dies mid-run the agent says so once and the run goes on with
# every record in its log; started by hand it refuses.
. "$(dirname "$0")/lib.sh"

spec() { # NAME
	printf 'name: %s\ncommand: [sh, -c, "sleep 3; echo done"]\nparameters:\n  i: [0, 1, 2]\nheartbeat: 1\n' "$1"
}
# this test's helpers only (other tests may run theirs at the same time):
# a helper's arguments are its benchmark directory, under this SB_ROOT
mine="$SB_BIN/sbagent-watch $SB_ROOT/.*"
helpers() { pgrep -f -x "$mine" | wc -l | tr -d ' '; }
children_output() { local c; for c in 0 1 2; do "$SBCTL" output "$1" "$c" 2>&1; done; }

# 1. started by hand: a usage message and 2, whatever the arguments
rc=0; "$SB_BIN/sbagent-watch" > hand.out 2>&1 || rc=$?
expect "sbagent-watch by hand: exit 2" "$rc" 2
expect_match "sbagent-watch by hand: says it is sbagent's" "$(cat hand.out)" 'started by sbagent'
rc=0; "$SB_BIN/sbagent-watch" /tmp host 3< /dev/null > hand.out 2>&1 || rc=$?
expect "sbagent-watch with a file as fd 3: exit 2" "$rc" 2

# 2. no watcher: no helper is started
expect "no helper before anything runs" "$(helpers)" 0
d0=$(submit_spec n "$(spec n)") || exit 1
wait_for 20 started "$d0" 0
expect "no watcher: no helper while the children run" "$(helpers)" 0
wait_for 60 all_done

# 3. a watcher: one helper per running agent, none once they ended, and
# every child's records live
d1=$(submit_spec w "$(spec w)") || exit 1
"$SBCTL" watch "$d1" --json > w.json 2> w.err &
ww=$!
wait_for 10 has_endpoint "$d1" "$ww"
wait_for 20 grep -q '"live":true' w.json
expect_match "a watcher: a helper for each running agent ($(helpers))" "$(helpers)" '^[1-3]$'
fds=$(for p in $(pgrep -f -x "$mine"); do
	printf '%s %s %s\n' "$(readlink /proc/$p/fd/0)" "$(readlink /proc/$p/fd/1)" \
		"$(readlink /proc/$p/fd/3 | sed 's/:.*//')"; done | sort -u)
expect "a watcher: the helper's stdin and stdout are /dev/null, fd 3 its socket" \
	"$fds" "/dev/null /dev/null socket"
wait_for 60 all_done
wait_for 5 test "$(helpers)" -eq 0
expect "a watcher: no helper outlives its agent" "$(helpers)" 0
kill "$ww"; wait "$ww" 2>/dev/null
expect "a watcher: heartbeats arrived live from every child" \
	"$(jq -r 'select(.live == true and .type == "heartbeat") | .child' w.json | sort -u | tr -d '\n')" 012
expect "a watcher: nothing on the children's output but theirs" \
	"$(children_output "$d1" | grep -c 'sbagent')" 0

# 4. the helper killed mid-run: the agents say so once, go on, and every
# child succeeds with its whole log
d2=$(submit_spec k "$(spec k)") || exit 1
"$SBCTL" watch "$d2" --json > k.json 2> k.err &
wk=$!
wait_for 10 has_endpoint "$d2" "$wk"
wait_for 20 grep -q '"live":true' k.json
wait_for 10 test "$(helpers)" -ge 1
pkill -KILL -f -x "$mine"
wait_for 60 all_done
kill "$wk"; wait "$wk" 2>/dev/null
"$SBCTL" status "$d2" --json > k.st.json
expect "helper killed: every child succeeded" "$(jq -r '.counts.succeeded' k.st.json)" 3
expect_match "helper killed: an agent said live watch is off" \
	"$(children_output "$d2" | grep -c 'live watch off: sbagent-watch has ended')" '^[1-3]$'
"$SBCTL" log "$d2" > k.log.txt 2>&1; rc=$?
expect "helper killed: every log verifies (sbctl log exit 0)" "$rc" 0

# 5. no helper beside sbagent (a copy of sbagent alone): the agents say so
# once each and run as without a watcher
mkdir -p alone
cp "$SB_BIN/sbagent" alone/sbagent
d3=$(SB_AGENT=$PWD/alone/sbagent submit_spec a "$(spec a)") || exit 1
"$SBCTL" watch "$d3" --json > a.json 2> a.err &
wa=$!
wait_for 10 has_endpoint "$d3" "$wa"
wait_for 60 all_done
kill "$wa"; wait "$wa" 2>/dev/null
"$SBCTL" status "$d3" --json > a.st.json
expect "no helper: every child succeeded" "$(jq -r '.counts.succeeded' a.st.json)" 3
expect "no helper: each agent said so once" \
	"$(children_output "$d3" | grep -c 'live watch off: no sbagent-watch beside sbagent')" 3
"$SBCTL" log "$d3" --json > a.log.json
expect "no helper: the records are all in the logs (a finish each)" \
	"$(jq -r 'select(.type == "finish") | .child' a.log.json | sort -u | tr -d '\n')" 012
t_done
