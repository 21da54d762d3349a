#!/bin/bash
# BENCH by name is the latest benchmark of that name (said on stderr when
# several have it); sbctl list shows tag, children, submission time and the
# last counts (text and JSON); sbctl forget removes a benchmark from the
# local index, not its directory; sbench.forget and sbench.benchmarks()
# equal the CLI (docs/sbctl-list.md, docs/sbctl-forget.md).
. "$(dirname "$0")/lib.sh"

export SB_LOOKUP_WINDOW=0.5
spec() {
	write_spec toy.yaml "name: toy
${1:+tag: $1}
command: [sh, -c, 'test {x} != 2']
parameters:
  x: [$2]"
}
spec "" "0, 1, 2"
"$SBCTL" submit toy.yaml --json > a.json
adir=$(jqf a.json .benchmark.dir)
"$SBCTL" wait toy --interval 0.2 --timeout 60 > /dev/null 2> w1.err
expect "one benchmark of the name: no note on stderr" "$(cat w1.err)" ""
spec try2 "0, 1"
"$SBCTL" submit toy.yaml --json > b.json
bdir=$(jqf b.json .benchmark.dir)
"$SBCTL" status toy --json > s.json 2> s.err
expect "the name is the latest benchmark of that name" "$(jqf s.json .benchmark.dir)" "$bdir"
expect_match "stderr says several have it, which one and how to name another" "$(cat s.err)" \
	"^sbctl status: 'toy' names 2 benchmarks: using the latest, toy-$(jqf b.json .benchmark.digest | cut -c1-12), tag try2 \\(created [0-9T:.-]+Z; 'sbctl list' shows the others, a digest prefix or directory names one\\)$"
"$SBCTL" wait toy --interval 0.2 --timeout 60 > /dev/null 2>&1
expect "wait by name waits for the latest (exit 0: it succeeded)" "$?" 0

"$SBCTL" list --json > l.json
expect "list --json: tag, children, present, in creation order" \
	"$(jq -c '[.benchmarks[]|[.name,.tag,.children,.present]]' l.json)" '[["toy",null,3,true],["toy","try2",2,true]]'
expect "list --json: the last counts of each" \
	"$(jq -c '[.benchmarks[]|[.counts.succeeded,.counts.failed]]' l.json)" '[[2,1],[2,0]]'
expect_match "list --json: submission time and the time of the counts" \
	"$(jqf l.json '.benchmarks[1]|"\(.submitted) \(.counts_time)"')" \
	'^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$'
"$SBCTL" list > l.txt
expect "list: a header with tag, children, submission time, last status" \
	"$(head -n 1 l.txt | tr -s ' ')" "NAME TAG DIGEST CHILDREN SUBMITTED LAST STATUS DIRECTORY"
expect_match "list: the untagged one, with its counts" "$(sed -n 2p l.txt | tr -s ' ')" \
	"^toy - [0-9a-f]{12} 3 [0-9T:-]{19} 2 succeeded, 1 failed $adir\$"
expect_match "list: the tagged one" "$(sed -n 3p l.txt | tr -s ' ')" \
	"^toy try2 [0-9a-f]{12} 2 [0-9T:-]{19} 2 succeeded $bdir\$"
spec try3 "5"
"$SBCTL" submit toy.yaml --json > c.json
"$SBCTL" list --json > l3.json
expect "a benchmark no status was computed of has no counts yet" \
	"$(jq -c '.benchmarks[2]|[.tag,.counts,.counts_time]' l3.json)" '["try3",null,null]'

# ---- forget ------------------------------------------------------------------
"$SBCTL" forget toy --json > f.json
expect "forget by name exits 0" "$?" 0
expect "forget by name forgets the latest" "$(jqf f.json '.forgotten[0]|"\(.tag) \(.dir)"')" \
	"try3 $(jqf c.json .benchmark.dir)"
expect "its directory stays" "$(test -f "$(jqf c.json .benchmark.dir)/benchmark.msgpack" && echo yes)" yes
expect "the name now names the one before" "$("$SBCTL" status toy --json 2>/dev/null | jq -r .benchmark.dir)" "$bdir"
"$SBCTL" forget "$bdir" > f2.out
expect "forget by directory" "$(cat f2.out)" "forgot toy ($(jqf b.json .benchmark.digest | cut -c1-12)); its directory stays: $bdir"
"$SBCTL" forget "$bdir" > /dev/null 2> f3.err
expect "forgetting it again: not in the index (exit 2)" "$?" 2
expect "it says so" "$(cat f3.err)" "sbctl forget: benchmark '$bdir' is not in the local index: nothing to forget"
"$SBCTL" status toy > /dev/null 2> s2.err
expect "one left of the name: no note on stderr" "$(cat s2.err)" ""
expect "list: one left" "$("$SBCTL" list --json | jq -r '[.benchmarks[].dir]|join(" ")')" "$adir"
"$SBCTL" forget nothing-like-it > /dev/null 2>&1
expect "forget of an unknown name: exit 2" "$?" 2
"$SBCTL" forget > /dev/null 2>&1
expect "forget without BENCH: exit 2" "$?" 2
"$SBCTL" status "$bdir" > /dev/null 2>&1
expect "a forgotten benchmark given by its path is indexed again" \
	"$("$SBCTL" list --json | jq -r '[.benchmarks[].tag]|map(tostring)|join(" ")')" "null try2"

# ---- the same from Python ------------------------------------------------------
py - "$SBCTL" "$bdir" <<'PY' > py.out 2>&1
import json, subprocess, sys, sbench
sbctl, bdir = sys.argv[1], sys.argv[2]
cli = json.loads(subprocess.run([sbctl, "list", "--json"], capture_output=True, check=True).stdout)
assert sbench.benchmarks() == cli, (sbench.benchmarks(), cli)
assert cli["benchmarks"][1]["tag"] == "try2" and cli["benchmarks"][1]["children"] == 2
f = sbench.forget(bdir)
assert f["forgotten"][0]["dir"] == bdir, f
try:
    sbench.forget(bdir)
    raise SystemExit("forget again did not raise")
except sbench.NotFound as e:
    assert e.exit_code == 2
print("python ok")
PY
expect "python: benchmarks() equals list --json, forget() forgets" "$(tail -n 1 py.out)" "python ok"
t_done
