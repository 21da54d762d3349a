#!/bin/bash
# sbctl wait NAME resolves the name once: a benchmark submitted under the
# same name while it waits does not take the wait over (sbctl wait x &&
# sbctl analyze x must not report on another run than the one waited for).
# Its summary names the benchmark it waited for.
. "$(dirname "$0")/lib.sh"

write_spec x.yaml "name: x
command: [sh, -c, 'while [ ! -e $PWD/go ]; do sleep 0.1; done; echo {i}']
parameters:
  i: [0, 1]"
"$SBCTL" submit x.yaml --json > a.json || { echo "not ok - first submit"; exit 1; }
adir=$(jqf a.json .benchmark.dir)
adigest=$(jqf a.json .benchmark.digest)
shim squeue ""
"$SBCTL" wait x --interval 0.2 --timeout 60 --settle 0 > w.out 2> w.err &
w=$!
# its first look asks squeue, once the name is resolved (to the only
# benchmark of it then)
asked() { [ "$(count_calls squeue)" -gt 0 ]; }
wait_for 30 asked
# the same name, another spec: its children fail at once
write_spec x.yaml "name: x
command: [sh, -c, 'exit 1']
parameters:
  i: [0, 1, 2]"
"$SBCTL" submit x.yaml --json > b.json || { echo "not ok - second submit"; exit 1; }
bdir=$(jqf b.json .benchmark.dir)
expect "two benchmarks of one name" "$([ "$adir" != "$bdir" ] && echo two)" two
# the name now means the second one
"$SBCTL" status x --json --settle 0 > now.json
expect "the name resolves to the newer benchmark now" "$(jqf now.json .benchmark.dir)" "$bdir"
touch go
wait "$w"; rc=$?
expect "wait stayed on the first benchmark: every child succeeded (exit 0)" "$rc" 0
expect "wait's status is the first benchmark's" "$(head -n 1 w.out)" "x (${adigest:0:12}): 2 children, scheduler consulted"
expect "a name only one benchmark had when the wait began: nothing on stderr" "$(cat w.err)" ""
t_done
