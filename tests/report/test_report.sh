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
for bad in ' src=' '<link' 'url(' '@import' '<iframe' '<object' '<embed' 'http://' 'https://'; do
	expect "nothing loaded from outside: no '$bad'" "$(grep -ci -- "$bad" "$html")" 0
done
# one script, inline: the groups table's sorting
expect "one script, inline" "$(grep -c '<script' "$html") $(grep -c '<script>' "$html")" "1 1"
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
. "$(dirname "$0")/chromium.sh"
# the page's network requests, if any, in a net log
flags+=(--log-net-log="$T_ROOT/net.json" --net-log-capture-mode=Default)
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
        # a link loads; a script only through src (caught above), the
        # page's one script is inline
        if tag == "link":
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

# -- each metric against each numeric parameter ---------------------------------
# lr is numeric (model is not): a chart per metric, a line per model
expect "params: a chart per metric against lr, none against model" \
	"$(grep -o 'class="param-plot" data-metric="[a-z]*" data-param="[a-z]*"' "$html" | tr '\n' ' ')" \
	'class="param-plot" data-metric="accuracy" data-param="lr" class="param-plot" data-metric="loss" data-param="lr" '
expect "params: a line per model in each" "$(grep -o '<g class="pline" data-line="[0-9]"' "$html" | wc -l)" 4
expect "params: the lines named in the legend" \
	"$(sed -n '/<section id="params">/,/<\/section>/p' "$html" | grep -o '></i>model=[a-z]*<' | sort | uniq -c | awk '{ printf "%s %s ", $1, $2 }')" \
	"2 ></i>model=large< 2 ></i>model=small< "
# the points: lr=1.0 has no success, so two points per line
expect "params: a point per group with a success" "$(sed -n '/<section id="params">/,/<\/section>/p' "$html" | grep -o '<circle cx' | wc -l)" 8

# -- the spec's analysis.sort ranks the analysis; --sort overrides it --------
expect_match "analyze: ranked by the spec's sort (-accuracy)" "$("$SBCTL" analyze "$dir" 2> /dev/null)" \
	"best: lr=0.01 model=large \(accuracy mean 0.875, n=1\)"
"$SBCTL" report "$dir" --sort loss -o byloss.html > /dev/null 2>&1
expect "report --sort loss: judged by loss, lowest first" \
	"$(grep -o 'Judged by the mean of <code>loss</code>, lowest first (the analysis.s sort)' byloss.html | wc -l)" 1
"$SBCTL" report "$dir" --sort acuracy -o bad.html > /dev/null 2> e.txt
expect "report --sort acuracy: exit 2" "$?" 2
expect_match "report --sort acuracy: the closest named" "$(cat e.txt)" "did you mean 'accuracy'"

# -- the best configuration and the groups' table, in the browser -----------
# demo-sweep's analysis.sort is -accuracy: lr=0.01 model=large has the best
# mean (0.875) but one success of two (the other outlived its time limit)
# a click on the loss column's header sorts the table by loss, lowest first,
# the groups without a value last; a second click, highest first
sed 's#</body>#<script>var h=document.querySelector("\#group-table th[data-metric=loss]");h.click();document.body.setAttribute("data-once",[].map.call(document.querySelectorAll("\#group-table tbody tr"),function(r){return r.cells[0].textContent.replace(" best","")}).join(","));h.click();</script></body>#' \
	"$html" > sorted.html
timeout 120 "$chromium" "${flags[@]/--log-net-log=*/--log-net-log=$T_ROOT/net3.json}" \
	--dump-dom "file://$T_ROOT/work/sorted.html" > sorted.dom 2>> chromium.err
python3 - dom.html sorted.dom > best.out <<'PY'
import sys
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.text, self.rows, self.once, self.warn = [], {}, [], None, []
        self.cur = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body" and "data-once" in a:
            self.once = a["data-once"]
        if tag == "p" and a.get("class") in ("verdict", "score", "runner", "sturdy"):
            self.cur = a["class"]
            self.text[self.cur] = ""
        if tag == "p" and a.get("data-warn"):
            self.warn.append(a["data-warn"])
        if tag == "tr" and "data-group" in a:
            self.rows.append([a.get("class") or "", ""])
            self.cur = "row"
    def handle_endtag(self, tag):
        if tag in ("p", "tr"):
            self.cur = None
    def handle_data(self, data):
        if self.cur == "row":
            self.rows[-1][1] += data
        elif self.cur:
            self.text[self.cur] += data

for f in sys.argv[1:]:
    p = P()
    p.feed(open(f).read())
    print("verdict", p.text.get("verdict", "").strip())
    print("score", p.text.get("score", "").strip())
    print("warn", " ".join(p.warn))
    print("sturdy", p.text.get("sturdy", "").strip())
    print("rows", len(p.rows), "best", [r[1] for r in p.rows if r[0] == "best"])
    print("order", ",".join(r[1].split(" best")[0].split("1 of")[0].split("0 of")[0].split("2 of")[0].strip() for r in p.rows))
    print("once", p.once)
PY
expect "best: the configuration" "$(sed -n 1p best.out)" "verdict lr=0.01 model=large"
expect "best: its mean, n and failures" "$(sed -n 2p best.out)" \
	"score accuracy mean 0.875, median 0.875, n=1: 1 of 2 children succeeded"
expect "best: warned of n=1 and of its failure" "$(sed -n 3p best.out)" "warn n failures"
expect "best: the best with a spread named" "$(sed -n 4p best.out)" \
	"sturdy The best with at least 2 succeeded runs: lr=0.01 model=small, 0.8 ± 0.00707107 (n=2)."
expect_match "groups: a row per group, the best marked" "$(sed -n 5p best.out)" "^rows 6 best \['lr=0.01 model=large"
expect "groups: in the analysis's order without a click" "$(sed -n 6p best.out)" \
	"order lr=0.01 model=large,lr=0.1 model=large,lr=0.01 model=small,lr=0.1 model=small,lr=1.0 model=small,lr=1.0 model=large"
expect "groups: one click on loss sorts lowest first, no value last" "$(sed -n 14p best.out)" \
	"once lr=0.01 model=large,lr=0.1 model=large,lr=0.01 model=small,lr=0.1 model=small,lr=1.0 model=small,lr=1.0 model=large"
expect "groups: a second click, highest first, no value still last" "$(sed -n 13p best.out)" \
	"order lr=0.1 model=small,lr=0.01 model=small,lr=0.1 model=large,lr=0.01 model=large,lr=1.0 model=small,lr=1.0 model=large"
# -- value axes: logarithmic over orders of magnitude; far outliers at the edge
# x=6 diverged: loss 289 against 0.1-0.5 (positive: a log axis), delta -500
# against -2..2 (not positive: linear, the outlier drawn at the edge)
cat > axes.sh <<'SH'
if [ "$1" = 6 ]; then l=289; d=-500; else l=0.$1; d=$(($1 - 3)); fi
printf '{"loss": %s, "delta": %s}\n' "$l" "$d" > m.json
SH
write_spec axes.yaml "name: axes
command: [sh, '{spec_dir}/axes.sh', '{x}']
parameters:
  x: [1, 2, 3, 4, 5, 6]
metrics: m.json"
"$SBCTL" submit axes.yaml --json > axes.json 2> /dev/null
adir=$(jq -r .benchmark.dir axes.json)
"$SBCTL" wait "$adir" --interval 0.5 --timeout 60 > /dev/null 2>&1
expect "axes: every child succeeded" "$("$SBCTL" status "$adir" --json | jq -c .counts.succeeded)" 6
"$SBCTL" report "$adir" -o axes.html > /dev/null 2>&1
expect "axes: loss on a log axis, said" \
	"$(grep -c 'data-metric="loss" data-scale="log"' axes.html) $(grep -c 'data-axis="log"' axes.html)" "1 1"
expect "axes: delta on a linear axis, one value at its edge, said" \
	"$(grep -c 'data-metric="delta" data-scale="linear"' axes.html) $(grep -o 'class="dot c-succeeded beyond"' axes.html | wc -l) $(grep -c '1 value far from the rest is drawn' axes.html)" "1 1 1"
expect "axes: loss against x on a log y axis, x linear" \
	"$(grep -c 'data-metric="loss" data-param="x" data-xscale="linear" data-yscale="log"' axes.html)" 1
expect "axes: the outlier's value in its title" "$(grep -cE '<title>-500(\.0)? \(beyond the axis\)</title>' axes.html)" 1
# the log axis's ticks: the powers of ten (2 and 5 times them too over
# three decades or fewer)
expect_match "axes: the log axis's ticks" \
	"$(sed -n '/class="plot" data-metric="loss"/,/<\/svg>/p' axes.html | grep -oE 'text-anchor="[a-z]+">[0-9.]*<' | tr -d '<' | cut -d'>' -f2 | tr '\n' ' ')" \
	"^0.1 1 10 100 $"
timeout 120 "$chromium" "${flags[@]/--log-net-log=*/--log-net-log=$T_ROOT/net4.json}" \
	--screenshot="$T_ROOT/work/axes.png" --window-size=1400,1800 --hide-scrollbars \
	"file://$T_ROOT/work/axes.html" > /dev/null 2>> chromium.err
expect "chromium: a screenshot of the axes" "$([ -s axes.png ] && echo yes)" yes
[ -n "${SB_REPORT_KEEP:-}" ] && cp axes.png axes.html "$SB_REPORT_KEEP"/

# -- learning curves: the heartbeats' numbers, median and band per group ------
cat > curve.sh <<'SH'
for i in 1 2 3 4 5; do printf '{"loss": %s}\n' "$(( 100 / ($1 * i) ))" > m.json; sleep 1.1; done
SH
write_spec curves.yaml "name: curves
command: [sh, '{spec_dir}/curve.sh', '{x}']
parameters:
  x: [1, 2]
repeats: 2
heartbeat: 1
metrics: m.json"
"$SBCTL" submit curves.yaml --json > curves.json 2> /dev/null
cdir=$(jq -r .benchmark.dir curves.json)
"$SBCTL" wait "$cdir" --interval 0.5 --timeout 60 > /dev/null 2>&1
"$SBCTL" report "$cdir" -o curves.html > /dev/null 2>&1
expect "curves: a chart of loss, a group per x" \
	"$(grep -c '<svg class="curve" data-metric="loss"' curves.html) $(grep -o '<g class="cgroup"' curves.html | wc -l)" "1 2"
expect "curves: each run thin, a median and a band per group" \
	"$(grep -o 'class="crun"' curves.html | wc -l) $(grep -o 'class="cmedian"' curves.html | wc -l) $(grep -o 'class="cband"' curves.html | wc -l)" "4 2 2"
# each run's line steps through several values (the heartbeats carried them)
expect "curves: a run's line has several steps" \
	"$(grep -o '<path class="crun" data-child="0"[^>]*d="[^"]*"' curves.html | grep -o ' V' | wc -l | awk '{ print ($1 >= 2) ? "yes" : $1 }')" yes
expect_match "curves: a run's title: child, last value, class" "$(grep -o '<title>child 0: loss [^<]*</title>' curves.html)" \
	"^<title>child 0: loss 20(\.0)? after .* \(succeeded\)</title>$"
no_metrics=$(grep -c 'id="curves"' "$html")
expect "curves: the demo (metrics written once, at the end) still has its section" "$no_metrics" 1
[ -n "${SB_REPORT_KEEP:-}" ] && cp curves.html "$SB_REPORT_KEEP"/

# -- children not over yet are apart from those that did not succeed ----------
write_spec slow.yaml "name: slow
command: [sh, -c, 'if [ {x} = 2 ]; then sleep 60; fi']
parameters:
  x: [1, 2]"
"$SBCTL" submit slow.yaml --json > slow.json 2> /dev/null
sdir=$(jq -r .benchmark.dir slow.json)
one_running() { "$SBCTL" status "$sdir" --json 2> /dev/null | jq -e '.counts.succeeded == 1 and .counts.running == 1' > /dev/null; }
wait_for 30 one_running
"$SBCTL" report "$sdir" -o slow.html > /dev/null 2>&1
expect "not over: its own section, the running child in it" \
	"$(sed -n '/<section id="unfinished">/,/<\/section>/p' slow.html | grep -o 'data-class="running"' | wc -l) $(grep -c '1 of 2 children is still pending or running' slow.html)" "1 1"
expect "not over: not among the excluded" \
	"$(sed -n '/<section id="excluded">/,/<\/section>/p' slow.html | grep -c 'running\|data-child')" 0
expect "not over: the excluded section says none failed" \
	"$(grep -c 'No child that is over failed: those not over yet are listed above.' slow.html)" 1
scancel "$(jq -r '.jobs[0].job_id' slow.json)" 2> /dev/null
t_done
