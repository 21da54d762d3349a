#!/bin/bash
# sbctl verify (issue 29, item 3): a bundle of a finished benchmark on the
# fake Slurm verifies with the public key alone, and against its directory.
# Each thing a forger could do to it fails with its reason, whether the
# bundle was signed again with the same key (a forger who holds it) or not:
# a child removed or added, a class, a scheduler state, the analysis, a
# subject or the spec edited.  A partial bundle verifies as partial, and
# says a child running is no longer allowed once "partial" is edited away.
# The docs' check with standard tools (docs/verify.md) runs as written.
. "$(dirname "$0")/lib.sh"
EDIT="$SB_SRC/tests/e2e/bundle_edit.py"

# job.sh is read through {spec_dir}: an input file whose digest the
# children's digests cover, and the bundle records
cat > job.sh <<'SH'
case $1 in
ok) echo "ok $2" > out.txt; printf '{"acc": %s}' "$2" > metrics.json ;;
fail) echo no > out.txt; exit 3 ;;
esac
SH
dir=$(submit_spec mixed "name: mixed
command: [sh, '{spec_dir}/job.sh', '{x}', '{y}']
parameters:
  x: [ok, fail]
  y: [1, 2]
results: [out.txt]
metrics: metrics.json")
"$SBCTL" wait "$dir" --interval 0.2 > /dev/null
"$SBCTL" keygen --ed25519 sk
"$SBCTL" export "$dir" --sign sk -o b.json
expect "export exits 0" "$?" 0
expect "the predicate records the input file and its digest" \
	"$(jq -r .payload b.json | base64 -d | jq -c '[.predicate.inputs[] | [.path, .sha256, .listed]]')" \
	"$(jq -cn --arg s "$(sha256sum job.sh | cut -d' ' -f1)" '[["job.sh", $s, false]]')"

# verify: exit 0 with a line that says what was verified
"$SBCTL" verify b.json --pubkey sk.pub > v.out 2> v.err
expect "verify exits 0" "$?" 0
expect_match "verify: says what it verified" "$(cat v.out)" \
	"^verified: mixed \([0-9a-f]{12}\), 4 children, 2 succeeded; signed by key [0-9a-f]{16}$"
expect "verify: nothing on stderr" "$(cat v.err)" ""
"$SBCTL" verify b.json --pubkey sk.pub --json > v.json
expect "verify --json exits 0" "$?" 0
expect "verify --json: the verdict" \
	"$(jq -c '[.ok, .problem, .benchmark, .children, .succeeded, .subjects, .partial]' v.json)" \
	'[true,null,"mixed",4,2,3,false]'
expect "verify --json: the key id is the sha256 of the public key's DER" "$(jqf v.json .keyid)" \
	"$(openssl pkey -pubin -in sk.pub -outform DER | sha256sum | cut -d' ' -f1)"
expect "verify --json: the benchmark's digest" "$(jqf v.json .digest)" "$(jqf mixed.submit.json .benchmark.digest)"
"$SBCTL" verify b.json --pubkey sk.pub --against "$dir" > /dev/null
expect "verify --against the benchmark directory: exit 0" "$?" 0
# the signature of the payload's own bytes, made again by the test, verifies:
# the edits below fail for what they change, not for how they were signed
python3 "$EDIT" b.json same.json sk
"$SBCTL" verify same.json --pubkey sk.pub > /dev/null
expect "signed again unchanged: exit 0" "$?" 0

# bad ($1 description, $2 file, $3 regex of the problem): exit 3, the
# problem named on stderr
bad() {
	local rc
	"$SBCTL" verify "$2" --pubkey sk.pub > bad.out 2> bad.err
	rc=$?
	expect "$1: exit 3" "$rc" 3
	expect_match "$1: names the problem" "$(cat bad.err)" "^sbctl verify: $2: $3"
	expect "$1: nothing on stdout" "$(cat bad.out)" ""
}
# edit ($1 out, $2 key or -, $3 Python over the statement s)
edit() { python3 "$EDIT" b.json "$1" "$2" "$3"; }

edit nosig.json - 's["predicate"]["status"]["children"][2]["class"] = "succeeded"'
bad "a class edited, not signed again" nosig.json "bad signature: it does not verify"
"$SBCTL" keygen --ed25519 other
"$SBCTL" verify b.json --pubkey other.pub > /dev/null 2> bad.err
expect "another key: exit 3" "$?" 3
expect_match "another key: no signature by it" "$(cat bad.err)" "bad signature: no signature by key [0-9a-f]{16}"

edit last.json sk 'del s["predicate"]["status"]["children"][3]'
bad "the last child removed" last.json "child 3 missing \(the spec plans 4 children, the bundle lists 3\)$"
edit mid.json sk 'del s["predicate"]["status"]["children"][1]'
bad "child 1 removed" mid.json "child 1 missing"
edit extra.json sk 'c = s["predicate"]["status"]["children"]; c.append(dict(c[3], index=4))'
bad "a child added" extra.json "child 4 extra \(the spec plans 4 children\)$"
edit digest.json sk 's["predicate"]["status"]["children"][2]["digest"] = "0" * 64'
bad "a child's digest edited" digest.json "child 2: its digest is not the spec's"
edit cls.json sk 's["predicate"]["status"]["children"][2]["class"] = "succeeded"'
bad "a class edited" cls.json "child 2 says succeeded, but its evidence classifies it failed \(exit 3\)$"
edit state.json sk 's["predicate"]["status"]["children"][2]["scheduler_state"] = "COMPLETED"'
bad "a scheduler state edited" state.json "child 2 says its scheduler state is COMPLETED, but its evidence says FAILED$"
# a forger who edits the evidence too: a finish with exit 0 the scheduler
# still contradicts
edit ev.json sk 'c = s["predicate"]["status"]["children"][2]; c["class"] = "succeeded"; c["reason"] = None
e = s["predicate"]["evidence"][2]["classify"]["log"]; e["exit_code"] = 0; e["not_ok"] = None'
bad "a class and its log's exit code edited" ev.json "child 2 says succeeded, but its evidence classifies it inconsistent"
edit an.json sk 's["predicate"]["analysis"]["groups"][0]["metrics"]["acc"]["mean"] = 5'
bad "the analysis edited" an.json 'the analysis differs from the one its children.s metrics give \(its "groups"\)$'
edit metric.json sk 's["predicate"]["runs"]["runs"][1]["metrics"]["acc"] = 7'
bad "a child's metric edited" metric.json 'the analysis differs'
edit subj.json sk 'del s["subject"][0]'
bad "a subject removed" subj.json "result runs/0/out.txt of succeeded child 0 is not a subject$"
edit subjd.json sk 's["subject"][1]["digest"]["sha256"] = "0" * 64'
bad "a subject's digest edited" subjd.json "subject runs/1/out.txt: its digest is not the one child 1's finish record gives$"
edit subja.json sk 's["subject"].insert(0, {"name": "runs/2/out.txt", "digest": {"sha256": "0" * 64}})'
bad "a subject added" subja.json "4 subjects, but the succeeded children's results and the analysis are 3$"
edit spec.json sk 's["predicate"]["spec"] = s["predicate"]["spec"].replace("[1, 2]", "[1, 3]")'
bad "the spec edited" spec.json "the spec plans benchmark digest [0-9a-f]{12}, not the bundle's [0-9a-f]{12}$"
edit input.json sk 's["predicate"]["inputs"][0]["sha256"] = "0" * 64'
bad "an input's digest edited" input.json "the spec plans benchmark digest"
edit type.json sk 's["predicateType"] = "https://example.com/other"'
bad "another predicate type" type.json "predicateType is https://example.com/other"

# against the directory: a result file changed since the export
cp "$dir/runs/0/out.txt" saved.txt
echo changed > "$dir/runs/0/out.txt"
"$SBCTL" verify b.json --pubkey sk.pub --against "$dir" > /dev/null 2> bad.err
expect "--against, a result changed: exit 3" "$?" 3
expect_match "--against, a result changed: names it" "$(cat bad.err)" \
	"result runs/0/out.txt of child 0 changed since the export"
cp saved.txt "$dir/runs/0/out.txt"

# the report names the bundle once it verifies against the benchmark
"$SBCTL" report "$dir" -o r.html --bundle b.json --pubkey sk.pub > /dev/null
expect "report --bundle: exit 3 (two children failed)" "$?" 3
expect "report --bundle: the bundle's sha256" "$(sed -n 's/.*<span id="bundle-sha256">\([0-9a-f]*\)<.*/\1/p' r.html)" \
	"$(sha256sum b.json | cut -d' ' -f1)"
expect "report --bundle: the key id" "$(sed -n 's/.*<span id="bundle-keyid">\([0-9a-f]*\)<.*/\1/p' r.html)" \
	"$(jqf v.json .keyid)"
"$SBCTL" report "$dir" -o r2.html --bundle cls.json --pubkey sk.pub > /dev/null 2> e.err
expect "report --bundle of a forged bundle: exit 3" "$?" 3
expect_match "report --bundle of a forged bundle: says why" "$(cat e.err)" \
	"cls.json does not verify against the benchmark \(child 2 says succeeded.*no report written"
expect "report --bundle of a forged bundle: no report" "$(ls r2.html 2>/dev/null)" ""
"$SBCTL" report "$dir" -o r2.html --bundle b.json > /dev/null 2>&1
expect "report --bundle without --pubkey: exit 2" "$?" 2
"$SBCTL" report "$dir" -o r3.html > /dev/null
expect "report without --bundle: no bundle named" "$(grep -c 'id="bundle"' r3.html)" 0

# usage and input errors: exit 2, nothing verified
"$SBCTL" verify b.json > /dev/null 2>&1
expect "no --pubkey: exit 2" "$?" 2
"$SBCTL" verify nope.json --pubkey sk.pub > /dev/null 2> e.err
expect "no such bundle: exit 2" "$?" 2
expect_match "no such bundle: says so" "$(cat e.err)" "bundle 'nope.json' does not exist"
printf '{"payload": ' > trunc.json
"$SBCTL" verify trunc.json --pubkey sk.pub > /dev/null 2> e.err
expect "not JSON: exit 2" "$?" 2
expect_match "not JSON: says where" "$(cat e.err)" "not a bundle: not JSON \(.*at byte [0-9]+"
"$SBCTL" verify b.json --pubkey sk > /dev/null 2> e.err
expect "a private key as --pubkey: exit 2" "$?" 2
expect_match "a private key as --pubkey: says so" "$(cat e.err)" "not an Ed25519 public key"
"$SBCTL" verify b.json --pubkey nope.pub > /dev/null 2>&1
expect "no such public key: exit 2" "$?" 2
echo '{"payloadType": "application/vnd.in-toto+json", "payload": "!!", "signatures": []}' > env.json
bad "no signature at all" env.json "bad signature: no signature by key"

# a partial bundle: verifies as partial; with "partial" edited away, the
# running child is the problem
rdir=$(submit_spec slow "name: slow
command: [sh, -c, 'if [ {x} = 1 ]; then sleep 30; fi; echo x > out.txt']
parameters:
  x: [0, 1]
heartbeat: 1
results: [out.txt]")
wait_for 10 started "$rdir" 1
wait_for 10 eval '[ "$("$SBCTL" status "$rdir" --json | jq -r .children[0].class)" = succeeded ]'
"$SBCTL" export "$rdir" --sign sk --partial -o p.json
"$SBCTL" verify p.json --pubkey sk.pub --json > pv.json
expect "a partial bundle verifies: exit 0" "$?" 0
expect "a partial bundle: says so" "$(jq -c '[.ok, .partial, .succeeded]' pv.json)" '[true,true,1]'
python3 "$EDIT" p.json notpartial.json sk 's["predicate"]["partial"] = False'
bad "partial edited away" notpartial.json "child 1 is running, but the bundle does not say it is partial$"
scancel "$(array_of slow)"

# a grown sweep: three children reused from the first benchmark (their
# evidence is in the source benchmark's bundle), one run
export SB_LOOKUP_WINDOW=0.5
gspec() {
	write_spec g.yaml "name: grow
command: [sh, -c, 'echo {x} > out.txt; echo \"loss: {x}\" > m.yaml']
parameters:
  x: [$1]
results: [out.txt]
metrics: m.yaml"
}
gspec "1, 2, 3"
"$SBCTL" submit g.yaml --json > ga.json
"$SBCTL" wait "$(jqf ga.json .benchmark.dir)" --interval 0.2 --timeout 60 > /dev/null
gspec "1, 2, 3, 4"
"$SBCTL" submit g.yaml --json > gb.json
gdir=$(jqf gb.json .benchmark.dir)
"$SBCTL" wait "$gdir" --interval 0.2 --timeout 60 > /dev/null
"$SBCTL" export "$gdir" --sign sk -o g.bundle
"$SBCTL" verify g.bundle --pubkey sk.pub --against "$gdir" --json > gv.json
expect "a grown sweep's bundle verifies, against its directory too" \
	"$(jq -c '[.ok, .children, .succeeded, .subjects]' gv.json)" '[true,4,4,2]'
expect "its reused children are marked so, their results not its subjects" \
	"$(jq -r .payload g.bundle | base64 -d | jq -c '[[.predicate.evidence[].classify.override], [.subject[].name]]')" \
	'[["reused","reused","reused",null],["runs/3/out.txt","analysis.json"]]'
python3 "$EDIT" g.bundle greused.json sk 's["predicate"]["status"]["children"][1]["reused_from"] = None'
"$SBCTL" verify greused.json --pubkey sk.pub > /dev/null 2> bad.err
expect "a reused child's origin removed: exit 3" "$?" 3
expect_match "a reused child's origin removed: names it" "$(cat bad.err)" \
	"child 1 says succeeded, but its evidence is a reused run$"

# the docs' check with standard tools, exactly as written
sed -n '/^## CHECKING WITH STANDARD TOOLS/,/^## /p' "$SB_SRC/docs/verify.md" |
	sed -n 's/^    //p' | sed 's/KEY\.pub/sk.pub/g; s/bundle\.json/b.json/g' > doc-check.sh
expect "the page's check: an openssl line" "$(grep -c '^openssl pkeyutl -verify' doc-check.sh)" 1
bash -e doc-check.sh > doc-check.out 2> doc-check.err
expect "the page's check passes the bundle" "$?" 0
expect "the page's check: the signature and the listing" "$(cat doc-check.out)" \
	"Signature Verified Successfully
complete: 4 children, 2 succeeded"
for bad_json in nosig last mid subj; do
	sed "s/b\.json/$bad_json.json/g" doc-check.sh > doc-check-bad.sh
	bash -e doc-check-bad.sh > /dev/null 2>&1
	expect "the page's check refuses $bad_json.json" "$?" 1
done

t_done
