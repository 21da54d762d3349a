#!/bin/bash
# One option parser for every sbctl command (ctl/cli/options.c): each
# command's --help prints its full help (usage, every option) on stdout and
# exits 0; an option's value is accepted as --opt=VALUE and as --opt VALUE
# alike, with the same result; an unknown option or command is a usage error
# (exit 2) that names the closest known one.
. "$(dirname "$0")/lib.sh"

dir=$(submit_spec two "name: two
command: [echo, '{x}']
parameters:
  x: [a, b]")
succeeded() { "$SBCTL" status "$1" --settle 0 > /dev/null 2>&1; }
wait_for 30 all_done && wait_for 10 succeeded "$dir"

# every command: --help and -h, the full help on stdout, exit 0
for c in keygen log plan submit status analyze report rerun cancel output wait watch list index forget; do
	out=$("$SBCTL" $c --help 2> h.err); rc=$?
	expect "$c --help: exit 0, nothing on stderr" "$rc $(cat h.err)" "0 "
	expect_match "$c --help: usage, options and -h" "$out" "^usage: sbctl $c.*"$'\n'"options:"$'\n'".*-h, --help"
	expect "$c -h is --help" "$("$SBCTL" $c -h)" "$out"
	# the help ends naming the command's man page, and the build has it
	expect "$c --help: its last line names its man page" "$(tail -n 1 <<<"$out")" \
		"the full reference: man sbctl-$c"
	expect "$c: the man page named is built" "$(ls "$SB_BIN/../man/man1/sbctl-$c.1" > /dev/null && echo yes)" yes
done
expect "sbagent --help names its man page" "$("$SB_BIN/sbagent" --help | tail -n 1)" "the full reference: man sbagent"
expect_match "sbctl --help names the man pages" "$("$SBCTL" --help)" "'man sbctl' has the full reference"
expect_match "status --help lists --settle" "$("$SBCTL" status --help)" "--settle SECONDS +how long"
expect_match "report --help lists -o" "$("$SBCTL" report --help)" "-o, --output FILE"

# every command: an unknown option, exit 2, the closest named
for c in keygen log plan submit status analyze report rerun cancel output wait watch list index forget; do
	"$SBCTL" $c --hel > u.out 2> u.err; rc=$?
	expect "$c --hel: exit 2, nothing on stdout" "$rc $(cat u.out)" "2 "
	expect_match "$c --hel: named, with the closest" "$(head -n 1 u.err)" \
		"^sbctl $c: unknown option '--hel' \(did you mean '--help'\?\)$"
	expect_match "$c --hel: then the usage" "$(sed -n 2p u.err)" "^usage: sbctl $c"
done
"$SBCTL" status "$dir" --setle=5 2> u.err; rc=$?
expect "status --setle=5: exit 2" "$rc" 2
expect_match "status --setle=5: did you mean --settle" "$(head -n 1 u.err)" "unknown option '--setle' \(did you mean '--settle'\?\)"
"$SBCTL" analyze "$dir" --group-bi x 2> u.err
expect_match "analyze --group-bi: did you mean --group-by" "$(head -n 1 u.err)" "did you mean '--group-by'"
"$SBCTL" status "$dir" --json=1 2> u.err; rc=$?
expect "a flag given a value: exit 2" "$rc" 2
expect_match "a flag given a value: said" "$(head -n 1 u.err)" "--json takes no value"
"$SBCTL" statsu "$dir" 2> u.err; rc=$?
expect "an unknown command: exit 2" "$rc" 2
expect_match "an unknown command: the closest named" "$(head -n 1 u.err)" \
	"^sbctl: unknown command 'statsu' \(did you mean 'status'\?\)$"

# both forms, the same result
same() { # DESC CMD... -- CMD...: both print the same and exit alike
	local desc=$1; shift
	local a=() b=()
	while [ "$1" != -- ]; do a+=("$1"); shift; done; shift
	b=("$@")
	"${a[@]}" > a.out 2> a.err; ra=$?
	"${b[@]}" > b.out 2> b.err; rb=$?
	expect "$desc: same exit ($ra)" "$ra" "$rb"
	expect "$desc: same output" "$(cat a.out)" "$(cat b.out)"
}
same "status --settle" "$SBCTL" status "$dir" --settle 0 --json -- "$SBCTL" status "$dir" --settle=0 --json
expect "status --settle=0: exit 0" "$("$SBCTL" status "$dir" --settle=0 > /dev/null; echo $?)" 0
same "status --class" "$SBCTL" status "$dir" --class succeeded -- "$SBCTL" status "$dir" --class=succeeded
same "analyze --group-by --sort" "$SBCTL" analyze "$dir" --group-by x --json --sort -x \
	-- "$SBCTL" analyze "$dir" --group-by=x --json --sort=-x
same "wait --timeout --interval" "$SBCTL" wait "$dir" --timeout 5 --interval 0.2 \
	-- "$SBCTL" wait "$dir" --timeout=5 --interval=0.2
same "log --child" "$SBCTL" log "$dir" --child 1 -- "$SBCTL" log "$dir" --child=1
same "rerun --only --dry-run" "$SBCTL" rerun "$dir" --only failed --dry-run \
	-- "$SBCTL" rerun "$dir" --only=failed --dry-run
same "watch --timeout" "$SBCTL" watch "$dir" --json --timeout 1 -- "$SBCTL" watch "$dir" --json --timeout=1
"$SBCTL" report "$dir" -o r1.html --offline > /dev/null 2>&1 &&
	"$SBCTL" report "$dir" --output=r2.html --offline > /dev/null 2>&1
expect "report -o FILE and --output=FILE both write" "$(ls r1.html r2.html 2>&1 | wc -l)" 2
write_spec three.yaml "name: three
command: [echo, '{x}']
parameters:
  x: [c]"
same "submit --root --dry-run" "$SBCTL" submit three.yaml --root "$T_ROOT/r" --dry-run \
	-- "$SBCTL" submit three.yaml --root="$T_ROOT/r" --dry-run
"$SBCTL" submit three.yaml --root="$T_ROOT/r2" --json > s.json
d=$(jqf s.json .benchmark.dir)
expect "submit --root=DIR: the benchmark goes under DIR ($d)" "$([[ $d == "$T_ROOT/r2/"* ]] && echo yes)" yes
# a relative root and ./ in it: the paths printed are tidy (no /./, no //)
write_spec four.yaml "name: four
command: [sh, -c, 'exit {x}']
parameters:
  x: [0, 1]"
"$SBCTL" submit four.yaml --root ./r3//x/. --dry-run > dr.out 2>&1
expect_match "submit --dry-run, root ./r3//x/.: the directory tidied" \
	"$(sed -n 's/^directory \(.*\) (\(.*\): --dry-run)$/\1|\2/p' dr.out)" "^$PWD/r3/x/four-[0-9a-f]{12}\|not created$"
expect "submit --dry-run: no /./ in any path" "$(grep -c '/\./' dr.out)" 0
# a rerun's dry run: the directory is there, and it says so
"$SBCTL" submit four.yaml --root ./r3//x/. --json > s4.json
d4=$(jqf s4.json .benchmark.dir)
expect "submit, root ./r3//x/.: the directory recorded tidied" "$d4" "$(sed -n 's/^directory \(.*\) (.*$/\1/p' dr.out)"
failed4() { "$SBCTL" status "$d4" --settle 0 --class failed 2> /dev/null | grep -q .; }
wait_for 30 all_done && wait_for 10 failed4
"$SBCTL" rerun "$d4" --only failed --dry-run > dr.out 2>&1
expect "rerun --dry-run: the directory exists, nothing written" \
	"$(grep -c "^directory $d4 (exists, nothing written: --dry-run)$" dr.out)" 1
"$SBCTL" rerun "$dir" --only failed --dry-run > dr.out 2>&1; rc=$?
expect "rerun --dry-run, nothing failed: said, exit 0" "$rc $(cat dr.out)" \
	"0 no child of two is failed: nothing to rerun (--dry-run)"

# one child: "child 0" and "1 child", never "children 0-0" nor "1 children"
write_spec one.yaml "name: one
command: [echo, '{x}']
parameters:
  x: [z]"
"$SBCTL" submit one.yaml --dry-run > dr.out 2>&1
expect "submit --dry-run, one child: '1 child in 1 job array'" "$(grep -c '^benchmark one (.*), attempt 0: 1 child in 1 job array$' dr.out)" 1
expect "submit --dry-run, one child: the script says '1 child'" "$(grep -c '^# sbench benchmark one (.*), attempt 0, chunk 0: 1 child$' dr.out)" 1
"$SBCTL" submit one.yaml > one.out 2>&1
expect_match "submit, one child: 'child 0'" "$(sed -n 2p one.out)" "^  job [0-9]+ +array 0-0 +child 0$"
expect "submit, one child: no 'children'" "$(grep -c 'children' one.out)" 0

# a value is the next argument whatever it starts with: the option's own check refuses it
"$SBCTL" status "$dir" --settle -1 2> u.err; rc=$?
expect "status --settle -1: exit 2" "$rc" 2
expect_match "status --settle -1: --settle's own message" "$(cat u.err)" "^sbctl status: --settle needs a number of seconds: "
# after "--", an operand even if it looks like an option
"$SBCTL" plan -- --json 2> u.err; rc=$?
expect "plan -- --json: --json is the spec's path (exit 2, not found)" "$rc $(grep -c 'unknown option' u.err)" "2 0"
t_done
