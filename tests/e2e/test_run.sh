#!/bin/bash
# A benchmark on the fake Slurm, end to end through sbagent's benchmark mode:
# sbctl submit returns while the children run and leaves no process behind;
# each child runs its planned command (parameter values full of shell
# metacharacters arrive unchanged, in argv and shell commands) in its run
# directory with its env; its signed log names the benchmark, child, attempt
# and job; sbagent writes nothing outside the run directory and its log.
. "$(dirname "$0")/lib.sh"

nasty="a b'\"\$(touch $T_ROOT/pwned)\`touch $T_ROOT/pwned2\`;|&<>*?{{x}} \\n"
nasty_yaml=${nasty//\'/\'\'}   # in YAML single quotes, ' is written ''

write_spec run.yaml "name: run
command: [sh, -c, 'printf %s \"\$1\" > arg.txt; printf %s \"\$SB_PARAM_v|\$SB_CHILD|\$SB_ATTEMPT|\$GREETING\" > env.txt; sleep \$2', sh, '{v}', '{nap}']
parameters:
  v: [plain, '$nasty_yaml']
  nap: [3]
env: {GREETING: 'hi {v}'}
results: [arg.txt, env.txt, never.txt]"
write_spec shell.yaml "name: shell
command: 'printf %s {v} > arg.txt'
parameters:
  v: ['$nasty_yaml', 'x y']"

touch "$T_ROOT/marker"
sleep 0.01
# a name of its own, so that sbctl processes of tests running alongside do not count
ln -s "$SBCTL" "$T_ROOT/sbctl-under-test"
start=$(date +%s%N)
"$T_ROOT/sbctl-under-test" submit run.yaml --json > s.json
expect "submit exits 0" "$?" 0
took=$(( ($(date +%s%N) - start) / 1000000 ))
# (what it takes is bench_submit's to measure; here: it did not wait for
# the children, which sleep 3 s)
expect "children are still running after submit returned (${took} ms)" \
	"$(squeue -h -t R,PD -o %i | wc -l | tr -d ' ')" 2
expect "no sbctl process is left" "$(pgrep -f "$T_ROOT/sbctl-under-test" | wc -l)" 0
dir=$(jqf s.json .benchmark.dir)
"$SBCTL" submit shell.yaml --json > sh.json
shdir=$(jqf sh.json .benchmark.dir)
wait_for 20 all_done

expect "argv: the plain value arrives" "$(cat "$dir/runs/0/arg.txt")" "plain"
expect "argv: the nasty value arrives unchanged" "$(cat "$dir/runs/1/arg.txt")" "$nasty"
expect "shell: the nasty value arrives unchanged" "$(cat "$shdir/runs/0/arg.txt")" "$nasty"
expect "shell: a value with a space stays one word" "$(cat "$shdir/runs/1/arg.txt")" "x y"
expect "nothing the values named was run" "$(ls "$T_ROOT" | grep -c pwned)" 0
expect "env: SB_PARAM, SB_CHILD, SB_ATTEMPT and the spec's env" "$(cat "$dir/runs/0/env.txt")" \
	"plain|0|0|hi plain"

# the logs: verified, bound to the planned children
"$SBCTL" log "$dir" --json > log.json
expect "every log verifies" "$?" 0
expect "two agent logs" "$(ls "$dir"/events/0/*.log | wc -l)" 2
"$SBCTL" plan run.yaml --json > plan.json
for c in 0 1; do
	f=$(ls "$dir"/events/0/$c.a0.j*.r0.log)
	"$SBCTL" log "$f" --json > c.json
	expect "child $c: start names the benchmark" "$(jq -r 'select(.type=="start") | .bench' c.json)" \
		"$(jqf plan.json .benchmark.digest)"
	expect "child $c: start names the child's digest" "$(jq -r 'select(.type=="start") | .child_digest' c.json)" \
		"$(jqf plan.json ".children[$c].digest")"
	expect "child $c: start runs the planned command" "$(jq -c 'select(.type=="start") | .command' c.json)" \
		"$(jq -c ".children[$c].command" plan.json)"
	expect "child $c: attempt 0" "$(jq -r 'select(.type=="start") | .attempt' c.json)" 0
	job=$(jq -r 'select(.type=="start") | .job_id' c.json)
	expect "child $c: the log's job id is the task's raw id" "$job" \
		"$(sacct -P -n -X -j "$(jqf s.json '.jobs[0].job_id')_$c" --format=JobIDRaw)"
	expect "child $c: the log is named by child, attempt, job and restart" "$(basename "$f")" "$c.a0.j$job.r0.log"
	expect "child $c: finish exit 0" "$(jq -r 'select(.type=="finish") | .exit_code' c.json)" 0
	expect "child $c: arg.txt digest" "$(jq -r 'select(.type=="finish") | .results[0].sha256' c.json)" \
		"$(sha256sum < "$dir/runs/$c/arg.txt" | cut -d' ' -f1)"
	expect "child $c: never.txt missing" "$(jq -r 'select(.type=="finish") | .results[2].missing' c.json)" true
	expect "child $c: Slurm's output is in its chunk's directory, named by array job and task" \
		"$(ls "$dir/jobs/a0/c0" | grep -c "^slurm-$(jqf s.json '.jobs[0].job_id')_$c\.out\$")" 1
	expect "child $c: none in its run directory" "$(ls "$dir/runs/$c" | grep -c '^slurm-')" 0
done

# sbagent wrote only in run directories and its own logs (sbctl wrote the rest at submit)
find "$T_ROOT" -newer "$T_ROOT/marker" -type f | grep -v "^$T_ROOT/state/" | grep -v "^$T_ROOT/index" \
	| grep -v "/submissions/" | grep -v "/jobs/a0/" | grep -v -E '/(benchmark\.(msgpack|json)|keys/hmac\.key|lock)$' \
	| grep -v -E "^($dir|$shdir)/(runs/[0-9]+/[^/]+|events/0/[0-9]+\.a0\.j[0-9]+\.r0\.log)$" \
	| grep -v -E "^$T_ROOT/work/((s|sh|log|plan|c|run|shell)\.(json|yaml)|stray)$" > stray
expect "no file written outside run directories and logs" "$(cat stray)" ""

t_done
