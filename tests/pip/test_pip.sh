#!/usr/bin/env bash
# pip install from a checkout (docs/python.md, "pip install"): builds the
# wheel with `pip wheel --no-build-isolation --no-deps` (setup.py runs
# CMake: Release, no tests), checks that it holds libsbench, sbctl and
# sbagent, installs it with no package index into a fresh venv of a Python
# other than the one CMake found (when this machine has another; it says
# which), and from a directory outside the checkout runs `python -m
# sbench`, the console scripts sbctl and sbagent, `import sbench`, a
# `sbctl submit` on the fake Slurm, and docs/python.md's walkthrough.
#
#   tests/pip/test_pip.sh [CMAKE_BUILD_DIR]
#
# CMAKE_BUILD_DIR is where setup.py builds and is kept (SBENCH_CMAKE_BUILD_DIR):
# an existing Release build without tests is reused as it is (CI passes its
# gcc Release build, so the library is built once); by default a temporary
# directory.  The fake Slurm is that build's fake/bin.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build=$(realpath -m "${1:-$work/cmake}")
fail() { echo "FAIL: $*" >&2; exit 1; }
say() { echo "pip: $*"; }
# the real interpreter behind a command (a pyenv shim runs another program)
real_python() { "$1" -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null; }

version=$(sed -n 's/^project(sbench VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ -n "$version" ] || fail "no version in CMakeLists.txt's project()"

# --- the wheel, built by a Python that has setuptools and wheel (Debian's)
builder=
for py in /usr/bin/python3 "$(command -v python3 || true)"; do
	[ -n "$py" ] && [ -x "$py" ] || continue
	if "$py" -c 'import setuptools, wheel, pip
import sys; sys.exit(int(setuptools.__version__.split(".")[0]) < 61)' 2>/dev/null; then
		builder=$py
		break
	fi
done
[ -n "$builder" ] || fail "no Python 3 with pip, setuptools >= 61 and wheel (apt-get install python3-pip python3-setuptools python3-wheel; tests/install-deps.sh does)"
say "building the wheel with $builder ($(real_python "$builder")), CMake build in $build"
(cd "$src" && SBENCH_CMAKE_BUILD_DIR=$build PIP_NO_INDEX=1 \
	"$builder" -m pip wheel -v --no-build-isolation --no-deps -w "$work/dist" . >"$work/wheel.log" 2>&1) ||
	{ grep -i -m 20 -B 2 -A 6 'error:' "$work/wheel.log" || tail -40 "$work/wheel.log"; fail "pip wheel"; }
wheels=("$work"/dist/sbench-*.whl)
[ ${#wheels[@]} = 1 ] && [ -f "${wheels[0]}" ] || fail "pip wheel made no single sbench wheel: ${wheels[*]}"
wheel=${wheels[0]}
case "${wheel##*/}" in
sbench-"$version"-py3-none-linux_*.whl) ;;
*) fail "wheel ${wheel##*/}: want sbench-$version-py3-none-linux_<machine>.whl (the version of CMakeLists.txt)" ;;
esac

# --- what it holds
if command -v unzip >/dev/null; then
	unzip -l "$wheel" >"$work/contents"
else
	"$builder" -m zipfile -l "$wheel" >"$work/contents"
fi
for f in sbench/__init__.py sbench/__main__.py sbench/_lib.py sbench/_cli.py sbench/checkpoint.py \
	 sbench/_lib/libsbench.so.0 sbench/_bin/sbctl sbench/_bin/sbagent sbench/_bin/sbagent-watch; do
	grep -qE "(^|[[:space:]])$f([[:space:]]|\$)" "$work/contents" || { cat "$work/contents"; fail "the wheel lacks $f"; }
done
"$builder" - "$wheel" <<'PY' || fail "the wheel's files or entry points are wrong"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for name in ("sbench/_bin/sbctl", "sbench/_bin/sbagent", "sbench/_bin/sbagent-watch"):
    mode = z.getinfo(name).external_attr >> 16
    assert mode & 0o111, "%s is not executable in the wheel (mode %o)" % (name, mode)
ep = [n for n in z.namelist() if n.endswith(".dist-info/entry_points.txt")]
text = z.read(ep[0]).decode()
assert "sbctl = sbench._cli:sbctl" in text and "sbagent = sbench._cli:sbagent" in text, text
PY
say "wheel ${wheel##*/}: $(grep -c ' sbench/' "$work/contents") files of the package"

# --- a fresh venv of another Python than CMake's
cmake_py=$(sed -n 's/^_\{0,1\}Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt" | head -1)
cmake_real=$( [ -n "$cmake_py" ] && real_python "$cmake_py" || true)
venv_py=
seen=" "
for py in "$(command -v python3 || true)" /usr/bin/python3 /usr/bin/python3.[0-9] /usr/bin/python3.[0-9][0-9] /usr/local/bin/python3 \
	  "$HOME"/.pyenv/versions/*/bin/python3; do
	[ -n "$py" ] && [ -x "$py" ] || continue
	r=$(real_python "$py") || continue
	case "$seen" in *" $r "*) continue ;; esac
	seen="$seen$r "
	[ "$r" != "$cmake_real" ] || continue
	if "$r" -m venv "$work/probe" >/dev/null 2>&1; then venv_py=$r; break; fi
	rm -rf "$work/probe"
done
if [ -n "$venv_py" ]; then
	say "venv of $venv_py ($("$venv_py" -V 2>&1)); CMake found ${cmake_real:-no Python}"
else
	[ -n "$cmake_real" ] || fail "no Python 3 that can make a venv (apt-get install python3-venv)"
	venv_py=$cmake_real
	say "only one Python here ($venv_py, the one CMake found): the venv is of that one"
fi
"$venv_py" -m venv "$work/venv" || fail "$venv_py -m venv"
V=$work/venv
"$V/bin/python" -m pip install --no-index --no-deps "$wheel" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "pip install of the wheel into the venv"; }
site=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

# --- from outside the checkout, with nothing pointing at it
out=$work/out
mkdir "$out"
ln -s "$build" "$out/build"   # the walkthrough's build/fake/bin
cd "$out"
run() { env -u PYTHONPATH -u LD_LIBRARY_PATH -u SB_AGENT "$@"; }

run "$V/bin/python" -m sbench >"$work/main.out" 2>&1 || { cat "$work/main.out"; fail "python -m sbench"; }
cat "$work/main.out"
grep -qx "sbench *$version" "$work/main.out" || fail "python -m sbench does not print version $version"
for what in "library *$site/sbench/_lib/libsbench.so.0" "sbctl *$site/sbench/_bin/sbctl" \
	    "sbagent *$site/sbench/_bin/sbagent"; do
	grep -qx "$what" "$work/main.out" || fail "python -m sbench does not print '$what'"
done
got=$(run "$V/bin/sbctl" --version) || fail "sbctl --version (the console script)"
[ "$got" = "sbctl $version" ] || fail "sbctl --version printed '$got'"
got=$(run "$V/bin/sbagent" --version) || fail "sbagent --version (the console script)"
[ "$got" = "sbagent $version" ] || fail "sbagent --version printed '$got'"
got=$(run "$V/bin/python" -c 'import sbench; print(sbench.__version__, sbench.__file__)') ||
	fail "import sbench"
[ "$got" = "$version $site/sbench/__init__.py" ] || fail "import sbench: '$got'"
# the console scripts exec the packaged program with the arguments as given
# and argv[0] the script's, and with SIGPIPE and SIGXFSZ back to their
# defaults (Python ignores them, and an exec would keep them ignored)
got=$(run "$V/bin/python" - <<'PY'
import os, signal, sys
from sbench import _cli
def execv(path, argv):
    print(path, argv, signal.getsignal(signal.SIGPIPE) is signal.SIG_DFL,
          signal.getsignal(signal.SIGXFSZ) is signal.SIG_DFL)
    sys.exit(0)
os.execv = execv
sys.argv = ["/some/bin/sbctl", "status", "a b"]
_cli.sbctl()
PY
) || fail "the console script's function"
[ "$got" = "$site/sbench/_bin/sbctl ['/some/bin/sbctl', 'status', 'a b'] True True" ] ||
	fail "the console script would run: $got"
"$V/bin/sbctl" keygen "$work/k"
run "$V/bin/sbagent" --key "$work/k" --log "$work/run.log" -- true || fail "sbagent (the console script) -- true"
run "$V/bin/sbctl" log "$work/run.log" --key "$work/k" >/dev/null || fail "sbctl log of the console script's sbagent"

# sbctl submit on the fake Slurm, as a user of the activated venv
export PATH=$V/bin:$build/fake/bin:$PATH SB_FAKE_SLURM_DIR=$work/slurm SB_FAKE_TIME_UNIT=s \
	SB_ROOT=$work/runs SB_INDEX=$work/index.sqlite
[ "$(command -v sbctl)" = "$V/bin/sbctl" ] || fail "sbctl on PATH is $(command -v sbctl)"
cat >"$out/pip.yaml" <<'YAML'
name: pip-check
command: [sh, -c, 'echo "{{\"x\": {x}}}" > m.json']
parameters:
  x: [1, 2, 3]
results: [m.json]
metrics: m.json
YAML
run sbctl submit pip.yaml >"$work/submit.out" 2>&1 || { cat "$work/submit.out"; fail "sbctl submit"; }
run sbctl wait pip-check --interval 1 --timeout 120 >/dev/null || fail "sbctl wait"
ok=$(run sbctl status pip-check --json | jq -r '.counts.succeeded') || fail "sbctl status"
[ "$ok" = 3 ] || { run sbctl status pip-check; fail "$ok of 3 children succeeded"; }
grep -q "'$site/sbench/_bin/sbagent'" "$work"/runs/pip-check-*/jobs/a0/chunk-0.sh ||
	fail "the batch script does not run the venv's sbagent: $(grep sbagent "$work"/runs/pip-check-*/jobs/a0/chunk-0.sh)"
run sbctl log "$work"/runs/pip-check-*/ >/dev/null || fail "sbctl log of the benchmark"
say "sbctl submit from the venv: 3 of 3 succeeded, run by $site/sbench/_bin/sbagent"

# docs/python.md's walkthrough, in the venv, from here (build/ is the link)
run "$V/bin/python" - "$src/docs/python.md" "$site" >"$work/walk.out" 2>&1 <<'PY' ||
import glob, os, re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)
assert len(blocks) >= 5, "docs/python.md has %d python blocks" % len(blocks)
ns = {}
for block in blocks:
    exec(compile(block, "docs/python.md", "exec"), ns)
assert ns["best"]["params"]["lr"] == 0.1
assert ns["sbench"].__file__.startswith(sys.argv[2] + "/"), ns["sbench"].__file__
script = glob.glob(os.path.join(ns["bench"], "jobs", "a0", "chunk-0.sh"))[0]
assert "'%s/sbench/_bin/sbagent'" % sys.argv[2] in open(script).read(), "the batch script's sbagent"
PY
	{ cat "$work/walk.out"; fail "docs/python.md walkthrough in the venv"; }
say "docs/python.md walkthrough in the venv: ok"
echo "pip install ok: ${wheel##*/} into a venv of $venv_py"
