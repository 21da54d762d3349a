#!/usr/bin/env bash
# Installs the build into a temporary prefix and checks the install layout:
# the tools run from it without LD_LIBRARY_PATH, the shared library has its
# SONAME, the man pages exist and render, and a small C program builds and
# runs against the installed library both with pkg-config and with CMake's
# find_package(sbench).
set -euo pipefail
# (a pipe into grep reads all its input: "grep -q" would end a writer early,
# and with pipefail its SIGPIPE would fail the pipe, a match or not)
: "${SB_BUILD:?}" "${SB_SRC:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
P=$work/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$SB_BUILD" --prefix "$P" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }

for f in bin/sbctl bin/sbagent include/sbench/sbench.h include/sbench/error.h \
	 include/sbench/spec.h include/sbench/plan.h include/sbench/log.h include/sbench/key.h \
	 include/sbench/format.h include/sbench/status.h include/sbench/analyze.h \
	 include/sbench/index.h include/sbench/bench.h include/sbench/context.h \
	 lib/pkgconfig/sbench.pc lib/cmake/sbench/sbenchConfig.cmake \
	 lib/cmake/sbench/sbenchConfigVersion.cmake lib/cmake/sbench/sbenchTargets.cmake; do
	[ -e "$P/$f" ] || fail "$f not installed"
done
ls "$P"/lib/libsbench.so.* >/dev/null 2>&1 || fail "no libsbench.so.* installed"
[ -L "$P/lib/libsbench.so" ] || fail "no libsbench.so development link"
soname=$(objdump -p "$P/lib/libsbench.so" | awk '$1 == "SONAME" { print $2 }')
[[ $soname =~ ^libsbench\.so\.[0-9]+$ ]] || fail "SONAME is '$soname'"
# exactly the functions of the installed headers are exported: each
# exported symbol is declared in a header (a program that includes them all
# takes its address, with implicit declarations an error), and each
# function a header declares is exported
nm -D --defined-only "$P/lib/libsbench.so" | awk '$2 ~ /[TDBRVW]/ { sub(/@.*/, "", $3); print $3 }' |
	grep -v '^SBENCH_' | sort -u >"$work/exported"
[ "$(wc -l <"$work/exported")" -gt 100 ] || fail "libsbench.so exports only $(wc -l <"$work/exported") symbols"
if grep -v '^sb_' "$work/exported" | grep . >/dev/null; then
	grep -v '^sb_' "$work/exported" | head >&2
	fail "libsbench.so exports symbols other than sb_*"
fi
{
	for h in "$P"/include/sbench/*.h; do echo "#include <sbench/${h##*/}>"; done
	echo "int main(void)"
	echo "{"
	sed 's/.*/	(void)\&&;/' "$work/exported"
	echo "	return 0;"
	echo "}"
} >"$work/exports.c"
cc -std=c11 -Wall -Werror -Werror=implicit-function-declaration -c -I"$P/include" \
	-o "$work/exports.o" "$work/exports.c" 2>"$work/exports.err" ||
	{ head -20 "$work/exports.err" >&2
	  fail "libsbench.so exports symbols that no installed header declares"; }
cmake -DTEMPLATE="$SB_SRC/ctl/libsbench.map" -DHEADER_DIR="$P/include/sbench" -DOUT="$work/declared.map" \
	-P "$SB_SRC/ctl/libsbench-map.cmake" || fail "cannot list the functions of the installed headers"
grep -o 'sb_[a-z0-9_]*' "$work/declared.map" | sort -u >"$work/declared"
missing=$(comm -23 "$work/declared" "$work/exported")
[ -z "$missing" ] || fail "declared in an installed header but not exported: $missing"
# and an internal function (sbctl's own modules) is not
if grep -qx 'sb_status_gather\|sb_index_open\|sb_proc_run' "$work/exported"; then
	fail "libsbench.so exports internal functions"
fi

# the tools run from the prefix alone
version=$(env -u LD_LIBRARY_PATH "$P/bin/sbctl" --version)
[[ $version =~ ^sbctl\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "sbctl --version printed '$version'"
env -u LD_LIBRARY_PATH "$P/bin/sbagent" --version >/dev/null || fail "installed sbagent does not run"
env -u LD_LIBRARY_PATH "$P/bin/sbctl" plan "$SB_SRC/examples/demo-sweep.yaml" >/dev/null \
	|| fail "installed sbctl cannot plan"

# man pages: one per command, sbagent, libsbench(3); each renders
for page in sbctl sbagent sbctl-keygen sbctl-log sbctl-plan sbctl-submit sbctl-status \
	    sbctl-wait sbctl-analyze sbctl-report sbctl-export sbctl-verify sbctl-rerun sbctl-cancel sbctl-output sbctl-list sbctl-index; do
	[ -f "$P/share/man/man1/$page.1" ] || fail "man page $page.1 not installed"
done
[ -f "$P/share/man/man3/libsbench.3" ] || fail "man page libsbench.3 not installed"
[ -f "$P/share/man/man5/sbench-spec.5" ] || fail "man page sbench-spec.5 (the spec reference) not installed"
[ -f "$P/share/man/man7/sbench-classes.7" ] || fail "man page sbench-classes.7 (the classes) not installed"
MANWIDTH=100 man -l "$P/share/man/man5/sbench-spec.5" 2>/dev/null | grep -q "checkpoint" \
	|| fail "sbench-spec(5) does not document the spec's keys"
(
	cd "$P/share/man"
	for f in man1/*.1 man3/*.3 man5/*.5 man7/*.7; do
		out=$(MANWIDTH=100 man -l "$f" 2>"$work/man.err") || fail "man -l $f failed: $(cat "$work/man.err")"
		grep -q "failed .so request\|can't open" "$work/man.err" && fail "man -l $f: $(cat "$work/man.err")"
		name=$(basename "$f"); name=${name%.*}
		grep -q "NAME" <<<"$out" || fail "man -l $f shows no NAME section"
		# a text line read as a roff request vanishes from the page
		lost=$(MANWIDTH=100 man --warnings -l "$f" 2>&1 >/dev/null | grep "not defined" || true)
		[ -z "$lost" ] || fail "man -l $f loses text: $lost"
		# on an 80-column terminal groff has nothing to say: no table
		# wider than the line, no line it cannot break or adjust
		warned=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null || true)
		[ -z "$warned" ] || fail "man --warnings -l $f (80 columns) warns: $warned"
	done
)
MANWIDTH=100 man -l "$P/share/man/man1/sbctl-status.1" 2>/dev/null | grep "sbctl status" >/dev/null \
	|| fail "sbctl-status(1) does not describe sbctl status"
# the pages they cite are installed (an install has no docs/ directory)
[ -f "$P/share/doc/sbench/spec.md" ] || fail "docs/spec.md is not installed in share/doc/sbench"
cited=$(cat "$P"/share/man/man*/* | grep -o 'share/doc/sbench/[a-z0-9-]*\.md' | sort -u)
[ -n "$cited" ] || fail "the man pages cite no installed page"
for c in $cited; do
	[ -f "$P/$c" ] || fail "a man page cites $c, which is not installed"
done
left=$(grep -l 'docs/[a-z0-9-]*\.md' "$P"/share/man/man*/* || true)
[ -z "$left" ] || fail "man pages cite docs/ of a source tree: $left"

# a program against the installed library, with pkg-config
cat >"$work/prog.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <sbench/sbench.h>

int main(int argc, char **argv)
{
	struct sb_error err = { 0 };
	struct sb_spec *spec;
	struct sb_plan *plan;

	if (argc != 2)
		return 2;
	spec = sb_spec_load(argv[1], &err);
	plan = spec ? sb_plan_create(spec, &err) : NULL;
	if (plan == NULL) {
		fprintf(stderr, "%s\n", err.msg);
		sb_spec_destroy(spec);
		return 2;
	}
	printf("%s %zu %s\n", sb_version(), sb_plan_count(plan), sb_plan_benchmark_digest_hex(plan));
	sb_plan_destroy(plan);
	sb_spec_destroy(spec);
	return 0;
}
C
want=$("$SB_BUILD/bin/sbctl" plan "$SB_SRC/examples/demo-sweep.yaml" --json |
	jq -r '"\(.benchmark.children) \(.benchmark.digest)"')
want="${version#sbctl } $want"
export PKG_CONFIG_PATH=$P/lib/pkgconfig
# shellcheck disable=SC2046
cc -Wall -Werror -o "$work/prog-pc" "$work/prog.c" $(pkg-config --cflags --libs sbench) \
	-Wl,-rpath,"$P/lib" || fail "pkg-config build"
got=$("$work/prog-pc" "$SB_SRC/examples/demo-sweep.yaml")
[ "$got" = "$want" ] || fail "pkg-config program printed '$got', want '$want'"
ldd "$work/prog-pc" | grep "$P/lib/libsbench.so" >/dev/null || fail "pkg-config program not linked to the installed library"

# the headers are C++-safe: a C++ program links against the C symbols
# (a header without extern "C" would make it look for mangled names)
cat >"$work/prog.cc" <<'CC'
#include <sbench/sbench.h>
int main()
{
	struct sb_error err = {};
	struct sb_ctx *ctx = sb_ctx_create(&err);
	int ok = ctx != nullptr && sb_version() != nullptr &&
		 sb_class_name(SB_CLASS_FAILED)[0] == 'f' && sb_error_code_name(SB_ERR_TIMEOUT)[0] == 't';
	sb_ctx_destroy(ctx);
	sb_spec_destroy(nullptr);
	struct sb_key key = {};
	sb_key_cleanse(&key);
	ok = ok && sb_log_tail_name(SB_LOG_TAIL_OK) != nullptr;
	return ok ? 0 : 1;
}
CC
# shellcheck disable=SC2046
c++ -std=c++11 -Wall -Werror -o "$work/prog-cxx" "$work/prog.cc" $(pkg-config --cflags --libs sbench) \
	-Wl,-rpath,"$P/lib" || fail "a C++ program cannot use the installed headers"
"$work/prog-cxx" || fail "the C++ program failed"

# and with CMake's find_package
mkdir "$work/cm"
cp "$work/prog.c" "$work/cm/"
cat >"$work/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(prog LANGUAGES C)
find_package(sbench 0 REQUIRED)
add_executable(prog prog.c)
target_link_libraries(prog PRIVATE sbench::sbench)
CM
cmake -S "$work/cm" -B "$work/cm/build" -DCMAKE_PREFIX_PATH="$P" >"$work/cm.log" 2>&1 ||
	{ cat "$work/cm.log"; fail "find_package(sbench) configure"; }
cmake --build "$work/cm/build" >>"$work/cm.log" 2>&1 || { cat "$work/cm.log"; fail "find_package build"; }
got=$("$work/cm/build/prog" "$SB_SRC/examples/demo-sweep.yaml")
[ "$got" = "$want" ] || fail "find_package program printed '$got', want '$want'"
# the worked examples of docs/api.md, as written, against the install: the
# first C block plans a spec and verifies a log, the second computes a status
example() { awk -v want="$1" '/^```c$/ { n++; on = n == want; next } /^```$/ { on = 0 } on' "$SB_SRC/docs/api.md"; }
example 1 >"$work/example.c"
example 2 >"$work/example-status.c"
[ -s "$work/example.c" ] && [ -s "$work/example-status.c" ] || fail "docs/api.md lacks its two C examples"
cc -Wall -Wextra -Werror -o "$work/example" "$work/example.c" $(pkg-config --cflags --libs sbench) \
	-Wl,-rpath,"$P/lib" || fail "docs/api.md example does not build"
"$P/bin/sbctl" keygen "$work/k"
# the live watch helper, where the installed sbagent looks for it
[ -x "$P/libexec/sbench/sbagent-watch" ] || fail "libexec/sbench/sbagent-watch not installed"
rc=0; env -u LD_LIBRARY_PATH "$P/libexec/sbench/sbagent-watch" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "the installed sbagent-watch does not run (exit $rc, want its usage's 2)"
"$P/bin/sbagent" --key "$work/k" --log "$work/run.log" -- true
got=$("$work/example" "$SB_SRC/examples/demo-sweep.yaml" "$work/k" "$work/run.log") ||
	fail "docs/api.md example exited $?"
grep -q "2 of 2 records verified, tail ok" <<<"$got" || fail "docs/api.md example printed '$got'"
cc -Wall -Wextra -Werror -o "$work/example-status" "$work/example-status.c" \
	$(pkg-config --cflags --libs sbench) -Wl,-rpath,"$P/lib" || fail "docs/api.md status example does not build"
rc=0
env -u SB_INDEX HOME="$work" "$work/example-status" "$work/nowhere" >"$work/es.out" 2>"$work/es.err" || rc=$?
[ "$rc" = 2 ] || fail "docs/api.md status example: a missing benchmark exits $rc, not 2"
grep -q "nowhere" "$work/es.err" || fail "docs/api.md status example says '$(cat "$work/es.err")'"
# the Python package from the install, without LD_LIBRARY_PATH, with every
# interpreter here, and in a fresh venv of Debian's interpreter
site=$(echo "$P"/lib/python3.*/site-packages)
[ -f "$site/sbench/__init__.py" ] || fail "the Python package is not installed under lib/python3.X/site-packages"
pys=(/usr/bin/python3)
command -v python3 >/dev/null && [ "$(command -v python3)" != /usr/bin/python3 ] && pys+=("$(command -v python3)")
/usr/bin/python3 -m venv "$work/venv" || fail "cannot make a venv"
pys+=("$work/venv/bin/python")
for py in "${pys[@]}"; do
	got=$(env -u LD_LIBRARY_PATH PYTHONPATH="$site" "$py" -c '
import sys, sbench
p = sbench.plan(sys.argv[1])
print(sbench.__version__, p["benchmark"]["children"], p["benchmark"]["digest"])' \
		"$SB_SRC/examples/demo-sweep.yaml") || fail "import sbench from the install with $py"
	[ "$got" = "$want" ] || fail "$py: the installed package printed '$got', want '$want'"
done
# docs/python.md's walkthrough, as a new user runs it: in the fresh venv,
# from the install, on the fake Slurm of the build tree
mkdir "$work/walk"
ln -s "$SB_BUILD" "$work/walk/build"
(cd "$work/walk" && env -u LD_LIBRARY_PATH PYTHONPATH="$site" "$work/venv/bin/python" -c '
import re, sys
text = open(sys.argv[1]).read()
ns = {}
for block in re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M):
    exec(compile(block, "docs/python.md", "exec"), ns)
assert ns["best"]["params"]["lr"] == 0.1
' "$SB_SRC/docs/python.md" >"$work/walk.out" 2>&1) || { cat "$work/walk.out"; fail "docs/python.md walkthrough in a venv from the install"; }
echo "install layout ok: $P"
