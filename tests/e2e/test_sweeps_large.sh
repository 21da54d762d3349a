#!/bin/bash
# A grown sweep at size: 900 children succeed in a first benchmark; the
# grid grown to 1,000 submits only the 100 new children, with one sbatch
# call, reuses the 900 (each re-verified by status), and every child of the
# new benchmark succeeds.
. "$(dirname "$0")/lib.sh"

export SB_LOOKUP_WINDOW=0.5
spec() {
	write_spec big.yaml "name: big
command: [sh, -c, 'echo {x} > out.txt; echo \"loss: {x}\" > m.yaml']
parameters:
  x: [$(seq -s ', ' 0 $(( $1 - 1 )))]
results: [out.txt]
metrics: m.yaml"
}
spec 900
"$SBCTL" submit big.yaml --json > a.json
expect "the first benchmark: 900 children" "$(jqf a.json '[.jobs[].children[]] | length')" 900
adir=$(jqf a.json .benchmark.dir)
"$SBCTL" wait "$adir" --interval 1 --timeout 300 > /dev/null
expect "its children succeed" "$?" 0

spec 1000
shim sbatch ""
"$SBCTL" submit big.yaml --json > b.json 2> b.err
expect "the grown spec submits (exit 0)" "$?" 0
expect "900 reused, 100 submitted" "$(jqf b.json '"\(.reused) \([.jobs[].children[]] | length)"')" "900 100"
expect "with one sbatch call" "$(count_calls sbatch)" 1
bdir=$(jqf b.json .benchmark.dir)
"$SBCTL" wait "$bdir" --interval 1 --timeout 300 > /dev/null
expect "the grown benchmark: every child succeeded (wait exits 0)" "$?" 0
"$SBCTL" status "$bdir" --json > b.status.json
expect "900 children reused_from the first benchmark" \
	"$(jq '[.children[] | select(.reused_from.dir == "'"$adir"'")] | length' b.status.json)" 900
"$SBCTL" analyze "$bdir" --json > b.an.json
expect "analyze covers all 1,000" "$(jq '.groups | map(.n) | add' b.an.json)" 1000
t_done
