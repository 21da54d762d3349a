#!/bin/bash
# sbctl rerun and cancel against the fake Slurm, as the library renders them
# (<sbench/submit.h>): the children of the classes asked for, nothing to
# rerun (naming every class asked for), a class that is none, cancel's text
# and --json; the submit example of docs/api.md, built as written.
. "$(dirname "$0")/lib.sh"

export SB_LOOKUP_WINDOW=0.5
write_spec mixed.yaml "name: mixed
command: [sh, -c, 'test {x} != 1']
parameters:
  x: [0, 1, 2]"
"$SBCTL" submit mixed.yaml > /dev/null
expect "submit exits 0" "$?" 0
"$SBCTL" wait mixed --interval 0.2 --timeout 60 > /dev/null
expect "wait: one child failed (exit 3)" "$?" 3

"$SBCTL" rerun mixed --only killed,stale > none.out 2> none.err
expect "nothing to rerun exits 0" "$?" 0
expect "nothing to rerun names every class asked for" "$(cat none.out)" \
	"no child of mixed is killed,stale: nothing to rerun"
"$SBCTL" rerun mixed --only killed,failed --json > r.json 2> r.err
expect "rerun exits 0" "$?" 0
expect "rerun submits the failed child alone" "$(jqf r.json '[.jobs[].children[]]|map(tostring)|join(",")')" 1
expect "rerun: a new job array" "$(jqf r.json '[.jobs[].submitted_now]|join(",")')" true
"$SBCTL" rerun mixed --only failed,bogus > /dev/null 2> bad.err
expect "an unknown class is a usage error" "$?" 2
expect "the unknown class is named" "$(cat bad.err)" "sbctl rerun: 'bogus' is not a class"
"$SBCTL" rerun mixed --only faild > /dev/null 2> bad.err
expect "a misspelt class: did you mean" "$(cat bad.err)" "sbctl rerun: 'faild' is not a class (did you mean 'failed'?)"
"$SBCTL" rerun no-such-bench --only failed > /dev/null 2> nob.err
expect "an unknown benchmark is a usage error" "$?" 2

write_spec slow.yaml "name: slow
command: [sleep, '{x}']
parameters:
  x: [60, 61]"
"$SBCTL" submit slow.yaml --json > s.json
expect "submit slow exits 0" "$?" 0
"$SBCTL" cancel slow --json > c.json 2> c.err
expect "cancel --json exits 0" "$?" 0
expect "cancel --json: the benchmark" "$(jqf c.json '.format, .benchmark.name' | tr '\n' ' ')" "1 slow "
expect "cancel --json: its array, attempt 0, chunk 0" \
	"$(jqf c.json '.cancelled[] | "\(.job_id) \(.attempt) \(.chunk)"')" "$(jqf s.json '.jobs[0].job_id') 0 0"
"$SBCTL" wait slow --interval 0.2 --timeout 60 > /dev/null
expect "the cancelled children are over, not succeeded (exit 3)" "$?" 3
"$SBCTL" cancel slow > c2.out
expect "cancel again exits 0" "$?" 0
expect "cancel again: nothing is active" "$(cat c2.out)" \
	"nothing to cancel: no job of slow is pending or running"
"$SBCTL" cancel slow extra > /dev/null 2>&1
expect "cancel with two benchmarks is a usage error" "$?" 2

# the example of docs/api.md "Submitting from C", against the build's library
sed -n '/^## Submitting from C/,$p' "$SB_SRC/docs/api.md" | sed -n '/^``` c$/,/^```$/p' | sed '1d;$d' > example.c
# a sanitized library (SB_SANITIZE) needs its runtime in the program too
san=$(ldd "$SB_BUILD/lib/libsbench.so" | grep -q libasan && echo -fsanitize=address,undefined)
cc -Wall -Wextra -Werror $san -I"$SB_SRC/include" -o example example.c -L"$SB_BUILD/lib" -lsbench \
	-Wl,-rpath,"$SB_BUILD/lib" > cc.log 2>&1
expect "the docs/api.md submit example builds" "$?" 0
SB_AGENT=/opt/sbench/bin/sbagent ./example mixed.yaml --dry-run > ex.out 2> ex.err
expect "the example's dry run exits 0" "$?" 0
SB_AGENT=/opt/sbench/bin/sbagent "$SBCTL" submit mixed.yaml --dry-run > cli.out
expect "the example prints what sbctl submit --dry-run prints" "$(cmp ex.out cli.out && echo same)" same
SB_AGENT="$SB_BIN/sbagent" ./example mixed.yaml > again.out
expect "the example submits again: exit 0" "$?" 0
expect_match "the example: already submitted" "$(head -n 1 again.out)" \
	'^mixed \([0-9a-f]{12}\) was already submitted: nothing submitted$'
./example missing.yaml > /dev/null 2>&1
expect "the example: a missing spec exits 2" "$?" 2

t_done
