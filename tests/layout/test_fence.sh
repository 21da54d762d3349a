#!/usr/bin/env bash
# The fence between the floors holds in the build itself: a copy of the
# tree builds, and the same copy with one upward include added (a base/
# file including a status/ header; sbctl's main.c including a private
# header of bench/) fails to compile, the header not found.
set -u
src=${SB_SRC:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok - $*"; }
bad() { echo "not ok - $*"; fails=$((fails + 1)); }

mkdir "$work/src"
for d in CMakeLists.txt cmake ctl proto agent fake include docs python; do
	cp -r "$src/$d" "$work/src/" || { echo "not ok - cannot copy $d"; exit 1; }
done
b=$work/build
cmake -S "$work/src" -B "$b" -DSB_BUILD_TESTS=OFF -DSB_AGENT_MUSL=OFF \
	-DCMAKE_BUILD_TYPE=Debug >"$work/configure.log" 2>&1 ||
	{ cat "$work/configure.log"; echo "not ok - the copy does not configure"; exit 1; }

# a control: the copy as it is builds
if make -C "$b/ctl" -s base/arena.c.o >"$work/control.log" 2>&1 &&
	make -C "$b/ctl" -s cli/main.c.o >>"$work/control.log" 2>&1; then
	ok "the unchanged copy compiles base/arena.c and cli/main.c"
else
	cat "$work/control.log"; bad "the unchanged copy does not compile"
fi

# try FILE HEADER: FILE including HEADER must not compile, HEADER not found
try() {
	local file=$1 header=$2 obj=${1}.o log=$work/up.log
	cp "$work/src/ctl/$file" "$work/keep"
	printf '#include "%s"\n' "$header" >>"$work/src/ctl/$file"
	if make -C "$b/ctl" -s "$obj" >"$log" 2>&1; then
		bad "ctl/$file including \"$header\" compiled: the fence does not hold"
	elif grep -q "$header: No such file" "$log"; then
		ok "ctl/$file including \"$header\" fails: the header is not on its path"
	else
		cat "$log"; bad "ctl/$file including \"$header\" failed for another reason"
	fi
	cp "$work/keep" "$work/src/ctl/$file"
}
try base/arena.c status/status_types.h
try spec/spec.c plan/settings.h
try bench/jobs.c submit/submit_private.h
try cli/main.c bench/jobs.h

# the rules checker on the copy: clean as it is, and each broken rule named
check() { python3 "$src/tests/layout/check_layout.py" "$work/src" 2>&1; }
if out=$(check); then ok "the checker passes the copy"; else echo "$out"; bad "the checker refuses the unchanged copy"; fi
# rule_breaks DESC FILE LINE PATTERN: LINE appended to FILE makes the checker print PATTERN
rule_breaks() {
	cp "$work/src/ctl/$2" "$work/keep"
	printf '%s\n' "$3" >>"$work/src/ctl/$2"
	if out=$(check); then
		bad "$1: the checker passed it"
	elif grep -q "$4" <<<"$out"; then
		ok "$1: refused"
	else
		echo "$out"; bad "$1: refused for another reason"
	fi
	cp "$work/keep" "$work/src/ctl/$2"
}
rule_breaks "an upward include" base/stats.c '#include "report/report_html.h"' 'ctl/base/stats.c:.*report/report_html.h'
rule_breaks "a Slurm command line outside slurm_cmd.c" submit/lane.c \
	'static char *q[] = { "squeue", "--me", NULL };' 'ctl/submit/lane.c:.*Slurm command line'
rule_breaks "a record key spelt as a literal" status/status_logs.c \
	'static const void *k(const void *p) { return sb_mp_get(p, "exit_code"); }' 'ctl/status/status_logs.c:.*record key "exit_code"'
[ "$fails" = 0 ] && echo "the fence holds: 4 upward includes refused, the rules checked" || { echo "FAILED: $fails"; exit 1; }
