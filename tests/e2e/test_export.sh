#!/bin/bash
# sbctl export (issue 29, item 2): the signed bundle of a benchmark on the
# fake Slurm.  The envelope is DSSE, its signature verifies with openssl
# over PAE made by Python's standard library, the key id is the SHA-256 of
# the public key's DER, the payload is an in-toto Statement v1 whose
# subjects are the succeeded children's result files (their digests those
# on disk) and the analysis; the predicate lists every planned child.  A
# benchmark with a child running is refused unless --partial; bad keys and
# arguments are refused with their exit codes.
. "$(dirname "$0")/lib.sh"

cat > job.sh <<'SH'
case $1 in
ok) echo "ok $2" > out.txt; printf '{"acc": %s}' "$2" > metrics.json ;;
fail) echo no > out.txt; exit 3 ;;
esac
SH
dir=$(submit_spec mixed "name: mixed
command: [sh, $PWD/job.sh, '{x}', '{y}']
parameters:
  x: [ok, fail]
  y: [1, 2]
results: [out.txt]
metrics: metrics.json")
"$SBCTL" wait "$dir" --interval 0.2 > /dev/null
"$SBCTL" keygen --ed25519 sk
expect "keygen --ed25519" "$?" 0

"$SBCTL" export "$dir" --sign sk -o b.json 2> e.err
expect "export exits 0" "$?" 0
expect "export: nothing on stderr" "$(cat e.err)" ""
"$SBCTL" export "$dir" --sign sk > b2.json
expect "export to stdout exits 0" "$?" 0
expect "export to stdout: the same statement" \
	"$(jq -r .payload b2.json | base64 -d | jq -c 'del(.predicate.status.benchmark, .predicate.classify_params)')" \
	"$(jq -r .payload b.json | base64 -d | jq -c 'del(.predicate.status.benchmark, .predicate.classify_params)')"

# the envelope, checked with standard tools only
expect "envelope: keys" "$(jq -c 'keys_unsorted' b.json)" '["payloadType","payload","signatures"]'
expect "envelope: payloadType" "$(jqf b.json .payloadType)" application/vnd.in-toto+json
expect "envelope: one signature" "$(jq '.signatures|length' b.json)" 1
expect "keyid: sha256 of the public key's DER" "$(jqf b.json '.signatures[0].keyid')" \
	"$(openssl pkey -pubin -in sk.pub -outform DER | sha256sum | cut -d' ' -f1)"
pae() { # pae ENVELOPE OUT: DSSE v1's PAE of the envelope's type and payload
	python3 - "$1" "$2" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
body = base64.b64decode(env["payload"], validate=True)
t = env["payloadType"].encode()
open(sys.argv[2], "wb").write(b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body))
open(sys.argv[2] + ".sig", "wb").write(base64.b64decode(env["signatures"][0]["sig"], validate=True))
PY
}
pae b.json pae.bin
openssl pkeyutl -verify -pubin -inkey sk.pub -rawin -in pae.bin -sigfile pae.bin.sig > /dev/null
expect "openssl verifies the signature over PAE" "$?" 0
# another key's public half does not verify it
"$SBCTL" keygen --ed25519 other
openssl pkeyutl -verify -pubin -inkey other.pub -rawin -in pae.bin -sigfile pae.bin.sig > /dev/null 2>&1
expect "another key does not verify it" "$?" 1
# an edited payload does not verify
python3 - <<'PY'
import base64, json
env = json.load(open("b.json"))
st = json.loads(base64.b64decode(env["payload"]))
st["predicate"]["status"]["children"][2]["class"] = "succeeded"
env["payload"] = base64.b64encode(json.dumps(st).encode()).decode()
json.dump(env, open("edited.json", "w"))
PY
pae edited.json edited.bin
openssl pkeyutl -verify -pubin -inkey sk.pub -rawin -in edited.bin -sigfile edited.bin.sig > /dev/null 2>&1
expect "an edited class does not verify" "$?" 1

# the lines of docs/sbctl-export.md, "VERIFYING WITH STANDARD TOOLS", as written
sed -n '/^## VERIFYING WITH STANDARD TOOLS/,/^## EXIT/p' "$SB_SRC/docs/sbctl-export.md" |
	sed -n 's/^    //p' | sed 's/KEY\.pub/sk.pub/; s/bundle\.json/b.json/' > doc-check.sh
expect "the page's check: two commands" "$(grep -c '^openssl pkeyutl -verify' doc-check.sh)" 1
rm -f pae.bin sig.bin
bash -e doc-check.sh > doc-check.out 2>&1
expect "the page's check verifies the bundle" "$?:$(cat doc-check.out)" "0:Signature Verified Successfully"
sed 's/b\.json/edited.json/' doc-check.sh > doc-check-edited.sh
bash -e doc-check-edited.sh > /dev/null 2>&1
expect "the page's check refuses an edited bundle" "$?" 1

# the statement
jq -r .payload b.json | base64 -d > stmt.json
expect "statement: _type" "$(jqf stmt.json ._type)" https://in-toto.io/Statement/v1
expect "statement: predicateType" "$(jqf stmt.json .predicateType)" https://sbench.dev/bundle/v1
expect "subjects: the succeeded children's results and the analysis" \
	"$(jq -r '[.subject[].name]|join(" ")' stmt.json)" "runs/0/out.txt runs/1/out.txt analysis.json"
for i in 0 1; do
	expect "subject runs/$i/out.txt: its digest on disk" \
		"$(jq -r --arg n "runs/$i/out.txt" '.subject[]|select(.name==$n)|.digest.sha256' stmt.json)" \
		"$(sha256sum "$dir/runs/$i/out.txt" | cut -d' ' -f1)"
done
expect "subject analysis.json: the digest of the predicate's analysis as analyze --json prints it" \
	"$(jq -r '.subject[]|select(.name=="analysis.json")|.digest.sha256' stmt.json)" \
	"$("$SBCTL" analyze "$dir" --json | tr -d '\n' | sha256sum | cut -d' ' -f1)"
expect "predicate: not partial" "$(jqf stmt.json .predicate.partial)" false
expect "predicate: version" "$(jqf stmt.json .predicate.sbench_version)" "$("$SBCTL" --version 2>/dev/null | awk '{print $NF}')"
expect "predicate: benchmark digest" "$(jqf stmt.json .predicate.benchmark_digest)" "$(jqf mixed.submit.json .benchmark.digest)"
expect "predicate: the spec's text" "$(jqf stmt.json .predicate.spec)" "$(cat mixed.yaml)"
expect "predicate: every planned child, with its class" \
	"$(jq -r '[.predicate.status.children[]|"\(.index):\(.class)"]|join(" ")' stmt.json)" \
	"0:succeeded 1:succeeded 2:failed 3:failed"
expect "predicate: attempts with job ids and the scheduler's state" \
	"$(jq -c '.predicate.status.children[2] | [.scheduler_state, (.attempts[0].job_id|test("^[0-9]+_2$"))]' stmt.json)" \
	'["FAILED",true]'
expect "predicate: metrics of each child" "$(jq -c '[.predicate.runs.runs[].metrics.acc]' stmt.json)" '[1,2,null,null]'
expect "predicate: a head per log, as sbctl log gives it" \
	"$(jqf stmt.json '.predicate.evidence[0].logs[0].head')" \
	"$("$SBCTL" log "$dir/$(jqf stmt.json '.predicate.evidence[0].logs[0].path')" --key "$dir/keys/hmac.key" --json | jq -r 'select(.summary)|.summary.head')"
expect "predicate: evidence of every child" "$(jq -c '[.predicate.evidence[]|.index]' stmt.json)" '[0,1,2,3]'
expect "predicate: the analysis" "$(jq -c '.predicate.analysis.counts|[.succeeded,.failed]' stmt.json)" '[2,2]'

# refusals
"$SBCTL" export "$dir" > /dev/null 2> e.err
expect "no --sign: exit 2" "$?" 2
"$SBCTL" export --sign sk > /dev/null 2> e.err
expect "no BENCH: exit 2" "$?" 2
"$SBCTL" export "$dir" --sign nosuchkey > /dev/null 2> e.err
expect "missing key: exit 2" "$?" 2
expect_match "missing key: says so" "$(cat e.err)" "signing key 'nosuchkey' does not exist"
chmod 644 sk
"$SBCTL" export "$dir" --sign sk > /dev/null 2> e.err
expect "key readable by others: exit 2" "$?" 2
expect_match "key readable by others: says so" "$(cat e.err)" "chmod 600 sk"
chmod 600 sk
"$SBCTL" keygen hmac
"$SBCTL" export "$dir" --sign hmac > /dev/null 2> e.err
expect "an HMAC key: exit 2" "$?" 2
expect_match "an HMAC key: says so" "$(cat e.err)" "not an Ed25519 private key"
"$SBCTL" export "$dir" --sign sk.pub > /dev/null 2> e.err
expect "a public key: exit 2" "$?" 2

# a child still running: refused, unless --partial
rdir=$(submit_spec slow "name: slow
command: [sh, -c, 'if [ {x} = 1 ]; then sleep 30; fi; echo x > out.txt']
parameters:
  x: [0, 1]
heartbeat: 1
results: [out.txt]")
wait_for 10 started "$rdir" 1
"$SBCTL" export "$rdir" --sign sk > /dev/null 2> e.err
expect "running: exit 2" "$?" 2
expect_match "running: says why" "$(cat e.err)" "still pending or running.*--partial"
"$SBCTL" export "$rdir" --sign sk --partial -o p.json
expect "running, --partial: exit 0" "$?" 0
expect "--partial: the predicate says so" "$(jq -r .payload p.json | base64 -d | jq .predicate.partial)" true
scancel "$(array_of slow)"

t_done
