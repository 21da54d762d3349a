#!/bin/bash
# A watcher never blocks, fails or slows a run: a watcher killed with
# SIGKILL mid-run changes nothing for the children (all succeed, nothing on
# their stderr); a watcher stopped with SIGSTOP does not slow the agents
# (their wall time stays within generous bounds of a run without one); a
# stale endpoint file (dead pid, this host) is ignored by the agents.
. "$(dirname "$0")/lib.sh"

spec() { # NAME NAP
	printf 'name: %s\ncommand: [sh, -c, "sleep %s; echo done"]\nparameters:\n  i: [0, 1, 2, 3, 4, 5]\nheartbeat: 1\n' "$1" "$2"
}

# children_stderr DIR N: every child's Slurm output, what is not "done" or
# a header line of sbctl output
children_output() {
	local c
	for c in $(seq 0 $(( $2 - 1 ))); do "$SBCTL" output "$1" "$c" 2>&1; done
}

# walls JSON: the finish records' wall_s, the largest
max_wall() { jq -r 'select(.type == "finish") | .wall_s' "$1" | sort -g | tail -n 1; }

# 1. no watcher: the reference
spec ref 2 > ref.yaml
ref=$(submit_spec ref "$(cat ref.yaml)") || exit 1
wait_for 60 all_done
"$SBCTL" log "$ref" --json > ref.log.json
ref_wall=$(max_wall ref.log.json)
expect "no watcher: heartbeats carry no watch_dropped" \
	"$(jq -r 'select(.type == "heartbeat") | has("watch_dropped")' ref.log.json | sort -u)" false

# 2. a watcher SIGKILLed while the children run
spec k 3 > k.yaml
"$SBCTL" plan k.yaml --json > kplan.json
kdir=$SB_ROOT/k-$(jq -r '.benchmark.digest[:12]' kplan.json)
dir=$(submit_spec k "$(cat k.yaml)") || exit 1
expect "the benchmark directory is where the plan says" "$dir" "$kdir"
"$SBCTL" watch "$dir" --json > k.json 2> k.err &
wk=$!
wait_for 10 has_endpoint "$dir" "$wk"
wait_for 20 grep -q '"live":true' k.json
kill -KILL "$wk"; wait "$wk" 2>/dev/null
expect "the killed watcher left its endpoint file" "$(ls "$dir/watch" | wc -l | tr -d ' ')" 1
wait_for 60 all_done
"$SBCTL" status "$dir" --json > k.st.json
expect "every child succeeded" "$(jq -r '.counts.succeeded' k.st.json)" 6
expect "nothing but the command's output in the children's output" \
	"$(children_output "$dir" 6 | grep -v '^done$' | grep -v '^==' | grep -v '^$' | grep -i -c 'sbagent\|error\|warn')" 0
"$SBCTL" log "$dir" --json > k.log.json
expect_match "agents had found the watcher before it was killed (heartbeats with watch_dropped)" \
	"$(jq -r 'select(.type == "heartbeat" and has("watch_dropped")) | .child' k.log.json | sort -u | wc -l | tr -d ' ')" '^[1-6]$'

# 3. a stale endpoint file (the killed watcher's) is ignored by new agents:
# attempt 0 fails, the file is put in place, attempt 1 runs
printf 'name: s\ncommand: [sh, -c, "sleep 2; [ $SB_ATTEMPT != 0 ]"]\nparameters:\n  i: [0, 1]\nheartbeat: 1\n' > s.yaml
dir3=$(submit_spec s "$(cat s.yaml)") || exit 1
wait_for 60 all_done
mkdir -p -m 700 "$dir3/watch"
cp "$dir"/watch/*.endpoint "$dir3/watch/"
"$SBCTL" rerun "$dir3" --only failed --json > /dev/null
wait_for 60 all_done
"$SBCTL" log "$dir3" --json > s.log.json
expect "the rerun ran (attempt 1 finished, twice)" \
	"$(jq -r 'select(.type == "finish" and .attempt == 1) | .exit_code' s.log.json | tr -d '\n')" 00
expect "a stale endpoint file: the agents never took it for a watcher" \
	"$(jq -r 'select(.type == "heartbeat" and .attempt == 1) | has("watch_dropped")' s.log.json | sort -u)" false

# 4. a watcher stopped with SIGSTOP: the agents go on at full speed
spec p 2 > p.yaml
pdir=$(submit_spec p "$(cat p.yaml)") || exit 1
"$SBCTL" watch "$pdir" --json > p.json 2> p.err &
wp=$!
wait_for 10 has_endpoint "$pdir" "$wp"
kill -STOP "$wp"
wait_for 60 all_done
kill -CONT "$wp"; kill "$wp"; wait "$wp" 2>/dev/null
"$SBCTL" status "$pdir" --json > p.st.json
expect "stopped watcher: every child succeeded" "$(jq -r '.counts.succeeded' p.st.json)" 6
"$SBCTL" log "$pdir" --json > p.log.json
p_wall=$(max_wall p.log.json)
expect "stopped watcher: wall time within 1.5 s of a run without one ($p_wall vs $ref_wall)" \
	"$(awk -v p="$p_wall" -v r="$ref_wall" 'BEGIN { print (p < r + 1.5) ? "ok" : "slow" }')" ok
expect "SIGTERM removed the endpoint file" "$(ls -A "$pdir/watch")" ""
t_done
