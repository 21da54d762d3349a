#!/usr/bin/env bash
# sbctl plan, the real binary: equivalent specs print byte-identical JSON,
# golden outputs (digests frozen across versions and machines), errors with
# file:line:column and exit 2, no side effects.
. "$(dirname "$0")/../cli-lib.sh"
data=${SB_TEST_DATA:?}/specs
src=${SB_SRC:?}
# The specs live in the project's own repository, whose state must not
# matter here: no repository, no dirty-tree warning (tests/e2e/test_provenance.sh
# tests that warning).
export GIT_DIR=/nonexistent-sbench-test

# --- equivalent specs: byte-identical --json and table output
pairs=0
for a in "$data"/equiv/*-a.yaml; do
	base=${a%-a.yaml}
	run 0 "$sbctl" plan "$a" --json
	cp out want.json
	run 0 "$sbctl" plan "$a"
	cp out want.txt
	for b in "$base"-[b-z].yaml; do
		run 0 "$sbctl" plan --json "$b"
		cmp -s out want.json || fail "$(basename "$b") --json differs from $(basename "$a")"
		[ -s err ] && fail "$(basename "$b") wrote to stderr: $(cat err)"
		run 0 "$sbctl" plan "$b"
		cmp -s out want.txt || fail "$(basename "$b") table differs from $(basename "$a")"
		pairs=$((pairs + 1))
	done
done
[ "$pairs" -ge 10 ] || fail "only $pairs equivalent pairs"

# --- golden outputs: digests never drift
for spec in "$data"/golden/*.yaml; do
	g=${spec%.yaml}
	run 0 "$sbctl" plan "$spec" --json
	cmp -s out "$g.json" || { fail "$(basename "$spec") --json differs from golden"; diff <(tr , '\n' <out) <(tr , '\n' <"$g.json") | head -5 >&2; }
	run 0 "$sbctl" plan "$spec"
	cmp -s out "$g.txt" || { fail "$(basename "$spec") table differs from golden"; diff out "$g.txt" | head -5 >&2; }
done

# --- an independent implementation of docs/spec.md "Digests" (Python, when
# there is one) reproduces every golden digest from the document alone
if command -v python3 >/dev/null 2>&1; then
	for ref in "$data"/golden/*.ref.json; do
		python3 "$src/tests/spec/reference_digests.py" "${ref%.ref.json}.json" "$ref" >/dev/null ||
			fail "reference digests of $(basename "$ref")"
	done
fi

# --- a plan formatted in several chunks and threads: same bytes as ever
run 0 "$sbctl" plan "$data/golden-large.yaml" --json
[ "$(sha256sum <out | cut -c1-64)" = b1ad50b61487eed2949f42103e55d0e31d68318f80c520062eea1ce9b79a0c09 ] || fail "golden-large --json changed"
has out '"digest":"a9bbfd6d0c8d270b2bef66feb57a729a3ce444746845288b3da1e57b17113bf7","children":20000}'
grep -o '"index":[0-9]*' out | cut -d: -f2 | cmp -s - <(seq 0 19999) || fail "golden-large: indices out of order"
grep -q ',,' out && fail "golden-large: empty element"

# --- output depends on the content only: not the path, name or directory
mkdir -p elsewhere/deeper
cp "$data/golden/lr-sweep.yaml" elsewhere/deeper/renamed.yml
(cd elsewhere && "$sbctl" plan deeper/renamed.yml --json) >out 2>err
cmp -s out "$data/golden/lr-sweep.json" || fail "output depends on the spec's path"

# --- the JSON contract shape
run 0 "$sbctl" plan "$data/golden/lr-sweep.yaml" --json
has out '{"format":1,"benchmark":{"name":"lr-sweep","tag":null,"digest":"'
has out '"children":12},"children":[{"index":0,"digest":"'
has out '"params":{"lr":0.1,"model":"resnet18"},"repeat":0,"command":["python","train.py","--lr","0.1","--model","resnet18","--seed","0"]}'
[ "$(tail -c 1 out | od -An -c | tr -d ' ')" = '\n' ] || fail "--json does not end with a newline"
[ "$(wc -l <out)" = 1 ] || fail "--json is not one line"

# --- the example a user copies shows the children they expect
for ex in "$src"/examples/*.yaml; do
	run 0 "$sbctl" plan "$ex"
done
run 0 "$sbctl" plan "$src/examples/lr-sweep.yaml"
has out "children   12"
has out "lr=0.001 model=resnet18"
has out "lr=0.5 model=vit"
grep -q "lr=0.001 model=resnet50" out && fail "excluded point listed"

# --- no side effects: nothing written in the working directory
mkdir empty && cd empty
"$sbctl" plan "$data/golden/types.yaml" --json >/dev/null 2>&1
"$sbctl" plan "$data/golden/types.yaml" >/dev/null 2>&1
[ -z "$(ls -A .)" ] || fail "plan wrote files: $(ls -A .)"
cd ..

# --- a typo points at its line and column
printf 'name: t\ncommand: [run]\nparameters:\n  lr: [0.1]\nrepaets: 3\n' > typo.yaml
run 2 "$sbctl" plan typo.yaml
[ "$(cat err)" = "typo.yaml:5:1: unknown key 'repaets' (did you mean 'repeats'?)" ] || fail "typo: $(cat err)"
[ -s out ] && fail "output on error"
printf 'name: t\ncommand: [run, "{lrr}"]\nparameters:\n  lr: [0.1]\n' > typo2.yaml
run 2 "$sbctl" plan typo2.yaml --json
[ "$(cat err)" = "typo2.yaml:2:16: unknown parameter 'lrr' in template (did you mean 'lr'?)" ] || fail "typo2: $(cat err)"
# bad bytes (not UTF-8, a control character, a NUL) point at the byte
printf 'name: t\ncommand: [run]\ntag: "v\377"\n' > utf8.yaml
run 2 "$sbctl" plan utf8.yaml
[ "$(cat err)" = "utf8.yaml:3:8: invalid YAML: invalid leading UTF-8 octet (byte 0xff)" ] || fail "utf8: $(cat err)"
printf 'name: t\ncommand: [run, a\033b]\n' > ctrl.yaml
run 2 "$sbctl" plan ctrl.yaml
[ "$(cat err)" = "ctrl.yaml:2:17: invalid YAML: control characters are not allowed (byte 0x1b)" ] || fail "ctrl: $(cat err)"
printf 'name: t\ncommand: [run]\n  \000\n' > nul.yaml
run 2 "$sbctl" plan nul.yaml
[ "$(cat err)" = "nul.yaml:3:3: invalid YAML: control characters are not allowed (byte 0x00)" ] || fail "nul: $(cat err)"
for f in "$data"/errors/*.yaml; do
	run 2 "$sbctl" plan "$f"
	want=$(sed -n 's/^# error: //p' "$f")
	[ "$(cat err)" = "$f:$want" ] || fail "$(basename "$f"): got '$(cat err)', want '$f:$want'"
done

# --- files and arguments
run 2 "$sbctl" plan no-such.yaml
has err "cannot open 'no-such.yaml': No such file or directory"
run 2 "$sbctl" plan .
has err "cannot read '.': is a directory"
head -c 1048577 /dev/zero | tr '\0' '#' > big.yaml
run 2 "$sbctl" plan big.yaml
has err "'big.yaml' is too large (1048577 bytes, limit 1048576)"
if [ "$(id -u)" != 0 ]; then
	cp "$data/golden/minimal.yaml" unreadable.yaml && chmod 000 unreadable.yaml
	run 2 "$sbctl" plan unreadable.yaml
	has err "cannot open 'unreadable.yaml': Permission denied"
fi
run 2 "$sbctl" plan
run 2 "$sbctl" plan a.yaml b.yaml
run 2 "$sbctl" plan --yaml "$data/golden/minimal.yaml"
run 0 "$sbctl" plan --help
has out "usage: sbctl plan SPEC [--json]"
run 0 "$sbctl" plan -- "$data/golden/minimal.yaml"

# --- warnings go to stderr, the plan is still printed
printf 'name: w\ncommand: [run]\nparameters: {a: [1, 2]}\nexclude: [{a: 3}]\n' > warn.yaml
run 0 "$sbctl" plan warn.yaml
[ "$(cat err)" = "warn.yaml:4:11: warning: exclude entry matches no grid point (a value is not in its parameter's list)" ] ||
	fail "warning: $(cat err)"
has out "children   2"

# --- an output that cannot be written is a runtime failure
"$sbctl" plan "$data/golden/minimal.yaml" >&- 2>err
[ $? = 1 ] || fail "closed stdout did not exit 1"
has err "sbctl plan: cannot write the output"

# --- output stays byte-identical from run to run
"$sbctl" plan "$data/golden/types.yaml" --json > r1
"$sbctl" plan "$data/golden/types.yaml" --json > r2
cmp -s r1 r2 || fail "two runs differ"

finish sbctl_plan "ok ($pairs equivalent pairs)"
