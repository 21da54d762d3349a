#!/bin/bash
# The checks before anything is submitted (docs/sbctl-submit.md, "Checks
# before submitting"): a misspelt program and a misspelt file under
# {spec_dir} are refused (exit 2) with the spec's position and a did-you-
# mean, nothing made and no sbatch run, by submit, --dry-run and the
# Python submit (not by plan, whose output is the spec's alone); a parameter in a path
# checks each distinct value; shell strings and code after -c are not
# analysed; a program not on PATH is refused when the jobs get this very
# PATH, and only warned about when the spec gives them another (env PATH,
# --export) or names it by an absolute path.
. "$(dirname "$0")/lib.sh"

export SB_LOOKUP_WINDOW=0.5
proj="$T_ROOT/work/proj"
mkdir -p "$proj/data"
echo 'print("trained")' > "$proj/train.py"
: > "$proj/data/cifar10.csv"
cd "$proj" || exit 1
shim sbatch ''
nothing_made() { [ "$(ls "$SB_ROOT" 2>/dev/null | wc -l)" = 0 ] && [ "$(count_calls sbatch)" = 0 ]; }

# ---- the motivating spec: two typos ---------------------------------------------
write_spec typo.yaml 'name: typo
command: [pyhton3, "{spec_dir}/trian.py"]'
"$SBCTL" submit typo.yaml > typo.out 2> typo.err
expect "a misspelt program and script: exit 2" "$?" 2
expect "the first line names the program, its position and the fix" "$(sed -n 1p typo.err)" \
	"sbctl submit: typo.yaml:2:11: the command's program 'pyhton3' is not on PATH (did you mean 'python3'?): every child would fail (exit 127)"
expect "the second line names the file, what it is and the fix" "$(sed -n 2p typo.err)" \
	"typo.yaml:2:20: command element 1 '{spec_dir}/trian.py' names '$proj/trian.py', which does not exist (did you mean '{spec_dir}/train.py'?)"
expect "nothing on stdout" "$(cat typo.out)" ""
expect "nothing was made and no sbatch ran" "$(nothing_made && echo none)" none
"$SBCTL" submit typo.yaml --dry-run > /dev/null 2> dry.err
expect "a dry run refuses it too (exit 2)" "$?" 2
expect_match "with the same message" "$(cat dry.err)" "did you mean 'python3'"
"$SBCTL" submit typo.yaml --check=5 --lane gse > /dev/null 2> lane.err
expect "with --lane and --check too (exit 2)" "$?" 2
expect "and still no benchmark made, no sbatch" "$(nothing_made && echo none)" none
"$SBCTL" plan typo.yaml > plan.out 2> plan.err
expect "plan plans it (exit 0) and does not check: its output is the spec's alone" "$?:$(cat plan.err)" "0:"

# ---- a parameter in a path: each distinct value ---------------------------------
write_spec param.yaml 'name: param
command: [python3, "{spec_dir}/train.py", --data, "{spec_dir}/data/{ds}.csv"]
parameters: {ds: [cifar10, cifar]}
repeats: 3'
"$SBCTL" submit param.yaml > /dev/null 2> param.err
expect "a missing value of a parameterised path: exit 2" "$?" 2
expect "one line for the missing value (not one per child), naming the first child" "$(cat param.err)" \
	"sbctl submit: param.yaml:2:51: command element 3 '{spec_dir}/data/{ds}.csv' of child 3 names '$proj/data/cifar.csv', which does not exist (did you mean '{spec_dir}/data/cifar10.csv'?)"
write_spec dir.yaml 'name: dirtypo
command: [python3, "{spec_dir}/dta/cifar10.csv"]'
"$SBCTL" submit dir.yaml > /dev/null 2> dir.err
expect_match "a misspelt directory: the first missing component, the rest kept" "$(cat dir.err)" \
	"which does not exist \\(did you mean '\\{spec_dir\\}/data/cifar10.csv'\\?\\)$"

# ---- what is not analysed, or allowed --------------------------------------------
write_spec shell.yaml 'name: shell
command: "pyhton3 {spec_dir}/trian.py"'
"$SBCTL" submit shell.yaml --dry-run > /dev/null 2> shell.err
expect "a shell string is not analysed: no refusal" "$?" 0
write_spec shc.yaml 'name: shc
command: [sh, -c, "{spec_dir}/trian.py --x 1; python3 -c \"open(0)\"", "{spec_dir}/train.py"]'
"$SBCTL" submit shc.yaml --dry-run > /dev/null 2> shc.err
expect "sh -c: the string is not analysed, the argument after it is (and exists)" "$?" 0
write_spec shc2.yaml 'name: shc2
command: [bash, -lc, "true", "{spec_dir}/trian.py"]'
"$SBCTL" submit shc2.yaml --dry-run > /dev/null 2> shc2.err
expect "bash -lc STRING ARG: the argument after the string is checked (exit 2)" "$?" 2
write_spec pyc.yaml 'name: pyc
command: [python3, -c, "{spec_dir}/not-a-file"]'
"$SBCTL" submit pyc.yaml --dry-run > /dev/null 2>&1
expect "python3 -c CODE: the code is not a file" "$?" 0
write_spec gone.yaml 'name: gone
command: [sbench-no-such-tool, x]'
"$SBCTL" submit gone.yaml > /dev/null 2> gone.err
expect "a program on no PATH, with nothing close: refused (exit 2)" "$?" 2
expect_match "it says the jobs get this PATH, and the way out" "$(cat gone.err)" \
	"is not on PATH, which the jobs get too \\(Slurm gives them the environment of the submit\\): .*write its absolute path \\(a warning then\\) or set PATH in the spec's env$"
write_spec envp.yaml "name: envp
command: [sbench-no-such-tool, x]
env: {PATH: \"/opt/node-only/bin:/usr/bin:/bin\"}"
"$SBCTL" submit envp.yaml --dry-run > /dev/null 2> envp.err
expect "the spec's env sets PATH: a warning only (exit 0)" "$?" 0
expect_match "the warning names the element and why it may still work" "$(cat envp.err)" \
	"^sbctl: warning: envp.yaml:2:11: the command's program 'sbench-no-such-tool' is not on the PATH the spec's env sets on this node; the compute nodes may have it"
write_spec abs.yaml 'name: abs
command: [/opt/node-only/bin/tool]'
"$SBCTL" submit abs.yaml --dry-run > /dev/null 2> abs.err
expect "an absolute program this node lacks: a warning only (exit 0)" "$?" 0
expect_match "it says so" "$(cat abs.err)" "'/opt/node-only/bin/tool' does not exist on this node; the compute nodes may have it"
expect "dry runs made nothing" "$(nothing_made && echo none)" none

# ---- a spec that passes the checks runs, warnings and all --------------------------
rm -f "$SHIM/sbatch" "$T_ROOT/calls.sbatch"
write_spec ok.yaml 'name: ok
command: [python3, "{spec_dir}/train.py", --data, "{spec_dir}/data/{ds}.csv"]
parameters: {ds: [cifar10]}
results: []'
"$SBCTL" submit ok.yaml --json > ok.json 2> ok.err
expect "a correct spec submits (exit 0)" "$?" 0
expect "with no warning about its command" "$(grep -c "command's program\|command element" ok.err)" 0
"$SBCTL" wait ok --interval 0.2 --timeout 60 > /dev/null
expect "and its child succeeds" "$?" 0

# ---- Python: the same refusal, as a SpecError with the position -------------------
py - "$proj/typo.yaml" > py.out 2>&1 <<'PY'
import sys, sbench
try:
    sbench.submit(sys.argv[1])
    print("submitted")
except sbench.SpecError as e:
    print(e.line, e.column, "did you mean 'python3'" in str(e), "'{spec_dir}/train.py'" in str(e))
PY
expect "Python: a SpecError at 2:11 naming both fixes" "$(cat py.out)" "2 11 True True"
t_done
