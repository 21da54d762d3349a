#!/bin/bash
# Where the command runs (docs/spec.md): each child in its own run
# directory, the spec's directory given at run time ({spec_dir},
# SB_SPEC_DIR), never in a digest; a first spec that names a file next to
# it is refused by submit (exit 2) with the fix, and plan warns.
. "$(dirname "$0")/lib.sh"

export SB_LOOKUP_WINDOW=0.5
proj="$T_ROOT/work/my proj's dir"
mkdir -p "$proj"
cat > "$proj/train.py" <<'PY'
import json, os, sys
lr = float(sys.argv[sys.argv.index("--lr") + 1])
json.dump({"loss": 1.0 - lr, "cwd": os.getcwd(), "spec_dir": os.environ.get("SB_SPEC_DIR")},
          open("metrics.json", "w"))
PY
cd "$proj" || exit 1

# ---- the first spec a user writes: refused, with the fix ------------------------
write_spec first.yaml 'name: first
command: [python3, train.py, --lr, "{lr}"]
parameters:
  lr: [0.1, 0.2]
results: [metrics.json]
metrics: metrics.json'
"$SBCTL" plan first.yaml > /dev/null 2> plan.err
expect "plan still plans it (exit 0)" "$?" 0
expect_match "plan warns, naming the file and the fix" "$(cat plan.err)" \
	"^sbctl plan: warning: first.yaml: the command's 'train.py' is the file '.*/train.py' next to the spec, .* write '\\{spec_dir\\}/train.py' instead .*\\(sbctl submit refuses this spec\\)$"
"$SBCTL" submit first.yaml > /dev/null 2> sub.err
expect "submit refuses it (exit 2)" "$?" 2
expect_match "submit names the file and says what to write instead" "$(cat sub.err)" \
	"^sbctl submit: first.yaml: the command's 'train.py' is the file '$(printf '%s' "$proj" | sed "s/[][().*]/\\\\&/g")/train.py' next to the spec, but each child's command runs in its own run directory \\(runs/<index>/ of the benchmark\\), where there is no such file: write '\\{spec_dir\\}/train.py' instead"
expect "nothing was created" "$(ls "$SB_ROOT" 2>/dev/null | wc -l)" 0
write_spec dot.yaml 'name: dot
command: ["./train.py"]'
"$SBCTL" submit dot.yaml > /dev/null 2> dot.err
expect "a ./program next to the spec is refused too" "$?" 2
expect_match "its fix drops the ./" "$(cat dot.err)" "write '\\{spec_dir\\}/train.py' instead"
write_spec mod.yaml 'name: mod
command: [python3, -m, train, --lr, "1"]'
"$SBCTL" plan mod.yaml > /dev/null 2> mod.err
expect "python3 -m names a module, not a file: no warning" "$(cat mod.err)" ""

# ---- the fix: {spec_dir} ---------------------------------------------------------
write_spec fixed.yaml 'name: fixed
command: [python3, "{spec_dir}/train.py", --lr, "{lr}"]
parameters:
  lr: [0.1, 0.2]
env:
  WHERE: "{spec_dir}/data"
results: [metrics.json]
metrics: metrics.json'
"$SBCTL" plan fixed.yaml > /dev/null 2> fixed.err
expect "the fixed spec plans without a warning" "$(grep -v 'repository' fixed.err)" ""
"$SBCTL" submit fixed.yaml --json > f.json 2> f.err
expect "the fixed spec submits (exit 0)" "$?" 0
dir=$(jqf f.json .benchmark.dir)
"$SBCTL" wait fixed --interval 0.2 --timeout 60 > /dev/null
expect "every child succeeds" "$?" 0
expect "the command ran in the child's run directory" "$(jq -r .cwd "$dir/runs/1/metrics.json")" "$dir/runs/1"
expect "SB_SPEC_DIR is the spec's directory" "$(jq -r .spec_dir "$dir/runs/0/metrics.json")" "$proj"
expect "benchmark.msgpack records the spec's directory" "$(jq -r .spec.dir "$dir/benchmark.json")" "$proj"
"$SBCTL" log "$(log_of "$dir" 0)" --json | jq -c 'select(.type=="start") | .command' > cmd.json
expect "the start record shows the command as it ran" "$(cat cmd.json)" "[\"python3\",\"$proj/train.py\",\"--lr\",\"0.1\"]"
"$SBCTL" analyze fixed --json > an.json
expect "analyze reads the metrics of both" "$(jq -c '[.groups[].metrics.loss.mean]' an.json)" "[0.9,0.8]"

# a shell string: the directory quoted (it has a space and a quote); env too
write_spec sh.yaml 'name: shelled
command: "python3 {spec_dir}/train.py --lr {lr} && test \"$WHERE\" = \"$SB_SPEC_DIR/data\""
parameters:
  lr: [0.5]
env:
  WHERE: "{spec_dir}/data"
results: [metrics.json]'
"$SBCTL" submit sh.yaml --json > sh.json
"$SBCTL" wait shelled --interval 0.2 --timeout 60 > /dev/null
expect "a shell string with {spec_dir} in a directory with a space and a quote works" "$?" 0

# ---- digests do not depend on where the spec lives, only on what is there --------
# (the code the command names is part of a child: a copy of the spec
# with a copy of its train.py is the same benchmark; without it, another)
mkdir -p "$T_ROOT/other/place"
cp fixed.yaml "$T_ROOT/other/place/copy.yaml"
"$SBCTL" plan fixed.yaml --json > p1.json
(cd "$T_ROOT/other" && "$SBCTL" plan place/copy.yaml --json) > p0.json
expect "a copy of the spec without its script: other digests" \
	"$(cmp -s p1.json p0.json || echo differ)" differ
cp train.py "$T_ROOT/other/place/train.py"
(cd "$T_ROOT/other" && "$SBCTL" plan place/copy.yaml --json) > p2.json
expect "two copies in two directories, each with the same script: the same plan, digests and all" \
	"$(cmp p1.json p2.json && echo same)" same
expect_match "the command keeps {spec_dir} as written" "$(jq -c '.children[0].command' p1.json)" '"\{spec_dir\}/train.py"'
(cd "$T_ROOT/other" && "$SBCTL" submit place/copy.yaml --json) > c.json 2>/dev/null
expect "submitting the copy finds the same benchmark" "$(jqf c.json '"\(.benchmark.dir) \(.already_submitted)"')" "$dir true"

# ---- one benchmark per digest, whichever root it is submitted to -----------------
# (a relative --root, or none, differs from one working directory to the next)
(cd "$T_ROOT/other" && "$SBCTL" submit place/copy.yaml --root "$T_ROOT/other/runs" --json) > c2.json 2> c2.err
expect "another root: still the benchmark already submitted" \
	"$(jqf c2.json '"\(.benchmark.dir) \(.already_submitted)"')" "$dir true"
expect_match "submit says where it is, and how to make a new one" "$(cat c2.err)" \
	"note: benchmark fixed \([0-9a-f]{12}\) is in '.*fixed-[0-9a-f]{12}', submitted there before .*a new 'tag' in the spec makes a new benchmark"
expect "no second copy was made" "$(ls "$T_ROOT/other/runs" 2>/dev/null | wc -l)" 0
(cd "$T_ROOT/other" && "$SBCTL" submit place/copy.yaml --root "$T_ROOT/other/runs" --dry-run) > dr.out 2> /dev/null
expect_match "a dry run names the same directory" "$(cat dr.out)" "$(basename "$dir")"
expect "list: one row for it" "$("$SBCTL" list --json | jq '[.benchmarks[] | select(.name == "fixed")] | length')" 1
# a copy made by hand (cp -a to another root): a row of its own, after the
# rebuild as in list, each copy with its own status
mkdir -p "$T_ROOT/root2"
cp -a "$dir" "$T_ROOT/root2/"
"$SBCTL" index --rebuild "$SB_ROOT" "$T_ROOT/root2" > /dev/null 2>&1
expect "index --rebuild: a row per directory" \
	"$("$SBCTL" list --json | jq -r '[.benchmarks[] | select(.name == "fixed") | .dir] | sort | join(" ")')" \
	"$(printf '%s\n' "$dir" "$T_ROOT/root2/$(basename "$dir")" | sort | tr '\n' ' ' | sed 's/ $//')"
"$SBCTL" status "$T_ROOT/root2/$(basename "$dir")" --offline > /dev/null
expect "the copy's status is its own (its logs verify there)" "$?" 0
"$SBCTL" status "$dir" --offline > /dev/null
expect "and the original's too (no head of the copy taken for its own)" "$?" 0
"$SBCTL" status "$(jqf f.json .benchmark.digest | cut -c1-12)" > /dev/null 2> amb.err
expect "a digest prefix of two copies is no choice (exit 2)" "$?" 2
expect_match "it names both directories" "$(cat amb.err)" "matches 2 benchmark directories .* in $T_ROOT/root2/"

write_spec bad.yaml 'name: bad
command: [echo, "{spec_dir}"]
parameters:
  spec_dir: [1]'
"$SBCTL" plan bad.yaml > /dev/null 2> bad.err
expect "spec_dir is a reserved parameter name (exit 2)" "$?" 2
expect_match "it says so" "$(cat bad.err)" "parameter name 'spec_dir' is reserved"
t_done
