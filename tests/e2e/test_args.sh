#!/bin/bash
# Numbers on sbctl's command line are parsed strictly, by one parser
# (ctl/cli/numarg.c): a child index is digits only and below the benchmark's
# child count; --settle, --timeout and --interval are digits with an
# optional fraction.  Anything else ("-1", which strtoull read as
# 18446744073709551615, "+1", " 1", "0x10", "1e3", "nan", "") is a usage
# error: exit 2, a message naming the argument, nothing on stdout.
. "$(dirname "$0")/lib.sh"

dir=$(submit_spec two "name: two
command: [echo, '{x}']
parameters:
  x: [a, b]")
succeeded() { "$SBCTL" status "$1" --settle 0 > /dev/null 2>&1; }
wait_for 30 all_done && wait_for 10 succeeded "$dir"

# expect_usage DESC REGEX CMD...: exit 2, stderr matches, stdout empty
expect_usage() {
	local desc=$1 re=$2; shift 2
	"$@" > u.out 2> u.err
	expect "$desc: exit 2" "$?" 2
	expect_match "$desc: message" "$(cat u.err)" "$re"
	expect "$desc: nothing on stdout" "$(cat u.out)" ""
}

"$SBCTL" output "$dir" 1 > o.out 2>&1
expect "output 1: exit 0" "$?" 0
expect_match "output 1: prints the child's stdout" "$(cat o.out)" 'b'
for bad in -1 +1 ' 1' '1 ' 1x 0x1 1e0 '' 1.0 99999999999999999999999; do
	expect_usage "output CHILD '$bad'" "^sbctl output: CHILD must be a child index: " \
		"$SBCTL" output "$dir" "$bad"
done
expect_usage "output CHILD -1: no 18446744073709551615" "'-1' is not a whole number" \
	"$SBCTL" output "$dir" -1
expect_usage "output CHILD 2: out of range" "has children 0 to 1, not 2" \
	"$SBCTL" output "$dir" 2

for bad in -1 +1 ' 5' 0x10 1e3 nan inf '' .5 5s; do
	expect_usage "status --settle '$bad'" "^sbctl status: --settle needs a number of seconds: " \
		"$SBCTL" status "$dir" --settle "$bad"
	expect_usage "analyze --settle '$bad'" "^sbctl analyze: --settle needs a number of seconds: " \
		"$SBCTL" analyze "$dir" --settle "$bad"
	expect_usage "wait --timeout '$bad'" "^sbctl wait: --timeout needs a number of seconds: " \
		"$SBCTL" wait "$dir" --timeout "$bad"
	expect_usage "wait --interval '$bad'" "^sbctl wait: --interval needs a number of seconds: " \
		"$SBCTL" wait "$dir" --interval "$bad"
done
expect_usage "status --settle with no value" "needs a number of seconds: none given" \
	"$SBCTL" status "$dir" --settle
"$SBCTL" status "$dir" --settle 0.5 > /dev/null 2>&1
expect "status --settle 0.5: accepted" "$?" 0
"$SBCTL" analyze "$dir" --settle 2 > /dev/null 2>&1
expect "analyze --settle 2: accepted" "$?" 0
"$SBCTL" wait "$dir" --timeout 5 --interval 0.2 > /dev/null 2>&1
expect "wait --timeout 5 --interval 0.2: accepted" "$?" 0

# a list option is never cut short: one name too many is a usage error
many=$(seq -s, -f 'm%g' 0 4096)
expect_usage "analyze --metrics with 4,097 names" "^sbctl analyze: --metrics has more than 4096 names$" \
	"$SBCTL" analyze "$dir" --metrics "$many"
expect_usage "analyze --group-by with 4,097 names" "^sbctl analyze: --group-by has more than 4096 names$" \
	"$SBCTL" analyze "$dir" --group-by "$many"

# ---- control characters of a spec value are escaped in messages (issue 25 k) --
printf 'name: esc\ncommand: [a]\nparameters: {p: ["\\e[31mred", "\\e[31mred"]}\n' > esc.yaml
"$SBCTL" plan esc.yaml > /dev/null 2> esc.err
expect "a duplicate value with an escape: exit 2" "$?" 2
expect "the message shows the escape as \\x1b, no raw ESC byte" \
	"$(grep -c $'\x1b' esc.err) $(grep -c 'duplicate value .\\x1b\[31mred. of parameter .p.' esc.err)" "0 1"
mkdir -p escdir && printf '#!/bin/sh\n' > $'escdir/run\x1b[2J.sh'
printf 'name: esc2\ncommand: ["./run\\e[2J.sh"]\n' > escdir/esc2.yaml
"$SBCTL" submit escdir/esc2.yaml > /dev/null 2> esc2.err
expect "a file name with an escape in the cwd refusal: exit 2" "$?" 2
expect "... shown escaped" "$(grep -c $'\x1b' esc2.err) $(grep -c 'run\\x1b\[2J.sh' esc2.err)" "0 1"

t_done
