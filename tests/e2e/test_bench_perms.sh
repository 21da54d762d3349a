#!/bin/bash
# A benchmark directory, or one of its entries (events/, submissions/,
# jobs/, keys/, keys/hmac.key), owned by someone else or with too open a
# mode is refused by every command that opens the benchmark, with exit 2 (an
# input error about the named benchmark) and one message naming the entry
# and what is wrong (ctl/bench/bench.c, sb_bench_check_dir).
. "$(dirname "$0")/lib.sh"

if [ "$T_UID" != 0 ]; then
	# chown to another uid needs root; CI runs the suite as root
	echo "ok - ownership cases need root (CI runs them)"
fi
write_spec p.yaml "name: perms
command: [echo, '{x}']
parameters:
  x: [a, b]"
"$SBCTL" submit p.yaml --json > p.json || { echo "not ok - submit"; exit 1; }
dir=$(jqf p.json .benchmark.dir)
# every job over, then every child succeeded (polled: no fixed sleep)
succeeded() { "$SBCTL" status "$1" --settle 0 > /dev/null 2>&1; }
wait_for 30 all_done && wait_for 10 succeeded "$dir" && echo "ok - the benchmark succeeds"

# every command that opens the benchmark, as "NAME ARGS..."
cmds=("status $dir" "status perms" "analyze $dir" "wait $dir --timeout 1" "submit p.yaml"
      "rerun $dir --only failed" "cancel $dir" "log $dir" "output $dir 0")

# refused DESC REGEX: every command exits 2 with the same message, matching REGEX
refused() {
	local desc=$1 re=$2 c first="" msg
	for c in "${cmds[@]}"; do
		# shellcheck disable=SC2086
		"$SBCTL" $c > r.out 2> r.err
		expect "$desc: sbctl ${c%% *} exits 2" "$?" 2
		msg=$(sed -n "s/^sbctl ${c%% *}: //p" r.err | sed "s/^benchmark 'perms' (from the local index): //")
		expect_match "$desc: sbctl ${c%% *} says why" "$msg" "$re"
		[ -n "$first" ] || first=$msg
		expect "$desc: sbctl ${c%% *}: the same message" "$msg" "$first"
	done
}

# case DESC REGEX SETUP UNDO
case_() {
	eval "$3"
	refused "$1" "$2"
	eval "$4"
	"$SBCTL" status "$dir" > /dev/null 2>&1
	expect "$1: fixed, status works again" "$?" 0
}

for e in events submissions jobs; do
	case_ "$e/ g+w" "^refusing $e directory '$dir/$e': mode 0775 gives group or others write permission \(chmod go-w '$dir/$e'\)$" \
		"chmod g+w '$dir/$e'" "chmod g-w '$dir/$e'"
	case_ "$e/ o+w" "^refusing $e directory '$dir/$e': mode 0757 gives group or others write permission" \
		"chmod o+w '$dir/$e'" "chmod o-w '$dir/$e'"
done
case_ "keys/ g+rx" "^refusing keys directory '$dir/keys': mode 0750 gives group or others access \(chmod 700 '$dir/keys'\)$" \
	"chmod 750 '$dir/keys'" "chmod 700 '$dir/keys'"
case_ "keys/hmac.key 0640" "^key file '$dir/keys/hmac.key' has mode 0640: group or other may access it" \
	"chmod 640 '$dir/keys/hmac.key'" "chmod 600 '$dir/keys/hmac.key'"
case_ "benchmark directory g+w" "^refusing benchmark directory '$dir': writable by group or others" \
	"chmod g+w '$dir'" "chmod g-w '$dir'"
case_ "events/ a symbolic link" "^refusing events directory '$dir/events': a symbolic link, not a directory$" \
	"mv '$dir/events' '$T_ROOT/ev' && ln -s '$T_ROOT/ev' '$dir/events'" "rm '$dir/events' && mv '$T_ROOT/ev' '$dir/events'"
if [ "$T_UID" = 0 ]; then
	for e in events submissions jobs keys; do
		case_ "$e/ owned by uid 12345" "^refusing $e directory '$dir/$e': owned by uid 12345, not by you \(uid 0\)$" \
			"chown 12345 '$dir/$e'" "chown 0 '$dir/$e'"
	done
	case_ "keys/hmac.key owned by uid 12345" "^key file '$dir/keys/hmac.key' is owned by uid 12345, not by you" \
		"chown 12345 '$dir/keys/hmac.key'" "chown 0 '$dir/keys/hmac.key'"
	case_ "benchmark directory owned by uid 12345" "^refusing benchmark directory '$dir': owned by uid 12345, not by you \(uid 0\)$" \
		"chown 12345 '$dir'" "chown 0 '$dir'"
fi

t_done
