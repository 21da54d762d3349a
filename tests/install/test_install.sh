#!/usr/bin/env bash
# Installs the build into a temporary prefix and checks the install layout:
# the tools run from it without LD_LIBRARY_PATH, the shared library has its
# SONAME, the man pages exist and render, and a small C program builds and
# runs against the installed library both with pkg-config and with CMake's
# find_package(sbench).
set -euo pipefail
: "${SB_BUILD:?}" "${SB_SRC:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
P=$work/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$SB_BUILD" --prefix "$P" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }

for f in bin/sbctl bin/sbagent include/sbench/sbench.h include/sbench/error.h \
	 include/sbench/spec.h include/sbench/plan.h include/sbench/log.h include/sbench/key.h \
	 lib/pkgconfig/sbench.pc lib/cmake/sbench/sbenchConfig.cmake \
	 lib/cmake/sbench/sbenchConfigVersion.cmake lib/cmake/sbench/sbenchTargets.cmake; do
	[ -e "$P/$f" ] || fail "$f not installed"
done
ls "$P"/lib/libsbench.so.* >/dev/null 2>&1 || fail "no libsbench.so.* installed"
[ -L "$P/lib/libsbench.so" ] || fail "no libsbench.so development link"
soname=$(objdump -p "$P/lib/libsbench.so" | awk '$1 == "SONAME" { print $2 }')
[[ $soname =~ ^libsbench\.so\.[0-9]+$ ]] || fail "SONAME is '$soname'"
# nothing but sb_* is exported
if nm -D --defined-only "$P/lib/libsbench.so" | awk '$2 ~ /[TDBR]/ { print $3 }' | grep -v '^sb_' | grep -q .; then
	nm -D --defined-only "$P/lib/libsbench.so" | awk '$2 ~ /[TDBR]/ { print $3 }' | grep -v '^sb_' | head >&2
	fail "libsbench.so exports symbols other than sb_*"
fi

# the tools run from the prefix alone
version=$(env -u LD_LIBRARY_PATH "$P/bin/sbctl" --version)
[[ $version =~ ^sbctl\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "sbctl --version printed '$version'"
env -u LD_LIBRARY_PATH "$P/bin/sbagent" --version >/dev/null || fail "installed sbagent does not run"
env -u LD_LIBRARY_PATH "$P/bin/sbctl" plan "$SB_SRC/examples/demo-sweep.yaml" >/dev/null \
	|| fail "installed sbctl cannot plan"

# man pages: one per command, sbagent, libsbench(3); each renders
for page in sbctl sbagent sbctl-keygen sbctl-log sbctl-plan sbctl-submit sbctl-status \
	    sbctl-wait sbctl-analyze sbctl-rerun sbctl-cancel sbctl-output sbctl-list sbctl-index; do
	[ -f "$P/share/man/man1/$page.1" ] || fail "man page $page.1 not installed"
done
[ -f "$P/share/man/man3/libsbench.3" ] || fail "man page libsbench.3 not installed"
(
	cd "$P/share/man"
	for f in man1/*.1 man3/*.3; do
		out=$(MANWIDTH=100 man -l "$f" 2>"$work/man.err") || fail "man -l $f failed: $(cat "$work/man.err")"
		grep -q "failed .so request\|can't open" "$work/man.err" && fail "man -l $f: $(cat "$work/man.err")"
		name=$(basename "$f"); name=${name%.*}
		grep -q "NAME" <<<"$out" || fail "man -l $f shows no NAME section"
	done
)
MANWIDTH=100 man -l "$P/share/man/man1/sbctl-status.1" 2>/dev/null | grep -q "sbctl status" \
	|| fail "sbctl-status(1) does not describe sbctl status"

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
ldd "$work/prog-pc" | grep -q "$P/lib/libsbench.so" || fail "pkg-config program not linked to the installed library"

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
# the worked example of docs/api.md, as written, against the install
sed -n '/^```c$/,/^```$/p' "$SB_SRC/docs/api.md" | sed '1d;$d' >"$work/example.c"
cc -Wall -Wextra -Werror -o "$work/example" "$work/example.c" $(pkg-config --cflags --libs sbench) \
	-Wl,-rpath,"$P/lib" || fail "docs/api.md example does not build"
"$P/bin/sbctl" keygen "$work/k"
"$P/bin/sbagent" --key "$work/k" --log "$work/run.log" -- true
got=$("$work/example" "$SB_SRC/examples/demo-sweep.yaml" "$work/k" "$work/run.log") ||
	fail "docs/api.md example exited $?"
grep -q "2 of 2 records verified, tail ok" <<<"$got" || fail "docs/api.md example printed '$got'"
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
echo "install layout ok: $P"
