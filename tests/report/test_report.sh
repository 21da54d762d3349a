#!/bin/bash
# sbctl report on the demo sweep (examples/demo-sweep.yaml on the fake
# Slurm: successes, a diverging learning rate that fails, a child that
# outlives its time limit, one cancelled by hand): one self-contained HTML
# file, the same bytes twice, and checked in a real browser (headless
# Chromium): the DOM holds one timeline mark per child, of its class, and
# the count of every class, and the page loads nothing from outside.
. "$(dirname "$0")/../e2e/lib.sh"
export SB_FAKE_KILLWAIT=0.5

"$SBCTL" submit "$SB_SRC/examples/demo-sweep.yaml" --json > submit.json
dir=$(jq -r .benchmark.dir submit.json)
job=$(jq -r '.jobs[0].job_id' submit.json)
scancel "${job}_3"
"$SBCTL" wait "$dir" --interval 0.5 --timeout 90 > /dev/null 2>&1
"$SBCTL" status "$dir" --json > st.json

# -- the file ----------------------------------------------------------------
"$SBCTL" report demo-sweep > out.txt 2> err.txt
expect "report: exit 3 (not every child succeeded)" "$?" 3
expect "report: default path printed" "$(cat out.txt)" "$dir/report.html"
html=$dir/report.html
expect "report: written" "$([ -s "$html" ] && echo yes)" yes
expect "report: no warning" "$(cat err.txt)" ""
"$SBCTL" report "$dir" -o again.html > /dev/null 2>&1
expect "report: -o FILE" "$?" 3
expect "same evidence, same bytes" "$(cmp -s "$html" again.html && echo same)" same
"$SBCTL" report "$dir" -o offline.html --offline > /dev/null 2>&1
expect "report --offline" "$?" 3
for bad in '<script' ' src=' '<link' 'url(' '@import' '<iframe' '<object' '<embed' 'http://' 'https://'; do
	expect "nothing loaded from outside: no '$bad'" "$(grep -ci -- "$bad" "$html")" 0
done
expect "the failed group: every child's stderr tail" \
	"$(grep -c '<pre>diverged: learning rate too large</pre></details>$' "$html")" 4
expect "the failed group: its reason and what its children share" \
	"$(grep -c -e '</span> 4 failed: exit 3</h3>' -e 'shared by all: <code>lr=1.0</code>' "$html")" 2
expect "a plot per metric" "$(grep -o 'class="plot" data-metric="[a-z]*"' "$html" | tr '\n' ' ')" \
	'class="plot" data-metric="accuracy" class="plot" data-metric="loss" '
expect "a row per group and metric" "$(grep -c '<g class="group" data-group=' "$html")" 12
# 4 groups with a success per metric, and the legend's one of each
expect "a mean and a median per group with a success" \
	"$(grep -o 'class="mean"' "$html" | wc -l) $(grep -o 'class="median"' "$html" | wc -l)" "9 9"
expect "the digest" "$(grep -c "$(jq -r .benchmark.digest st.json)" "$html")" 1
expect "provenance: the user" "$(grep -c "<th>by</th><td>$(id -un)</td>" "$html")" 1
"$SBCTL" report nosuch > /dev/null 2> e.txt
expect "unknown BENCH: exit 2" "$?" 2
"$SBCTL" report "$dir" -o "$T_ROOT/no/such/dir/r.html" > /dev/null 2> e.txt
expect "unwritable output: exit 1" "$?" 1
expect_match "unwritable output: says why" "$(cat e.txt)" "^sbctl report: cannot write the report: "

# -- in a real browser ---------------------------------------------------------
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
	# tests/install-deps.sh installs it: a missing browser is a failure, not a skip
	echo "not ok - chromium is not installed (tests/install-deps.sh installs it)"
	exit 1
fi
profile=$(mktemp -d "$T_ROOT/chromium.XXXXXX")
# every host name resolves nowhere: a page that tried the network would
# show it in the net log
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$profile" --host-resolver-rules='MAP * ~NOTFOUND'
       --log-net-log="$T_ROOT/net.json" --net-log-capture-mode=Default)
timeout 120 "$chromium" "${flags[@]}" --dump-dom "file://$html" > dom.html 2> chromium.err
expect "chromium: dumped the DOM" "$([ -s dom.html ] && echo yes)" yes
timeout 120 "$chromium" "${flags[@]/--log-net-log=*/--log-net-log=$T_ROOT/net2.json}" \
	--screenshot="$T_ROOT/work/report.png" --window-size=1400,2000 --hide-scrollbars \
	"file://$html" > /dev/null 2>> chromium.err
expect "chromium: took a screenshot" "$([ -s report.png ] && echo yes)" yes
[ -n "${SB_REPORT_KEEP:-}" ] && cp report.png dom.html "$html" "$SB_REPORT_KEEP"/

# the requests a page made, from the browser's net log: those whose network
# isolation key is the file's (the browser's own background requests are not)
cat > pagereq.py <<'PY'
import json

def page_requests(path):
    urls = set()
    for ev in json.load(open(path)).get("events", []):
        pa = ev.get("params") or {}
        if "file://" in str(pa.get("network_isolation_key", "")) and pa.get("url"):
            urls.add(pa["url"])
    return sorted(u for u in urls if not u.startswith("file://"))
PY
# the check itself can fail: a page with an image and a stylesheet from
# outside is caught
printf '<html><body><img src="http://example.invalid/x.png"><link rel=stylesheet href="https://example.invalid/a.css"></body></html>\n' > bad.html
timeout 120 "$chromium" "${flags[@]/--log-net-log=*/--log-net-log=$T_ROOT/net-bad.json}" \
	--dump-dom "file://$T_ROOT/work/bad.html" > /dev/null 2>> chromium.err
expect "the request check sees a page that loads from outside" \
	"$(python3 -c 'import sys; sys.path.insert(0, "."); from pagereq import page_requests; print(page_requests(sys.argv[1]))' "$T_ROOT/net-bad.json")" \
	"['http://example.invalid/x.png', 'https://example.invalid/a.css']"

python3 - dom.html st.json "$T_ROOT/net.json" > dom.out <<'PY'
import json, sys
sys.path.insert(0, ".")
from pagereq import page_requests
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.marks, self.counts, self.external, self.stack = [], {}, [], []
        self.in_count = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if "mark" in cls:
            self.marks.append((int(a["data-child"]), a["data-class"]))
        if "count" in cls and "data-class" in a:
            self.in_count = a["data-class"]
        for k in ("src", "srcset", "data", "poster"):
            if k in a:
                self.external.append((tag, k, a[k]))
        if tag == "link" or tag == "script":
            self.external.append((tag, "", ""))
    def handle_data(self, data):
        if self.in_count is not None and data.strip():
            self.counts[self.in_count] = int(data.strip())
            self.in_count = None

p = P()
p.feed(open(sys.argv[1]).read())
st = json.load(open(sys.argv[2]))
want_marks = [(c["index"], c["class"]) for c in st["children"]]
print("marks", "ok" if sorted(p.marks) == want_marks else "differ: %r" % p.marks)
want_counts = {k: v for k, v in st["counts"].items() if v}
print("counts", "ok" if p.counts == want_counts else "differ: %r != %r" % (p.counts, want_counts))
print("external", p.external or "none")
print("requests", page_requests(sys.argv[3]) or "none")
PY
expect "DOM: one timeline mark per child, of its class" "$(sed -n 1p dom.out)" "marks ok"
expect "DOM: the count of every class" "$(sed -n 2p dom.out)" "counts ok"
expect "DOM: no element loads anything" "$(sed -n 3p dom.out)" "external none"
expect "the browser requested nothing beyond the file" "$(sed -n 4p dom.out)" "requests none"
t_done
