#!/bin/bash
# What a resume decides (issue 25 f, h, i): (h) a grown-sweep submit killed
# while it looked for children to reuse resumes with the reuse search, not
# with every child run again; (i) with submissions/ lost, submit finds the
# chunk's job by its identity and records it, never submits it again;
# (f) a reuse source that is no longer the user's own benchmark directory
# (recreated, open to others, in a shared root) makes its reused children
# invalid, never succeeded.
. "$(dirname "$0")/lib.sh"

export SB_LOOKUP_WINDOW=0.5
spec() {
	write_spec g.yaml "name: grow
command: [sh, -c, 'echo {x} > out.txt']
parameters:
  x: [$1]
results: [out.txt]"
}
spec "1, 2"
"$SBCTL" submit g.yaml --json > a.json
adir=$(jqf a.json .benchmark.dir)
"$SBCTL" wait "$adir" --interval 0.2 --timeout 60 > /dev/null
expect "the first benchmark succeeds" "$?" 0

# ---- (h) killed during the reuse search --------------------------------------
spec "1, 2, 3"
shim sacct 'kill -9 $PPID; exit 1'     # the source's status asks sacct: sbctl dies there
"$SBCTL" submit g.yaml --json > /dev/null 2>&1
expect "(h) the submit died during the reuse search" "$?" 137
rm -f "$SHIM/sacct"
bdir=$(ls -d "$SB_ROOT"/grow-* | grep -v "$adir")
expect "(h) it had made the directory" "$([ -f "$bdir/benchmark.msgpack" ] && echo made)" made
calls=$(count_calls sbatch)
"$SBCTL" submit g.yaml --json > b.json 2> /dev/null
expect "(h) the resume reuses the two proven children" "$(jqf b.json .reused)" 2
expect "(h) and submits only the new one" "$(jq -c '[.jobs[].children[]]' b.json)" "[2]"
"$SBCTL" wait "$bdir" --interval 0.2 --timeout 60 > /dev/null
expect "(h) all three succeed" "$?" 0

# ---- (i) submissions/ lost ----------------------------------------------------------
spec "7"
"$SBCTL" submit g.yaml --json > c.json
cdir=$(jqf c.json .benchmark.dir)
job=$(jqf c.json '.jobs[0].job_id')
"$SBCTL" wait "$cdir" --interval 0.2 --timeout 60 > /dev/null
rm -rf "$cdir/submissions" && mkdir -m 700 "$cdir/submissions"
shim sbatch ''
"$SBCTL" submit g.yaml --json > c2.json 2> c2.err
expect "(i) submit with its records lost: exit 0" "$?" 0
expect "(i) it found the chunk's job by its identity, and submitted nothing" \
	"$(jqf c2.json '"\(.jobs[0].job_id) \(.jobs[0].recovered)"') $(count_calls sbatch)" "$job true 0"
rm -f "$SHIM/sbatch" "$T_ROOT/calls.sbatch"
"$SBCTL" status "$cdir" --json > c.st.json
expect "(i) and status sees it succeeded again" "$(jq -r '.children[0].class' c.st.json)" succeeded

# ---- (f) the source is no longer the user's own directory -------------------------
"$SBCTL" status "$bdir" --json > s1.json
expect "(f) before: the reused children succeed" "$(jq -r '[.children[].class] | join(" ")' s1.json)" \
	"succeeded succeeded succeeded"
saved=$T_ROOT/saved && cp -a "$adir" "$saved"
rm -rf "$adir"
mkdir "$adir" && cp -a "$saved/benchmark.msgpack" "$saved/runs" "$adir/" && chmod 777 "$adir"
"$SBCTL" status "$bdir" --json > s2.json
expect "(f) a recreated, world-writable source: its reused children are invalid" \
	"$(jq -r '[.children[].class] | join(" ")' s2.json)" "invalid invalid succeeded"
expect_match "(f) the reason says why and what to do" "$(jq -r '.children[0].reason' s2.json)" \
	"^reused from child 0 of '$adir', which is no longer a benchmark directory of yours \(.*\): 'sbctl rerun grow --only invalid' runs it here$"
t_done
