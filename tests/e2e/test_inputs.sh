#!/bin/bash
# Code identity (docs/spec.md, "Inputs"): the files a command names as
# {spec_dir}/PATH and those of the `inputs` key enter the child digests;
# sbagent hashes them again when the job starts and signs what it found;
# a child whose code changed after submit is `invalid`, naming the file.
. "$(dirname "$0")/lib.sh"

export SB_LOOKUP_WINDOW=0.5
proj="$T_ROOT/work/proj"
mkdir -p "$proj/lib/__pycache__" "$proj/lib/.git"
cat > "$proj/train.py" <<'PY'
import json, sys
VERSION = 1
lr = float(sys.argv[sys.argv.index("--lr") + 1])
json.dump({"loss": 1.0 - lr, "acc": 0.9 * VERSION}, open("metrics.json", "w"))
PY
echo 'HELPER = 1' > "$proj/lib/util.py"
echo 'bytecode' > "$proj/lib/__pycache__/util.pyc"
echo 'x' > "$proj/lib/.git/HEAD"
cd "$proj" || exit 1
spec='name: code
command: [python3, "{spec_dir}/train.py", --lr, "{lr}"]
parameters:
  lr: [0.1, 0.2]
inputs: [lib]
results: [metrics.json]
metrics: metrics.json'
write_spec code.yaml "$spec"

# ---- the digests follow the code ---------------------------------------------
"$SBCTL" plan code.yaml --json > p1.json
expect "plan exits 0" "$?" 0
echo 'changed' > lib/__pycache__/util.pyc
echo 'y' > lib/.git/HEAD
"$SBCTL" plan code.yaml --json > p2.json
expect "__pycache__ and dot entries under an inputs directory are not inputs" \
	"$(cmp p1.json p2.json && echo same)" same
echo 'HELPER = 2' > lib/util.py
"$SBCTL" plan code.yaml --json > p3.json
expect "a listed file's change makes new child digests" \
	"$(jq -r '.children[0].digest' p1.json | cmp -s - <(jq -r '.children[0].digest' p3.json) || echo differ)" differ
echo 'HELPER = 1' > lib/util.py
sed -i 's/VERSION = 1/VERSION = 2/' train.py
"$SBCTL" plan code.yaml --json > p4.json
expect "a change of the script the command names makes new digests" \
	"$(jq -r '.benchmark.digest' p1.json | cmp -s - <(jq -r '.benchmark.digest' p4.json) || echo differ)" differ
sed -i 's/VERSION = 2/VERSION = 1/' train.py
"$SBCTL" plan code.yaml --json > p5.json
expect "the same code again: the same digests" "$(cmp p1.json p5.json && echo same)" same
expect "plan lists the inputs with their digests" \
	"$(jq -r '.benchmark.inputs | keys | join(" ")' p1.json)" "lib/util.py train.py"
expect "... as SHA-256" "$(jq -r '.benchmark.inputs["train.py"]' p1.json)" "$(sha256sum train.py | cut -c1-64)"

# ---- a path built from a parameter: each child its own inputs ---------------------
echo 'print("a")' > a.py && echo 'print("b")' > b.py
write_spec per.yaml 'name: per
command: [python3, "{spec_dir}/{script}"]
parameters:
  script: [a.py, b.py, none.py]'
"$SBCTL" plan per.yaml --json > q1.json
expect "per child: the inputs of all children, listed once" "$(jq -r '.benchmark.inputs | keys | join(" ")' q1.json)" "a.py b.py"
echo 'print("A")' > a.py
"$SBCTL" plan per.yaml --json > q2.json
expect "per child: a.py's change makes child 0 new, and child 0 alone" \
	"$(jq -r '.children[].digest' q1.json | paste -sd' ' | awk '{print $1}' | cmp -s - <(jq -r '.children[0].digest' q2.json) || echo 0-differs) $(jq -c '[.children[1,2].digest]' q1.json | cmp -s - <(jq -c '[.children[1,2].digest]' q2.json) && echo 1,2-same)" \
	"0-differs 1,2-same"

# ---- bad inputs entries: refused with where and why ---------------------------
write_spec none.yaml 'name: none
command: [true]
inputs: ["src/*.py"]'
"$SBCTL" submit none.yaml > /dev/null 2> none.err
expect "an entry that matches nothing: exit 2" "$?" 2
expect_match "it says which entry, where, and why" "$(cat none.err)" \
	"none.yaml:3:10: inputs entry 'src/\*.py': matches no file in '$proj'"
write_spec abs.yaml 'name: abs
command: [true]
inputs: [/etc/passwd]'
"$SBCTL" plan abs.yaml > /dev/null 2> abs.err
expect "an absolute entry: exit 2" "$?" 2
expect_match "it says so" "$(cat abs.err)" "inputs entry '/etc/passwd' is absolute"
mkfifo fifo.py
write_spec fifo.yaml 'name: fifo
command: [python3, "{spec_dir}/fifo.py"]'
timeout 20 "$SBCTL" plan fifo.yaml --json > fifo.json
expect "a FIFO the command names does not hang plan, and is no input" "$?:$(jq -c '.benchmark.inputs' fifo.json)" "0:null"
rm -f fifo.py

# ---- submit: the record and the start records carry them ----------------------
"$SBCTL" submit code.yaml --json > s1.json
expect "submit exits 0" "$?" 0
dir1=$(jqf s1.json .benchmark.dir)
"$SBCTL" wait "$dir1" --interval 0.2 --timeout 60 > /dev/null
expect "both children succeed" "$?" 0
expect "benchmark.json records the inputs" \
	"$(jq -r '.inputs | to_entries | map("\(.key):\(.value.listed)") | join(" ")' "$dir1/benchmark.json")" \
	"lib/util.py:true train.py:false"
"$SBCTL" log "$(log_of "$dir1" 0)" --json | jq -c 'select(.type=="start") | .inputs | keys' > in.json
expect "the signed start record has the inputs the job found" "$(cat in.json)" '["lib/util.py","train.py"]'

# ---- the code changes, the spec is submitted again: new children ----------------
sed -i 's/VERSION = 1/VERSION = 2/' train.py
write_spec code2.yaml "$(printf '%s\n' "$spec" | sed 's/lr: \[0.1, 0.2\]/lr: [0.1, 0.2, 0.3]/')"
"$SBCTL" submit code2.yaml --reuse-from "$dir1" > /dev/null 2> rf.err
expect "--reuse-from a benchmark that ran other code: refused (exit 2)" "$?" 2
expect_match "it names the file and says why" "$(cat rf.err)" \
	"^sbctl submit: --reuse-from .*: its children ran other code than this spec's: 'train.py' differs \(sha256 [0-9a-f]{12} there, [0-9a-f]{12} here\) \(1 input differs\); a child's digest covers its code, so none could be reused"
expect "nothing was made by the refused submit" "$(ls "$SB_ROOT" | wc -l)" 1
"$SBCTL" submit code2.yaml --json > s4.json 2> s4.err
expect "the grown sweep with new code submits (exit 0)" "$?" 0
dir4=$(jqf s4.json .benchmark.dir)
expect "nothing is reused: every child runs the new code" "$(jqf s4.json .reused)" 0
expect "the changed script is among the differences" \
	"$(jq -c '[.differences[] | select(.key | startswith("inputs/")) | .key]' s4.json)" '["inputs/train.py"]'
expect "with both digests" "$(jq -r '.differences[0] | "\(.stored|length) \(.spec|length)"' s4.json)" "64 64"
expect_match "and what follows" "$(jqf s4.json '.differences[0].advice')" "^the code changed since code \([0-9a-f]{12}\): the children that read it are new children"
expect_match "submit says so on stderr" "$(cat s4.err)" "note: input 'train.py' has sha256 [0-9a-f]{12}, [0-9a-f]{12} before: the code changed"
"$SBCTL" wait "$dir4" --interval 0.2 --timeout 60 > /dev/null
expect "the new children succeed" "$?" 0
expect "analyze of the new benchmark: the new code's results alone" \
	"$("$SBCTL" analyze "$dir4" --json | jq -c '[.groups[] | .n, .metrics.acc.mean]')" "[1,1.8,1,1.8,1,1.8]"
sed -i 's/VERSION = 2/VERSION = 1/' train.py
"$SBCTL" submit code2.yaml --json > s5.json 2> /dev/null
expect "the old code back: its two children are reused, one runs" "$(jqf s5.json .reused)" 2
"$SBCTL" wait "$(jqf s5.json .benchmark.dir)" --interval 0.2 --timeout 60 > /dev/null
expect "... and all three succeed" "$?" 0

# ---- the code changes while the array waits: caught at start, named ------------
# One CPU: child 0 runs (and waits for a go file), child 1 is pending
# meanwhile; run.sh is replaced (a new file: the running bash keeps its own).
cat > run.sh <<'SH'
#!/bin/bash
while [ ! -e "$SB_SPEC_DIR/go.$SB_CHILD" ]; do sleep 0.1; done
echo '{"v": 1}' > out.json
SH
chmod +x run.sh
write_spec pend.yaml 'name: pend
command: [bash, "{spec_dir}/run.sh", "{i}"]
parameters:
  i: [0, 1]
results: [out.json]'
export SB_FAKE_CPUS=1 # every fake command schedules: all of them see one CPU
"$SBCTL" submit pend.yaml --json > s2.json
dir2=$(jqf s2.json .benchmark.dir)
running0() { st r.json "$dir2" --settle 0; [ "$(jq -r '.children[0].class' r.json)" = running ] &&
	     started "$dir2" 0; }
wait_for 30 running0
expect "child 1 waits behind child 0" "$(jq -r '.children[1].class' r.json)" pending
sed 's/"v": 1/"v": 2/' run.sh > run.sh.new && chmod +x run.sh.new && mv run.sh.new run.sh
touch go.0 go.1
"$SBCTL" wait "$dir2" --interval 0.2 --timeout 60 > /dev/null
expect "wait says not all succeeded" "$?" 3
st w.json "$dir2"
expect_child w.json 0 succeeded '^$'
expect_child w.json 1 invalid "^input 'run.sh' changed after submit: sha256 [0-9a-f]{12} at submit, [0-9a-f]{12} when the job started$"
expect "analyze pools only the child that ran the submitted code" \
	"$("$SBCTL" analyze "$dir2" --json | jq -c '[.groups[].n]')" "[1,0]"
unset SB_FAKE_CPUS

t_done
