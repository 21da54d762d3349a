#!/bin/bash
# sbctl report at three sizes, as a person sees it in a browser: 12, 300
# and 10,000 children, each with three metrics and a few children rerun
# (two attempts), rendered by headless Chromium at 1400 and 800 px wide.
#
#  - 12 children run on the fake Slurm, grown from a first benchmark of 9
#    (two of which failed and were rerun there): the 9 are reused, and of
#    the three new ones one fails and is rerun.
#  - 300 children run on the fake Slurm; four fail and are rerun.
#  - 10,000 children are too many to run here in reasonable time (300 take
#    some 25 s on a loaded two-core machine): as tests/bench does, sbatch is
#    a shim that prints job ids, build/tests/gen_status_logs writes every
#    child's signed log (with its metrics and exit code) and sacct answers
#    with spread-out rows; five children fail, `sbctl rerun` submits them
#    again and their second attempt gets logs and rows of its own.
#
# For each, the report's DOM after layout (a copy of the report with a
# script that measures every text of every SVG and writes what it found
# into the page, dumped by --dump-dom) must show every section; one
# timeline mark per child (up to SB_REPORT_MARKS_MAX, 2,000) or the
# aggregated view; the rerun children with a segment per attempt
# (data-attempt) and the reused ones with the legend that explains them;
# and at both widths nothing past its section's right edge (but in a box
# that scrolls), a page no wider than the window, no text of an SVG outside
# its SVG and no two texts of an SVG overlapping.  The screenshots
# (sizes-N-W.png, the whole page), the reports and the DOM dumps are kept in
# $SB_REPORT_KEEP when it is set.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/chromium.sh"
export SB_FAKE_CPUS=64 SB_FAKE_MAX_ARRAY_SIZE=20001 SB_LOOKUP_WINDOW=0.5
fixed=$T_ROOT/work/fixed

# spec NAME XS...: lr x x, three metrics; lr=0.1 with x=2, 3, 4 or 50 fails
# until $fixed exists; each child sleeps $nap first (none by default)
nap=0
spec() {
	local name=$1
	shift
	cat > "$name.yaml" <<EOF
name: $name
command: [sh, -c, 'sleep $nap; case {lr}-{x} in 0.1-2|0.1-3|0.1-4|0.1-50) if ! test -f $fixed; then echo "diverged at step {x}" >&2; exit 4; fi;; esac; awk -v lr={lr} -v x={x} ''BEGIN {{ printf "loss: %g\naccuracy: %.4f\nsteps_per_s: %.1f\n", lr * x * x, 1 - lr / (x + 1), 1000 / x }}'' > m.yaml']
parameters:
  lr: [0.001, 0.01, 0.1]
  x: [$(echo "$@" | sed 's/ /, /g')]
metrics: m.yaml
analysis:
  group_by: [lr]
EOF
}

# run_sizes NAME: submits NAME.yaml, waits, fixes the failures and reruns
# them; prints the benchmark directory
run_sizes() {
	local dir
	"$SBCTL" submit "$1.yaml" --json > "$1.submit.json" || { echo "submit $1 failed" >&2; return 1; }
	dir=$(jqf "$1.submit.json" .benchmark.dir)
	"$SBCTL" wait "$dir" --interval 0.5 --timeout 200 > /dev/null 2>&1
	touch "$fixed"
	"$SBCTL" rerun "$dir" --only failed --json > "$1.rerun.json" 2> "$1.rerun.err" ||
		{ echo "rerun $1 failed: $(cat "$1.rerun.err")" >&2; return 1; }
	"$SBCTL" wait "$dir" --interval 0.5 --timeout 200 > /dev/null 2>&1
	rm -f "$fixed"
	echo "$dir"
}

# -- 12 children: 9 first, then grown to 12 ----------------------------------
# (a short nap, so that the screenshot shows each run as a bar)
nap=0.4
spec s12 1 2 3
first=$(run_sizes s12)
rm -f "$first/report.html"
spec s12 1 2 3 4
"$SBCTL" submit s12.yaml --json > s12b.submit.json
dir12=$(jqf s12b.submit.json .benchmark.dir)
"$SBCTL" wait "$dir12" --interval 0.5 --timeout 200 > /dev/null 2>&1
touch "$fixed"
"$SBCTL" rerun "$dir12" --only failed --json > s12b.rerun.json 2> /dev/null
"$SBCTL" wait "$dir12" --interval 0.5 --timeout 200 > /dev/null 2>&1
rm -f "$fixed"

# -- 300 children ---------------------------------------------------------------
nap=0
spec s300 $(seq 1 100)
dir300=$(run_sizes s300)

# -- 10,000 children: logs and accounting made, not run -------------------------
cat > "$SHIM/sbatch" <<EOF
#!/bin/sh
echo call >> "$T_ROOT/calls.sbatch"
echo \$((7000 + \$(wc -l < "$T_ROOT/calls.sbatch")))
EOF
cat > "$SHIM/sacct" <<EOF
#!/bin/sh
case " \$* " in
*" -j "*) [ -f "$T_ROOT/acct" ] && exec cat "$T_ROOT/acct" ;;
esac
exec "$SB_FAKE_BIN/sacct" "\$@"
EOF
chmod +x "$SHIM/sbatch" "$SHIM/sacct"
spec s10k $(seq 1 2500)
sed -i 's/^  lr: .*/  lr: [0.001, 0.01, 0.1, 1.0]/' s10k.yaml
"$SBCTL" submit s10k.yaml --json > s10k.submit.json
dir10k=$(jqf s10k.submit.json .benchmark.dir)
digest=$(jqf s10k.submit.json .benchmark.digest)
jq -c '[.child_list[] | [.index, .digest, .params.lr, .params.x]]' "$dir10k/benchmark.json" > children10k.json
# gen10k SUBMIT-JSON ATTEMPT: the lines of build/tests/gen_status_logs for the
# children a submit (or rerun) --json sent, and their sacct rows appended to
# $T_ROOT/acct: submitted two hours ago (a rerun 50 min later), started in
# waves over an hour, each ran 1-4 min; in attempt 0 the children of lr=0.1
# with x = 2, 3, 50, 1000 and 2000 failed (exit 4)
gen10k() {
	python3 - children10k.json "$1" "$2" "${digest:0:12}" "$T_ROOT/acct" > "lines.a$2" <<'PY'
import json, sys, time
kids = {k[0]: k for k in json.load(open(sys.argv[1]))}
sub = json.load(open(sys.argv[2]))
att, d12 = int(sys.argv[3]), sys.argv[4]
t0 = int(time.time()) - 7200 + att * 3000
fmt = lambda t: time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))
with open(sys.argv[5], "a") as acct:
    for job in sub["jobs"]:
        for task, c in enumerate(job["children"]):
            _, digest, lr, x = kids[c]
            fail = att == 0 and lr == 0.1 and x in (2, 3, 50, 1000, 2000)
            raw = 5000000 + 100000 * att + c
            print("%d %s %d %s %d %d %d accuracy=%.4f loss=%g steps_per_s=%.1f" % (
                c, digest, raw, job["job_id"], task, att, 4 if fail else 0,
                1 - lr / (x + 1), lr * x * x, 1000.0 / x))
            start = t0 + 30 + c * 3600 // 10000
            end = start + 60 + (c * 37) % 180
            acct.write("%s_%d|%d|sb-%s-a%d|%s|%s|%s|%s|%s|node1\n" % (
                job["job_id"], task, raw, d12, att, "FAILED" if fail else "COMPLETED",
                "4:0" if fail else "0:0", fmt(t0), fmt(start), fmt(end)))
PY
	sort -n -k1,1 "lines.a$2" | "$SB_BUILD/tests/gen_status_logs" "$dir10k" "$digest" > /dev/null
}
gen10k s10k.submit.json 0
"$SBCTL" rerun "$dir10k" --only failed --json > s10k.rerun.json 2> s10k.rerun.err
expect "10,000: rerun submits the five failed children" \
	"$(jq '[.jobs[].children[]] | length' s10k.rerun.json 2>/dev/null)" 5
gen10k s10k.rerun.json 1

# -- the reports ----------------------------------------------------------------
"$SBCTL" status "$dir12" --json > st12.json
"$SBCTL" status "$dir300" --json > st300.json
"$SBCTL" status "$dir10k" --json > st10k.json
expect "12: 8 reused, 1 rerun, every child succeeded" \
	"$(jq -c '[([.children[] | select(.reused_from)] | length), ([.children[] | select((.attempts | length) > 1)] | length), .counts.succeeded]' st12.json)" \
	"[9,1,12]"
expect "300: 3 rerun, every child succeeded" \
	"$(jq -c '[([.children[] | select((.attempts | length) > 1)] | length), .counts.succeeded]' st300.json)" "[4,300]"
expect "10,000: 5 rerun, every child succeeded" \
	"$(jq -c '[([.children[] | select((.attempts | length) > 1)] | length), .counts.succeeded]' st10k.json)" "[5,10000]"

cat > check.js <<'JS'
<script>
/* what a person would see wrong, measured after layout: written into the
   page as lines "what<TAB>detail" for --dump-dom */
(function () {
  var out = [], i, j, k;
  function fmt(r, o) {
    return [r.left - o.left, r.right - o.left, r.top - o.top, r.bottom - o.top].map(function (v) { return v.toFixed(1); }).join(",");
  }
  document.querySelectorAll("section").forEach(function (s) {
    var h = s.querySelector("h2"), r = s.getBoundingClientRect();
    out.push("section\t" + s.id + "\t" + (h ? h.textContent : "") + "\t" + (r.height > 20 ? "shown" : "empty"));
    /* nothing of a section reaches past its right edge (a table too wide
       for the window, say); the first such element of each kind */
    var seen = {};
    s.querySelectorAll("*").forEach(function (e) {
      var q = e.getBoundingClientRect(), kind = e.tagName.toLowerCase();
      if (e.closest("svg") || seen[kind] || q.width === 0 || q.right <= r.right + 0.5)
        return;
      for (var up = e.parentElement; up && up !== s; up = up.parentElement)
        if (getComputedStyle(up).overflowX !== "visible")
          return; /* inside a box that scrolls (or clips on purpose) */
      seen[kind] = 1;
      out.push("past\t" + s.id + "\t" + kind + " " + (e.textContent || "").trim().slice(0, 40) + "\t" + (q.right - r.right).toFixed(1) + " px");
    });
  });
  out.push("wide\t" + (document.documentElement.scrollWidth > window.innerWidth ? document.documentElement.scrollWidth + " > " + window.innerWidth : "fits"));
  var svgs = document.querySelectorAll("svg");
  for (i = 0; i < svgs.length; i++) {
    var svg = svgs[i], o = svg.getBoundingClientRect();
    var name = svg.id || (svg.getAttribute("class") || "svg" + i) +
      (svg.dataset.metric ? "[" + svg.dataset.metric + "]" : "");
    var texts = [], ts = svg.querySelectorAll("text");
    for (j = 0; j < ts.length; j++) {
      var r = ts[j].getBoundingClientRect();
      if (!ts[j].textContent.trim() || r.width === 0)
        continue;
      texts.push({ t: ts[j].textContent, r: r });
      if (r.left < o.left - 0.5 || r.right > o.right + 0.5 || r.top < o.top - 0.5 || r.bottom > o.bottom + 0.5)
        out.push("outside\t" + name + "\t" + ts[j].textContent + "\t" + fmt(r, o) + " of " + o.width.toFixed(1) + "x" + o.height.toFixed(1));
    }
    for (j = 0; j < texts.length; j++)
      for (k = j + 1; k < texts.length; k++) {
        var a = texts[j].r, b = texts[k].r;
        var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        var h2 = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 0.5 && h2 > 0.5)
          out.push("overlap\t" + name + "\t" + texts[j].t + " | " + texts[k].t + "\t" + fmt(a, o) + " / " + fmt(b, o));
      }
    out.push("svg\t" + name + "\t" + texts.length + " texts");
  }
  out.push("height\t" + Math.ceil(document.documentElement.scrollHeight));
  var pre = document.createElement("pre");
  pre.id = "sb-checks";
  pre.textContent = out.join("\n");
  document.body.appendChild(pre);
})();
</script>
JS

# check N DIR: the report of DIR, in the browser at both widths
check() {
	local n=$1 dir=$2 w html=report$1.html
	"$SBCTL" report "$dir" -o "$html" > /dev/null 2> "report$n.err"
	expect "$n: report exits 0 (every child succeeded)" "$?" 0
	"$SBCTL" report "$dir" -o again.html > /dev/null 2>&1
	expect "$n: same evidence, same bytes" "$(cmp -s "$html" again.html && echo same)" same
	# the report and the script that measures it, in one page
	sed 's#</body>#__CHECK__</body>#' "$html" | awk -v f=check.js '
		/__CHECK__/ { while ((getline l < f) > 0) print l; sub(/__CHECK__/, "") } { print }' > "measure$n.html"
	for w in 1400 800; do
		timeout 120 "$chromium" "${flags[@]}" --window-size=$w,1200 --dump-dom \
			"file://$T_ROOT/work/measure$n.html" > "dom$n-$w.html" 2>> chromium.err
		python3 - "dom$n-$w.html" > "checks$n-$w.txt" <<'PY'
import html, re, sys
m = re.search(r'<pre id="sb-checks">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
print(html.unescape(m.group(1)) if m else "no checks: the script did not run")
PY
		local height
		height=$(sed -n 's/^height\t//p' "checks$n-$w.txt")
		[ -n "$height" ] && [ "$height" -le 16000 ] || height=16000
		timeout 120 "$chromium" "${flags[@]}" --screenshot="$T_ROOT/work/sizes-$n-$w.png" \
			--window-size=$w,"$height" --hide-scrollbars "file://$T_ROOT/work/$html" > /dev/null 2>> chromium.err
		expect "$n at $w px: a screenshot" "$([ -s "sizes-$n-$w.png" ] && echo yes)" yes
		expect "$n at $w px: every section shown" \
			"$(awk -F'\t' '$1 == "section" { print $2 ": " $4 }' "checks$n-$w.txt" | grep -E '^(benchmark|best|classes|groups|timeline-section|metrics|excluded):' | tr '\n' ' ')" \
			"benchmark: shown best: shown classes: shown groups: shown timeline-section: shown metrics: shown excluded: shown "
		expect "$n at $w px: no section empty" "$(awk -F'\t' '$1 == "section" && $4 != "shown"' "checks$n-$w.txt")" ""
		expect "$n at $w px: the timeline's texts were measured" \
			"$(awk -F'\t' '$1 == "svg" && $2 == "timeline" { print ($3 + 0 > 3) ? "yes" : $3 }' "checks$n-$w.txt")" yes
		expect "$n at $w px: nothing reaches past its section's right edge" "$(grep '^past' "checks$n-$w.txt")" ""
		expect "$n at $w px: the page is no wider than the window" "$(sed -n 's/^wide\t//p' "checks$n-$w.txt")" fits
		expect "$n at $w px: no text outside its SVG" "$(grep '^outside' "checks$n-$w.txt")" ""
		expect "$n at $w px: no two texts of an SVG overlap" "$(grep '^overlap' "checks$n-$w.txt")" ""
		[ -n "${SB_REPORT_KEEP:-}" ] && cp "sizes-$n-$w.png" "$SB_REPORT_KEEP"/
	done
	[ -n "${SB_REPORT_KEEP:-}" ] && cp "$html" "$SB_REPORT_KEEP/sizes-$n.html" && cp "dom$n-1400.html" "$SB_REPORT_KEEP/sizes-$n-dom.html"
}

# marks N ST.JSON DOM: the timeline's marks against the status: one per child
# of its class; the attempts of each rerun child, each drawn with data-attempt
marks() {
	python3 - "$2" "$3" "$1" <<'PY'
import json, sys
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.marks, self.mark, self.depth, self.panels, self.legend = {}, None, 0, [], set()
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if "data-legend" in a:
            self.legend.add(a["data-legend"])
        if tag == "g" and "band" in cls:
            self.panels.append(a.get("data-panel"))
        if tag == "g" and "mark" in cls:
            self.mark = {"attrs": a, "segs": []}
            self.marks[int(a["data-child"])] = self.mark
        elif self.mark is not None and tag in ("rect", "line", "circle"):
            self.mark["segs"].append(a)
    def handle_endtag(self, tag):
        if tag == "g":
            self.mark = None

st = json.load(open(sys.argv[1]))
p = P()
p.feed(open(sys.argv[2]).read())
n = len(st["children"])
out = []
if n <= 2000:
    want = {c["index"]: c["class"] for c in st["children"]}
    got = {k: m["attrs"]["data-class"] for k, m in p.marks.items()}
    out.append("marks\t" + ("ok" if got == want else "differ: %d marks" % len(got)))
    bad = []
    for c in st["children"]:
        m = p.marks.get(c["index"])
        atts = [a["attempt"] for a in c["attempts"]]
        drawn = sorted({int(s["data-attempt"]) for s in m["segs"] if "data-attempt" in s}) if m else []
        if len(atts) > 1:
            if m is None or m["attrs"].get("data-attempts") != str(len(atts)) or drawn != atts:
                bad.append((c["index"], atts, drawn))
            # the earlier attempts' segments: paler, in their own class
            elif not all("earlier" in s.get("class", "") for s in m["segs"] if s.get("data-attempt") != str(atts[-1])):
                bad.append((c["index"], "earlier not marked"))
        elif drawn:
            bad.append((c["index"], "one attempt, yet", drawn))
    out.append("attempts\t" + ("ok" if not bad else "differ: %r" % bad[:5]))
    reused = [c["index"] for c in st["children"] if c.get("reused_from")]
    ok = all(p.marks[i]["attrs"].get("data-reused") == "1" and
             [s.get("class") for s in p.marks[i]["segs"]] == ["reused"] for i in reused)
    out.append("reused\t" + ("ok" if ok and (not reused or "reused" in p.legend) else "differ: %r %r" % (reused, p.legend)))
    out.append("legend\t" + ("ok" if "attempts" in p.legend else "no attempts legend: %r" % p.legend))
else:
    out.append("marks\t" + ("ok" if not p.marks and p.panels == ["running", "waiting"] else "differ: %d marks, panels %r" % (len(p.marks), p.panels)))
    out.append("attempts\tok")
    out.append("reused\tok")
    out.append("legend\tok")
print("\n".join(out))
PY
}

check 12 "$dir12"
check 300 "$dir300"
check 10000 "$dir10k"
for n in 12 300 10000; do
	case $n in 12) j=st12.json ;; 300) j=st300.json ;; *) j=st10k.json ;; esac
	marks $n "$j" "dom$n-1400.html" > "marks$n.txt"
	while IFS=$'\t' read -r name verdict; do
		expect "$n: DOM: $name" "$verdict" ok
	done < "marks$n.txt"
	expect "$n: DOM: every check ran" "$(wc -l < "marks$n.txt")" 4
done
t_done
