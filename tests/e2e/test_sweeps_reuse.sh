#!/bin/bash
# Reuse across benchmarks of the same name and tag (docs/sbctl-submit.md
# "Reuse", docs/benchmark-dir.md "Reuse records"), on the fake Slurm:
# a grown grid submits only its new children, with one sbatch call; status
# re-verifies the reused ones (succeeded with reused_from); analyze covers
# every child; a changed source result makes the child invalid, a source
# log that no longer verifies too, a deleted source makes it missing, and
# rerun --only missing,invalid runs them here; a new tag measures
# everything; --no-reuse and --reuse-from.
. "$(dirname "$0")/lib.sh"

export SB_LOOKUP_WINDOW=0.5
spec() {
	write_spec g.yaml "name: grow
${2:+tag: $2}
command: [sh, -c, 'echo {x} > out.txt; echo \"loss: {x}\" > m.yaml']
parameters:
  x: [$1]
results: [out.txt]
metrics: m.yaml"
}
spec "1, 2, 3"
"$SBCTL" submit g.yaml --json > a.json
adir=$(jqf a.json .benchmark.dir)
expect "the first benchmark reuses nothing" "$(jqf a.json .reused)" 0
"$SBCTL" wait "$adir" --interval 0.2 --timeout 60 > /dev/null
expect "its children succeed" "$?" 0

# ---- a grown grid: only the new child is submitted, with one sbatch -----------
spec "1, 2, 3, 4"
shim sbatch ""
"$SBCTL" status "$adir" > /dev/null # its outcomes on record: a dry run may not add any
nsubm=$(ls "$adir/submissions" | wc -l)
"$SBCTL" submit g.yaml --dry-run > dry.out 2> /dev/null
expect "a dry run shows the new child only, and what would be reused" \
	"$(grep -c '^== chunk' dry.out) $(grep -o '[0-9]* child[ren]* in [0-9]* job array' dry.out) $(tail -n 1 dry.out)" \
	"1 1 child in 1 job array 3 children proven in earlier benchmarks would be reused, not submitted"
expect_match "the dry run's task map lists child 3 alone" "$(grep -A1 'task -> child' dry.out | tail -n 1)" '^  0->3$'
expect "the dry run submitted nothing, created nothing, added no file to the source" \
	"$(count_calls sbatch) $(ls "$adir/submissions" | wc -l) $(ls "$SB_ROOT" | wc -l)" "0 $nsubm 1"
"$SBCTL" submit g.yaml --json > b.json 2> b.err
expect "the grown spec submits (exit 0)" "$?" 0
bdir=$(jqf b.json .benchmark.dir)
expect "three children reused, one submitted" \
	"$(jqf b.json '"\(.reused) \([.jobs[].children[]]|map(tostring)|join(","))"')" "3 3"
expect "with one sbatch call" "$(count_calls sbatch)" 1
"$SBCTL" log "$bdir/submissions" --json 2>/dev/null | jq -c 'select(.type=="reuse")' > reuse.jl
expect "one signed reuse record per reused child, verified" \
	"$(jq -c '[.verified, .child_index, .source_index, .source_dir, .exit_code, (.results|length), .metrics.loss]' reuse.jl | tr '\n' ' ')" \
	"[true,0,0,\"$adir\",0,1,1] [true,1,1,\"$adir\",0,1,2] [true,2,2,\"$adir\",0,1,3] "
expect_match "the record carries the source log's head" "$(jq -r .source_head reuse.jl | head -n 1)" '^[0-9]+:[0-9a-f]{64}$'
"$SBCTL" wait "$bdir" --interval 0.2 --timeout 60 > /dev/null
expect "the grown benchmark: every child succeeded (wait exits 0)" "$?" 0
"$SBCTL" status "$bdir" --json > s.json
expect "status: the reused are succeeded with reused_from, the source run's attempt and job" \
	"$(jq -c '[.children[]|[.class, .reused_from.index, .attempt, .job_id]]' s.json)" \
	"[[\"succeeded\",0,0,\"$(jqf a.json '.jobs[0].job_id')_0\"],[\"succeeded\",1,0,\"$(jqf a.json '.jobs[0].job_id')_1\"],[\"succeeded\",2,0,\"$(jqf a.json '.jobs[0].job_id')_2\"],[\"succeeded\",null,0,\"$(jqf b.json '.jobs[0].job_id')_0\"]]"
expect "reused_from names the source directory" "$(jqf s.json '.children[0].reused_from.dir')" "$adir"
# a reused child's output and logs are one command away: those of its run there
"$SBCTL" output "$bdir" 1 > o1.out 2> o1.err
expect "output of a reused child: exit 0, nothing on stderr" "$? $(cat o1.err)" "0 "
expect "output of a reused child: says where its run is" "$(head -n 1 o1.out)" \
	"child 1 is reused from grow $(jqf a.json .benchmark.digest | cut -c1-12) child 1 ($adir)"
expect_match "output of a reused child: the source run's Slurm output files" "$(sed -n 2p o1.out)" "^== $adir/jobs/"
"$SBCTL" log "$bdir" --child 2 > l2.out 2> l2.err
expect "log --child of a reused child: exit 0 (verified)" "$? $(cat l2.err)" "0 "
expect "log --child of a reused child: says where" "$(grep -c "^child 2 is reused from grow .* child 2 ($adir): the logs of its run there$" l2.out)" 1
expect_match "log --child of a reused child: the source's log, verified" "$(cat l2.out)" "$adir/events/.*finish"
"$SBCTL" log "$bdir" --child 2 --json > l2.json 2> l2j.err
expect "log --child --json: the source's records, all verified" \
	"$(jq -r 'select(.type) | .verified' l2.json | sort -u) $(jq -r 'select(.type=="finish") | .child' l2.json)" "true 2"
expect_match "log --child --json: the note on stderr" "$(cat l2j.err)" "^child 2 is reused from grow"
"$SBCTL" status "$bdir" --class succeeded > s.txt
expect "the text status: a reused child's row says where its run is" \
	"$(grep -c "^  1 .* reused from grow $(jqf a.json .benchmark.digest | cut -c1-12) child 1$" s.txt) $(grep -c 'reused from' s.txt)" "1 3"
"$SBCTL" report "$bdir" -o r.html --offline > /dev/null 2>&1
expect "the report: a reused child's mark says where its run is" \
	"$(grep -c "<g class=\"mark\" data-child=\"1\" data-class=\"succeeded\" data-reused=\"1\"><title>child 1: succeeded" r.html) $(grep -c 'reused from grow [0-9a-f]\{12\} child 1: its run, and its times, are in that benchmark' r.html) $(grep -c 'data-reused' r.html)" "1 1 3"
expect "the report's legend explains the rings of reused children" \
	"$(grep -c '<span data-legend="reused">.*a reused child, whose run is in an earlier benchmark' r.html)" 1
"$SBCTL" output "$bdir" 3 > o3.out
expect_match "a child of its own run: its own output" "$(head -n 1 o3.out)" "^== $bdir/"
"$SBCTL" analyze "$bdir" --json > an.json
expect "analyze covers every child, the reused ones with their metrics" \
	"$(jq -c '[.groups[]|.metrics.loss.mean]' an.json)" "[1,2,3,4]"
# the per-child table (analyze --runs): every child, where its run is
"$SBCTL" analyze "$bdir" --runs --json > runs.json
expect "--runs: a row per child, with class and final metrics" \
	"$(jq -c '[.runs[] | [.index, .class, .metrics.loss, .params.x]]' runs.json)" "[[0,\"succeeded\",1,1],[1,\"succeeded\",2,2],[2,\"succeeded\",3,3],[3,\"succeeded\",4,4]]"
expect "--runs: a reused child's run directory and source are its source's" \
	"$(jq -r '.runs[1] | "\(.run_dir) \(.reused_from.dir) \(.reused_from.index)"' runs.json)" "$adir/runs/1 $adir 1"
expect "--runs: a child of its own run, its own directory" \
	"$(jq -r '.runs[3] | "\(.run_dir) \(.reused_from) \(.attempt)"' runs.json)" "$bdir/runs/3 null 0"
"$SBCTL" analyze "$bdir" --runs --csv > runs.csv
expect "--runs --csv: the header" "$(head -n 1 runs.csv | tr -d '\r')" \
	"index,digest,repeat,class,reason,attempt,run_dir,reused_from_dir,reused_from_index,param.x,metric.loss"
expect "--runs --csv: a reused child's row" "$(sed -n 3p runs.csv | tr -d '\r')" \
	"1,$(jqf runs.json '.runs[1].digest'),0,succeeded,,0,$adir/runs/1,$adir,1,2,2"
"$SBCTL" analyze "$bdir" --runs > runs.txt
expect_match "--runs as text: a line per child, a reused one says where" "$(sed -n 2p runs.txt)" \
	"^0 +succeeded +0 +x=1 loss=1 reused from grow [0-9a-f]{12} child 0$"
"$SBCTL" analyze "$bdir" --runs --group-by x > /dev/null 2> rg.err
expect "--runs with --group-by: a usage error (exit 2)" "$?" 2
py - > pyr.out 2>&1 <<PY
import sbench
rows = sbench.runs("$bdir")
assert [r["index"] for r in rows] == [0, 1, 2, 3], rows
assert rows[1]["param.x"] == 2 and rows[1]["metric.loss"] == 2 and rows[1]["class"] == "succeeded", rows[1]
assert rows[1]["reused_from_dir"] == "$adir" and rows[1]["reused_from_index"] == 1, rows[1]
assert rows[3]["run_dir"] == "$bdir/runs/3" and rows[3]["reused_from_dir"] is None, rows[3]
print("python runs ok")
PY
expect "python: sbench.runs gives the same rows, flat" "$(tail -n 1 pyr.out)" "python runs ok"
"$SBCTL" submit g.yaml --json > b2.json 2> /dev/null
expect "the grown spec again: already submitted, still 3 reused" \
	"$(jqf b2.json '"\(.already_submitted) \(.reused)"')" "true 3"
expect "and no sbatch" "$(count_calls sbatch)" 1

# ---- the evidence is checked again at every status ------------------------------
cp "$adir/runs/1/out.txt" saved.out
echo changed > "$adir/runs/1/out.txt"
log2=$(log_of "$adir" 2)
cp "$log2" saved.log
perl -0777 -pi -e 'substr($_, 40, 1) = chr(ord(substr($_, 40, 1)) ^ 1)' "$log2"
"$SBCTL" status "$bdir" --json > s2.json
expect "a changed source result makes the reused child invalid" "$(jqf s2.json '.children[1].class')" invalid
expect_match "the reason names the result and the source" "$(jqf s2.json '.children[1].reason')" \
	"^reused result 'out.txt' of child 1 of '$adir' changed after its verified finish"
expect "a source log that no longer verifies makes it invalid" "$(jqf s2.json '.children[2].class')" invalid
expect_match "the reason names the log" "$(jqf s2.json '.children[2].reason')" "^reused child 2 of '$adir': (its log|the source log) '[^']*2\\.a0\\."
expect "status exits 3 then" "$("$SBCTL" status "$bdir" > /dev/null 2>&1; echo $?)" 3
cp saved.out "$adir/runs/1/out.txt"
cp saved.log "$log2"
"$SBCTL" status "$bdir" --json > s3.json
expect "restored evidence: succeeded again" "$(jq -r '[.children[].class]|join(" ")' s3.json)" \
	"succeeded succeeded succeeded succeeded"

# a result that cannot be read (an I/O error) is no evidence either way:
# status fails (exit 1) rather than call the child invalid, for a reused
# result and for one of the benchmark's own
for p in "$adir/runs/0/out.txt" "$bdir/runs/3/out.txt"; do
	env LD_PRELOAD="$SB_BUILD/tests/faults/sbfault.so" SB_FAULT_EXE=/sbctl SB_FAULT_CALL=open \
		SB_FAULT_N=1 SB_FAULT_ERRNO=EIO SB_FAULT_PATH="$p" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
		"$SBCTL" status "$bdir" --rehash --json > eio.json 2> eio.err
	expect "EIO on ${p#$T_ROOT/}: status exits 1" "$?" 1
	expect "EIO on ${p#$T_ROOT/}: it says which result" "$(cat eio.err)" \
		"sbctl status: cannot read result '$p': Input/output error"
done
"$SBCTL" status "$bdir" --rehash > /dev/null
expect "without the fault: every child succeeded again" "$?" 0

# ---- new tag, --no-reuse, --reuse-from --------------------------------------------
spec "1, 2, 3, 4" t2
"$SBCTL" submit g.yaml --json > t2.json 2> /dev/null
expect "a new tag measures everything again" "$(jqf t2.json '"\(.reused) \([.jobs[].children[]]|length)"')" "0 4"
spec "1, 2, 3, 4" t3
"$SBCTL" submit g.yaml --json --reuse-from "$adir" > t3.json 2> /dev/null
expect "--reuse-from reuses from that benchmark, whatever its tag" "$(jqf t3.json .reused)" 3
spec "1, 2, 3, 4" t4
"$SBCTL" submit g.yaml --json --reuse-from "$adir" --no-reuse > /dev/null 2>&1
expect "--reuse-from with --no-reuse is a usage error" "$?" 2
"$SBCTL" submit g.yaml --json --no-reuse > t4.json 2> /dev/null
expect "--no-reuse measures everything" "$(jqf t4.json '"\(.reused) \([.jobs[].children[]]|length)"')" "0 4"
spec "1, 2, 3, 4" t5
"$SBCTL" submit g.yaml --reuse-from no-such-bench > /dev/null 2>&1
expect "--reuse-from a benchmark that does not exist: exit 2" "$?" 2

# ---- a deleted source: missing, and rerun runs it here -------------------------------
rm -rf "$adir"
"$SBCTL" status "$bdir" --json > s4.json
expect "a deleted source makes the reused children missing" "$(jq -r '[.children[].class]|join(" ")' s4.json)" \
	"missing missing missing succeeded"
expect "the reason says the source is gone, and what runs it" "$(jqf s4.json '.children[0].reason')" \
	"reused from child 0 of '$adir', which is gone: 'sbctl rerun grow --only missing' runs it here"
"$SBCTL" rerun "$bdir" --only missing --json > r.json
expect "rerun --only missing runs them here" "$(jqf r.json '[.jobs[].children[]]|map(tostring)|join(",")')" "0,1,2"
"$SBCTL" wait "$bdir" --interval 0.2 --timeout 60 > /dev/null
expect "then every child succeeded here" "$?" 0
"$SBCTL" status "$bdir" --json > s5.json
expect "no longer reused" "$(jq -c '[.children[].reused_from]' s5.json)" "[null,null,null,null]"

# ---- the same from Python ---------------------------------------------------------
# tag t3 ran only its child 3 itself (0-2 were reused from the untagged one,
# which is gone): a t3 benchmark reuses child 3 alone; no_reuse none
"$SBCTL" wait "$(jqf t3.json .benchmark.dir)" --interval 0.2 --timeout 60 > /dev/null 2>&1
spec "1, 2, 3, 4, 5" t3
py - > py.out 2>&1 <<'PY'
import sbench
r = sbench.submit("g.yaml")
assert r["reused"] == 1, r
assert [c for j in r["jobs"] for c in j["children"]] == [0, 1, 2, 4], r
print("python ok")
PY
expect "python: submit reuses what tag t3 ran itself" "$(tail -n 1 py.out)" "python ok"

# ---- a write or sync of the reuse records fails --------------------------------------
# (tests/faults' LD_PRELOAD shim, in sbctl only, on the new benchmark's
# submissions/): the submit fails and submits nothing; the same submit again
# submits every child that is not reused exactly once
FAULT_SHIM=$SB_BUILD/tests/faults/sbfault.so
for f in write-1-EIO fdatasync-1-ENOSPC; do
	IFS=- read -r call n e <<< "$f"
	spec "1, 2, 3, 4, 5, 6" "f$call"
	d=$("$SBCTL" plan g.yaml --json | jq -r .benchmark.digest)
	rm -f "$T_ROOT/trace"
	env LD_PRELOAD="$FAULT_SHIM" SB_FAULT_EXE=/sbctl SB_FAULT_CALL="$call" SB_FAULT_N="$n" \
		SB_FAULT_ERRNO="$e" SB_FAULT_PATH="grow-${d:0:12}/submissions/" SB_FAULT_TRACE="$T_ROOT/trace" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
		"$SBCTL" submit g.yaml --json --reuse-from "$(jqf t3.json .benchmark.dir)" > f1.json 2> f1.err
	expect "$f: the faulted submit exits 1" "$?" 1
	expect_match "$f: the fault fired in the new benchmark's submissions/" \
		"$(grep ' INJ-' "$T_ROOT/trace" | cut -d' ' -f5-)" "grow-${d:0:12}/submissions/"
	expect "$f: nothing was submitted" "$(jq '[.jobs[]?]|length' f1.json 2>/dev/null || echo 0)" 0
	"$SBCTL" submit g.yaml --json > f2.json 2> /dev/null
	expect "$f: the same submit again exits 0" "$?" 0
	"$SBCTL" wait "$(jqf f2.json .benchmark.dir)" --interval 0.2 --timeout 60 > /dev/null
	expect "$f: then every child succeeded" "$?" 0
	"$SBCTL" status "$(jqf f2.json .benchmark.dir)" --json > f2.st
	expect "$f: every child is reused or submitted, exactly once" \
		"$(jq -r --slurpfile s f2.st '([.jobs[].children[]] + [$s[0].children[]|select(.reused_from)|.index])|sort|map(tostring)|join(",")' f2.json)" \
		"0,1,2,3,4,5"
done
t_done
