#!/bin/bash
# sbctl submit --lane: a free lane submits (the lane in the benchmark
# record, the job names and status); a busy one submits nothing, names the
# active benchmarks and exits 4; --max-active K allows K; two submits of
# one lane at the same moment never both submit; once the lane's jobs are
# over it is free again.
. "$(dirname "$0")/../e2e/lib.sh"

for i in 1 2 3 4 5; do
	write_spec s$i.yaml "name: s$i
command: [sh, -c, 'sleep \$0', '{nap}']
parameters: {nap: [60]}"
done

"$SBCTL" submit s1.yaml --lane gse --json > s1.json
expect "a free lane submits (exit 0)" "$?" 0
expect "s1: lane object" "$(jq -c '.lane | [.name, .busy, .active]' s1.json)" '["gse",false,[]]'
expect "s1: one job array" "$(jq '.jobs | length' s1.json)" 1
d1=$(jqf s1.json .benchmark.dir)
j1=$(jqf s1.json '.jobs[0].job_id')
expect "s1: the job name starts with the lane" "$(squeue -h -j "$j1" -o %j | head -n 1)" \
	"gse.sb-$(jqf s1.json .benchmark.digest | cut -c1-12)-a0-c0"
st s1st.json "$d1"
expect "s1: status names the lane" "$(jqf s1st.json .benchmark.lane)" gse
expect_match "s1: status text names the lane" "$("$SBCTL" status "$d1")" 'lane: gse'

"$SBCTL" submit s2.yaml --lane gse --json > s2.json
expect "a busy lane submits nothing (exit 4)" "$?" 4
expect "s2: busy" "$(jqf s2.json .lane.busy)" true
expect "s2: names the active benchmark" "$(jq -c '.lane.active | map([.dir, .name, .job_ids])' s2.json)" \
	"[[\"$d1\",\"s1\",[\"$j1\"]]]"
expect "s2: nothing submitted" "$(jq -c '[.jobs, .benchmark.dir, .benchmark.name]' s2.json)" '[[],null,"s2"]'
expect "s2: no benchmark directory was made" "$(ls "$SB_ROOT" | grep -c '^s2-')" 0
"$SBCTL" submit s2.yaml --lane gse > s2.txt
expect "text: exit 4" "$?" 4
expect_match "text: says busy and names s1" "$(cat s2.txt)" "lane gse is busy.*s1 \\($d1\\): jobs $j1"
"$SBCTL" submit s2.yaml --lane other --json > other.json
expect "another lane is free" "$? $(jqf other.json .lane.busy)" "0 false"
"$SBCTL" submit s3.yaml --lane gse --max-active 2 --json > s3.json
expect "--max-active 2 admits a second benchmark" "$? $(jq '.lane.active | length' s3.json)" "0 1"
"$SBCTL" submit s4.yaml --lane gse --max-active 2 > /dev/null
expect "a third is refused with --max-active 2" "$?" 4

# cancel_all: every job of the fake gone (the children sleep a minute, so
# that no lane gets free on its own on a loaded machine)
cancel_all() {
	local ids
	ids=$(squeue -h -o %F | sort -u)
	[ -z "$ids" ] || scancel $ids
	wait_for 30 all_done
}

# two submits of one free lane at the same moment: exactly one submits.  The
# lane's squeue is made slow, so that without the lane's lock both would
# ask it before either submitted.
cancel_all
shim squeue 'case " $* " in *" --me "*) sleep 1;; esac'
"$SBCTL" submit s4.yaml --lane race --json > r4.json & p4=$!
"$SBCTL" submit s5.yaml --lane race --json > r5.json & p5=$!
wait $p4; rc4=$?
wait $p5; rc5=$?
expect "concurrent: one exits 0, the other 4" "$(printf '%s\n' $rc4 $rc5 | sort | tr '\n' ' ')" "0 4 "
expect "concurrent: one job array in the queue for the lane" \
	"$(squeue -h -o %j | grep -c '^race\.sb-')" 1
cancel_all
"$SBCTL" submit s2.yaml --lane gse --json > again.json
expect "once the lane's jobs are over it is free again" "$? $(jqf again.json .lane.busy)" "0 false"

"$SBCTL" submit s2.yaml --lane 'bad name' > /dev/null 2> bad.err
expect "a bad lane name is a usage error" "$?" 2
expect_match "and says why" "$(cat bad.err)" "lane name 'bad name' is not valid"
"$SBCTL" submit s2.yaml --max-active 2 > /dev/null 2>&1
expect "--max-active without --lane is a usage error" "$?" 2
t_done
