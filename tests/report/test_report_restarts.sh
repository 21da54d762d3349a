#!/bin/bash
# A benchmark whose job is requeued (the spec's checkpoint section, issue
# 26) in the report and in sbctl analyze, on the fake Slurm.  Child 0 needs
# three restarts: each run works until the checkpoint's signal (2 s before
# its 8 s limit: the 6 s before it leave the last run, and child 1, time to
# finish on a loaded machine), records one more stage in ckpt.txt and exits, sbagent
# requeues the job, and the fourth run finds three stages and finishes.
# Child 1 needs none and finishes at once.
#
# The report's timeline draws child 0's row as one segment per run
# (data-restart, data-ended-by, a title with its times, how it ended and its
# checkpoints) with the requeue waits between them, and child 1 as every
# child was drawn before; checked in the DOM headless Chromium built.
# analyze counts the restarts of each group.
. "$(dirname "$0")/../e2e/lib.sh"
export SB_FAKE_REQUEUE_DELAY=1

cat > train.py <<'PY'
import os, signal, sys, time
need = int(sys.argv[1])  # the restarts this child needs
stop = False
def h(s, f):
    global stop
    stop = True
signal.signal(signal.SIGUSR1, h)
done = int(open('ckpt.txt').read()) if os.path.exists('ckpt.txt') else 0
while done < need:  # one stage per run: work until the signal comes
    time.sleep(0.05)
    if stop:
        open('ckpt.tmp', 'w').write(str(done + 1))
        os.replace('ckpt.tmp', 'ckpt.txt')
        sys.exit(0)
open('model.txt', 'w').write('trained in %d stages\n' % done)
PY
cat > train.yaml <<'EOF'
name: train
command: [python3, "{spec_dir}/train.py", "{need}"]
parameters: {need: [3, 0]}
heartbeat: 1
results: [model.txt]
slurm: {time: "8"}
checkpoint: {files: [ckpt.txt], before: 2, max_restarts: 3}
EOF
"$SBCTL" submit train.yaml --json > submit.json
dir=$(jq -r .benchmark.dir submit.json)
"$SBCTL" wait "$dir" --interval 0.5 --timeout 90 > /dev/null 2>&1
"$SBCTL" status "$dir" --json > st.json
expect "both children succeeded" "$(jq -c '[.children[].class]' st.json)" '["succeeded","succeeded"]'
expect "child 0: four runs, three ended by the checkpoint's signal" \
	"$(jq -c '[.children[0].restarts[] | [.restart, .ended_by]]' st.json)" \
	'[[0,"requeue_signal"],[1,"requeue_signal"],[2,"requeue_signal"],[3,"finish"]]'
expect "child 0: each run resumed from the checkpoint its predecessor ended with" \
	"$(jq -c '.children[0].restarts as $r | [range(1; $r | length) | $r[.].resumed_from == $r[. - 1].checkpoint and $r[.].resumed_from != null] | all' st.json)" true
expect "child 1: one run" "$(jq -c '[.children[1].restarts[] | [.restart, .ended_by]]' st.json)" '[[0,"finish"]]'

# -- analyze: the restarts of each group -------------------------------------
"$SBCTL" analyze "$dir" --json > an.json
expect "analyze --json: restarts per group" "$(jq -c '[.groups[] | [.params.need, .restarts]]' an.json)" \
	'[[3,3],[0,0]]'
"$SBCTL" analyze "$dir" > an.txt
expect "analyze: the restarts of every group in the text" "$(grep succeeded, an.txt)" \
	"need=3: 1 of 1 succeeded, 3 restarts
need=0: 1 of 1 succeeded, 0 restarts"

# -- the report ----------------------------------------------------------------
"$SBCTL" report "$dir" -o r.html > /dev/null 2> err.txt
expect "report: exit 0" "$?" 0
expect "report: no warning" "$(cat err.txt)" ""
"$SBCTL" report "$dir" -o again.html > /dev/null 2>&1
expect "same evidence, same bytes" "$(cmp -s r.html again.html && echo same)" same
expect "the legend explains the restarts" "$(grep -c 'a restart: the job ran again after a requeue' r.html)" 1

. "$(dirname "$0")/chromium.sh"
timeout 120 "$chromium" "${flags[@]}" --dump-dom "file://$T_ROOT/work/r.html" > dom.html 2> chromium.err
expect "chromium: dumped the DOM" "$([ -s dom.html ] && echo yes)" yes
timeout 120 "$chromium" "${flags[@]}" --screenshot="$T_ROOT/work/restarts.png" \
	--window-size=1400,1100 --hide-scrollbars "file://$T_ROOT/work/r.html" > /dev/null 2>> chromium.err
expect "chromium: took a screenshot" "$([ -s restarts.png ] && echo yes)" yes
[ -n "${SB_REPORT_KEEP:-}" ] && cp restarts.png dom.html r.html "$SB_REPORT_KEEP"/

python3 - dom.html st.json > dom.out <<'PY'
import json, re, sys
from html.parser import HTMLParser

class P(HTMLParser):
    """Every timeline mark: its attributes, title and elements in order."""
    def __init__(self):
        super().__init__()
        self.marks, self.stack, self.mark = {}, [], None
    def handle_starttag(self, tag, attrs):
        el = {"tag": tag, "attrs": dict(attrs), "title": "", "kids": []}
        cls = (el["attrs"].get("class") or "").split()
        if tag == "g" and "mark" in cls:
            self.mark = el
            self.marks[int(el["attrs"]["data-child"])] = el
        elif self.mark is not None and self.stack and self.stack[-1] is self.mark and tag != "title":
            self.mark["kids"].append(el)
        self.stack.append(el)
    def handle_endtag(self, tag):
        while self.stack:
            el = self.stack.pop()
            if el["tag"] == tag:
                break
        if tag == "g":
            self.mark = None
    def handle_data(self, data):
        if len(self.stack) >= 2 and self.stack[-1]["tag"] == "title":
            self.stack[-2]["title"] += data

p = P()
p.feed(open(sys.argv[1]).read())
st = json.load(open(sys.argv[2]))
out = []
def check(name, ok, detail=""):
    out.append("%s\t%s" % (name, "ok" if ok else "differ: %r" % (detail,)))

def hms(t):  # "2026-12-05T19:08:06.404285947Z": 19:08:06, as the report truncates it
    return t[11:19]

# child 0: a segment per run, in order, with its attributes and title
m0 = p.marks[0]
runs = st["children"][0]["restarts"]
segs = [k for k in m0["kids"] if "data-restart" in k["attrs"]]
check("segments", [int(k["attrs"]["data-restart"]) for k in segs] == [r["restart"] for r in runs],
      [k["attrs"] for k in segs])
check("ended-by", [k["attrs"].get("data-ended-by") for k in segs] == [r["ended_by"] for r in runs],
      [k["attrs"].get("data-ended-by") for k in segs])
check("restarts attribute", m0["attrs"].get("data-restarts") == "3", m0["attrs"])
bad = []
for k, r in zip(segs, runs):
    want = r"^child 0 restart %d: %s\u2013%s UTC \([^)]+\), ended by %s" % (
        r["restart"], hms(r["started"]), hms(r["ended"]), r["ended_by"])
    if r["resumed_from"]:
        want += ", resumed from " + r["resumed_from"][:12]
    if r["checkpoint"]:
        want += ", checkpoint " + r["checkpoint"][:12]
    want += ", on " + re.escape(r["node"]) + "$"
    if not re.match(want, k["title"]):
        bad.append((k["title"], want))
check("titles", not bad, bad)
# left to right, each run after the one before, a requeue wait between
xs = [(float(k["attrs"]["x"]), float(k["attrs"]["x"]) + float(k["attrs"]["width"])) for k in segs]
check("in order", all(xs[i][1] <= xs[i + 1][0] + 0.05 for i in range(len(xs) - 1)), xs)
waits = [k for k in m0["kids"] if "data-requeue" in k["attrs"]]
check("requeue waits", [k["attrs"]["data-requeue"] for k in waits] == ["1", "2", "3"] and
      all("wait" in k["attrs"]["class"].split() for k in waits) and
      all(re.match(r"^child 0: requeued, waited .+ in the queue for restart [123]$", k["title"]) for k in waits),
      [(k["attrs"], k["title"]) for k in waits])
check("gaps", all(abs(float(w["attrs"]["x"]) - xs[i][1]) < 0.15 and
                  abs(float(w["attrs"]["x"]) + float(w["attrs"]["width"]) - xs[i + 1][0]) < 0.15
                  for i, w in enumerate(waits)), (xs, [w["attrs"] for w in waits]))
ticks = [k for k in m0["kids"] if k["tag"] == "line" and "restart-tick" in k["attrs"].get("class", "")]
check("ticks", [float(k["attrs"]["x1"]) for k in ticks] == [x[0] for x in xs[1:]], [k["attrs"] for k in ticks])
check("child title", re.match(r"^child 0: succeeded\nneed=3\nwaited .+, then 4 runs \(3 restarts\): ran .+, "
                              r"waited .+ in the queue between them$", m0["title"]) is not None, repr(m0["title"]))
# child 1, one run: drawn as every child was before, a wait and a run
m1 = p.marks[1]
shape = [(k["tag"], k["attrs"].get("class"), sorted(a for a in k["attrs"] if a.startswith("data-")))
         for k in m1["kids"]]
check("child 1 as before", shape == [("rect", "c-succeeded wait", []), ("rect", "c-succeeded", [])] and
      "data-restarts" not in m1["attrs"] and
      re.match(r"^child 1: succeeded\nneed=0\nwaited [^,]+, ran [^,(]+$", m1["title"]) is not None,
      (shape, m1["attrs"], repr(m1["title"])))
print("\n".join(out))
PY
while IFS=$'\t' read -r name verdict; do
	expect "DOM: $name" "$verdict" ok
done < dom.out
expect "DOM: every check ran" "$(wc -l < dom.out)" 10
t_done
