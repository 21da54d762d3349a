#!/bin/bash
# sbctl wait NAME resolves the name once: a benchmark submitted under the
# same name while it waits does not take the wait over (sbctl wait x &&
# sbctl analyze x must not report on another run than the one waited for).
# It says which benchmark it waits for.
. "$(dirname "$0")/lib.sh"

write_spec x.yaml "name: x
command: [sh, -c, 'while [ ! -e $PWD/go ]; do sleep 0.1; done; echo {i}']
parameters:
  i: [0, 1]"
"$SBCTL" submit x.yaml --json > a.json || { echo "not ok - first submit"; exit 1; }
adir=$(jqf a.json .benchmark.dir)
adigest=$(jqf a.json .benchmark.digest)
"$SBCTL" wait x --interval 0.2 --timeout 60 --settle 0 > w.out 2> w.err &
w=$!
wait_for 10 grep -q "waiting for x" w.err
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
expect_match "wait says which benchmark it waits for" "$(head -n 1 w.err)" \
	"^sbctl wait: waiting for x ${adigest:0:12} \\($adir\\)$"
# a directory given: nothing to say
"$SBCTL" wait "$adir" --settle 0 > /dev/null 2> d.err
expect "wait DIR: exit 0, no line about which" "$? $(grep -c 'waiting for' d.err)" "0 0"
t_done
