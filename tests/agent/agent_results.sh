#!/usr/bin/env bash
# Result files hashed (compared with sha256sum), missing ones listed as
# missing; metrics from a JSON and from a YAML file, non-numbers skipped;
# the command's environment (SB_RUN_DIR, SB_METRICS_FILE).
. "$(dirname "$0")/lib.sh"

rc=0
"$AGENT" --key "$K" --log "$T/res" --result a.txt --result sub/b.bin \
	--result missing.txt --result sub -- sh -c '
	echo hello > a.txt
	mkdir sub
	head -c 3000000 /dev/urandom > sub/b.bin' || rc=$?
check "results run: exit 0" test "$rc" -eq 0
logjson "$T/res"
fin=$(record finish <<<"$OUT")
for f in a.txt sub/b.bin; do
	sum=$(sha256sum "$f" | cut -d' ' -f1)
	size=$(stat -c %s "$f")
	check "result $f: sha256 and size" \
		grep -q "{\"mtime_ns\":[0-9]*,\"path\":\"$f\",\"sha256\":\"$sum\",\"size\":$size}" <<<"$fin"
done
check "result missing.txt: missing" grep -q '{"missing":true,"path":"missing.txt"}' <<<"$fin"
check "result sub (a directory): an error" grep -q '{"error":"not a regular file","path":"sub"}' <<<"$fin"
check "results in the order given" \
	test "$(grep -o '"path":"[^"]*"' <<<"$fin" | tr '\n' ' ')" = \
	'"path":"a.txt" "path":"sub/b.bin" "path":"missing.txt" "path":"sub" '
mt=$(stat -c %Y a.txt)
check "result a.txt: mtime_ns matches" \
	grep -q "\"mtime_ns\":${mt}[0-9]\{9\},\"path\":\"a.txt\"" <<<"$fin"
start=$(record start <<<"$OUT")
check "start lists the declared results" \
	grep -q '"result_files":\["a.txt","sub/b.bin","missing.txt","sub"\]' <<<"$start"

# metrics from JSON, written where SB_METRICS_FILE says
"$AGENT" --key "$K" --log "$T/mj" --metrics m.json -- sh -c '
	test "$SB_RUN_DIR" = "$PWD" || exit 9
	cat > "$SB_METRICS_FILE" <<JSON
{"loss": 0.25, "acc": 93, "name": "resnet", "flag": true, "quoted": "1.5",
 "none": null, "list": [1, 2], "train": {"loss": 1e-3, "steps": -12},
 "big": 1e300, "neg0": -0.0}
JSON' || rc=$?
check "metrics json: exit 0 (SB_RUN_DIR is the working directory)" test "$rc" -eq 0
check "metrics json: SB_METRICS_FILE was absolute" test -e "$T/m.json"
logjson "$T/mj"
fin=$(record finish <<<"$OUT")
check "metrics json: numbers, sorted, nested flattened" grep -q \
	'"metrics":{"acc":93,"big":1e+300,"loss":0.25,"neg0":0.0,"train.loss":0.001,"train.steps":-12}' <<<"$fin"
check "metrics json: non-numbers skipped in file order" grep -q \
	'"skipped_metrics":\["name","flag","quoted","none","list"\]' <<<"$fin"
check "metrics json: no metrics_error" test "$(field metrics_error <<<"$fin")" = null

# metrics from YAML
cat > m.yaml <<'YAML'
# a comment
epoch: 7
lr: 1.0e-4
hex: 0x1F
oct: 0o17
plus: +3
dot: .5
inf: .inf
word: fast
quoted: '12'
eval:
  top1: 0.761
  detail: {top5: 0.93}
YAML
"$AGENT" --key "$K" --log "$T/my" --metrics m.yaml -- true
logjson "$T/my"
fin=$(record finish <<<"$OUT")
check "metrics yaml: numbers" grep -q \
	'"metrics":{"dot":0.5,"epoch":7,"eval.detail.top5":0.93,"eval.top1":0.761,"hex":31,"lr":0.0001,"oct":15,"plus":3}' <<<"$fin"
check "metrics yaml: skipped" grep -q '"skipped_metrics":\["inf","word","quoted"\]' <<<"$fin"

# metrics file missing, or not a mapping
"$AGENT" --key "$K" --log "$T/mm" --metrics nothere.json -- true
logjson "$T/mm"
fin=$(record finish <<<"$OUT")
check "metrics missing: metrics_error says so" grep -q '"metrics_error":"cannot open metrics file .nothere.json.: No such file or directory"' <<<"$fin"
check "metrics missing: empty metrics" grep -q '"metrics":{}' <<<"$fin"
echo '[1, 2]' > list.json
"$AGENT" --key "$K" --log "$T/ml" --metrics list.json -- true
logjson "$T/ml"
check "metrics not a mapping: metrics_error" grep -q '"metrics_error":"metrics file .list.json. is not a mapping"' <<<"$OUT"
printf '{"a": 1,\n "b": [}\n' > broken.json
"$AGENT" --key "$K" --log "$T/mb" --metrics broken.json -- true
logjson "$T/mb"
check "metrics broken: metrics_error with line" grep -q '"metrics_error":"metrics file .broken.json.: line 2' <<<"$OUT"
check "metrics broken: log verifies" test "$LOGRC" -eq 0
# A result path of 300 bytes (nested directories; legal up to PATH_MAX):
# recorded whole in start and finish, hashed, and the log verifies.
long=$(printf 'd%.0s' $(seq 60))/$(printf 'e%.0s' $(seq 60))/$(printf 'f%.0s' $(seq 60))/$(printf 'g%.0s' $(seq 60))/$(printf 'h%.0s' $(seq 52)).out
check "the long path is 300 bytes" test "${#long}" -eq 300
rc=0
"$AGENT" --key "$K" --log "$T/long" --result "$long" -- sh -c 'mkdir -p "$(dirname "$1")" && echo deep > "$1"' sh "$long" || rc=$?
check "300-byte result: exit 0" test "$rc" -eq 0
logjson "$T/long"
sum=$(sha256sum "$long" | cut -d' ' -f1)
check "300-byte result: finish has the whole path and its hash" \
	grep -q "\"path\":\"$long\",\"sha256\":\"$sum\",\"size\":5}" <<<"$(record finish <<<"$OUT")"
check "300-byte result: start lists the whole path" \
	grep -q "\"result_files\":\[\"$long\"\]" <<<"$(record start <<<"$OUT")"
check "300-byte result: log verifies" test "$LOGRC" -eq 0
finish_tests
