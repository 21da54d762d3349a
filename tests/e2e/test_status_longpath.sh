#!/bin/bash
# A declared result whose path is longer than 255 bytes (legal in a spec: a
# nested path of short components) is hashed by sbagent and checked by
# status whole: the child succeeds, never `invalid` through a path cut short.
. "$(dirname "$0")/lib.sh"

export SB_FAKE_MIN_JOB_AGE=0
sub=$(printf 'component-%02d/' $(seq 1 22))   # 22 x 14 bytes
rel="${sub}result-file-of-a-long-path.txt"
expect "the result path is 300 bytes or more" "$([ ${#rel} -ge 300 ] && echo long)" long
dir=$(submit_spec longpath "name: longpath
command: [sh, -c, 'mkdir -p $sub && echo {x} > $rel']
parameters:
  x: [1, 2]
results: ['$rel']")
wait_for 10 all_done
wait_for 10 acct_is "$(array_of longpath)" State "COMPLETED
COMPLETED"
st l.json "$dir" --settle 0
expect "long result path: exit 0" "$?" 0
expect_child l.json 0 succeeded '^$'
expect_child l.json 1 succeeded '^$'
# the path in the finish record is whole
expect "long result path: recorded whole" \
	"$("$SBCTL" log "$(log_of "$dir" 0)" --json | jq -r 'select(.type=="finish") | .results[0].path')" "$rel"
# and a change to that file is seen: it is the file status hashes
echo changed > "$dir/runs/1/$rel"
st l2.json "$dir" --settle 0
expect "long result path: a change is seen" "$?" 3
expect_child l2.json 1 invalid "^result '$rel' changed after the verified finish"

t_done
