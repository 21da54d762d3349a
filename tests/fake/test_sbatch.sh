#!/bin/bash
# sbatch: options, #SBATCH lines, output patterns, environment, errors.
. "$(dirname "$0")/lib.sh"

cat > env.sh <<'SCRIPT'
#!/bin/bash
#SBATCH --job-name=fromscript
#SBATCH --comment="from the script"
#SBATCH -o env-%A_%a-%j-%x-%%.out
echo "JOB=$SLURM_JOB_ID ARRAY=$SLURM_ARRAY_JOB_ID TASK=$SLURM_ARRAY_TASK_ID NAME=$SLURM_JOB_NAME"
echo "RESTARTS=${SLURM_RESTART_COUNT-unset} SUBMIT=$SLURM_SUBMIT_DIR NODE=$SLURM_JOB_NODELIST"
echo "COUNT=$SLURM_ARRAY_TASK_COUNT MIN=$SLURM_ARRAY_TASK_MIN MAX=$SLURM_ARRAY_TASK_MAX"
echo "ARGS=$*"
echo "to stderr" >&2
SCRIPT

# --parsable prints the id alone; the plain form is Slurm's sentence
expect "parsable" "$(sbatch --parsable -a 3 env.sh a b)" "1000"
expect "plain" "$(sbatch -o plain.out --wrap 'echo hi')" "Submitted batch job 1001"
wait_for 5 all_done
expect "single-task array runs under the array's own id" "$(cat env-1000_3-1000-fromscript-%.out)" \
"JOB=1000 ARRAY=1000 TASK=3 NAME=fromscript
RESTARTS=unset SUBMIT=$PWD NODE=node1
COUNT=1 MIN=3 MAX=3
ARGS=a b
to stderr"
expect "wrap" "$(cat plain.out)" "hi"
expect "comment and name from #SBATCH" "$(acct 1000 JobID,JobName,Comment,State)" \
	"1000_3|fromscript|from the script|COMPLETED"
expect "wrap job name" "$(acct 1001 JobName)" "wrap"

# the command line wins over #SBATCH; -e splits stderr; --chdir; --export
mkdir -p sub
FOO=foo BAR=bar sbatch -J cli --comment=cli -D sub -e err-%j.txt -o out-%j.txt \
	--export=FOO,BAZ=baz env.sh >/dev/null
cat > exp.sh <<'SCRIPT'
#!/bin/bash
echo "FOO=${FOO-unset} BAR=${BAR-unset} BAZ=${BAZ-unset} PWD=$PWD EXPORT=$SLURM_EXPORT_ENV"
SCRIPT
FOO=foo BAR=bar sbatch -D sub -o exp.out --export=FOO,BAZ=baz exp.sh >/dev/null
FOO=foo BAR=bar sbatch -D sub -o all.out exp.sh >/dev/null
wait_for 5 all_done
expect "name and comment from the command line" "$(acct 1002 JobName,Comment,WorkDir)" "cli|cli|$PWD/sub"
expect "stdout in --output relative to --chdir" "$(head -1 sub/out-1002.txt)" \
	"JOB=1002 ARRAY= TASK= NAME=cli"
expect "stderr in --error" "$(cat sub/err-1002.txt)" "to stderr"
expect "--export=FOO,BAZ=baz" "$(cat sub/exp.out)" \
	"FOO=foo BAR=unset BAZ=baz PWD=$PWD/sub EXPORT=FOO,BAZ=baz"
expect "default --export=ALL" "$(cat sub/all.out)" "FOO=foo BAR=bar BAZ=unset PWD=$PWD/sub EXPORT="

FOO=foo sbatch -D sub -o none.out --export=NONE exp.sh >/dev/null
wait_for 5 all_done
expect "--export=NONE" "$(cat sub/none.out)" "FOO=unset BAR=unset BAZ=unset PWD=$PWD/sub EXPORT=NONE"

# default output names
sbatch --wrap 'echo plain' >/dev/null
sbatch -a 1,4 --wrap 'echo "array $SLURM_ARRAY_TASK_ID"' >/dev/null
wait_for 5 all_done
expect "slurm-%j.out" "$(cat slurm-1006.out)" "plain"
expect "slurm-%A_%a.out" "$(cat slurm-1007_1.out slurm-1007_4.out)" "array 1
array 4"
expect "zero padded %3a" "$(sbatch --parsable -a 7 -o 'pad-%3a.out' --wrap 'echo x' >/dev/null; wait_for 5 all_done; cat pad-007.out)" "x"

# --open-mode: truncate by default, append on request
echo old > keep.out
echo old > trunc.out
sbatch -o keep.out --open-mode=append --wrap 'echo new' >/dev/null
sbatch -o trunc.out --wrap 'echo new' >/dev/null
wait_for 5 all_done
expect "--open-mode=append" "$(cat keep.out)" "old
new"
expect "default truncate" "$(cat trunc.out)" "new"

# --time in every Slurm form (SB_FAKE_TIME_UNIT=s: a minute counts as a second)
for t in 5 5:30 1:00:00 1-0 1-2:3 1-2:3:4 0:02 UNLIMITED; do
	id=$(sbatch --parsable -t "$t" --begin=now+3600 --wrap true)
	printf '%s=%s\n' "$t" "$(acct "$id" Timelimit)"
done > limits.txt
expect "time limit forms" "$(cat limits.txt)" \
"5=00:00:05
5:30=00:00:06
1:00:00=00:01:00
1-0=00:24:00
1-2:3=00:26:03
1-2:3:4=00:26:04
0:02=00:00:01
UNLIMITED=UNLIMITED"
expect "begin time keeps jobs pending" "$(squeue -h -t PD -o '%r' | sort -u)" "BeginTime"
scancel -u "$(id -un)"

# errors, in Slurm's words and exit codes
out=$(sbatch -a 0-2000 --wrap true 2>&1); rc=$?
expect "MaxArraySize" "$out rc=$rc" "sbatch: error: Batch job submission failed: Invalid job array specification rc=1"
out=$(SB_FAKE_MAX_ARRAY_SIZE=11 sbatch -a 0-11 --wrap true 2>&1); rc=$?
expect "MaxArraySize settable" "$out rc=$rc" "sbatch: error: Batch job submission failed: Invalid job array specification rc=1"
out=$(sbatch -a 0-x --wrap true 2>&1); rc=$?
expect "bad array" "$out rc=$rc" "sbatch: error: Invalid --array specification rc=1"
out=$(sbatch -t 1:2:3:4 --wrap true 2>&1); rc=$?
expect "bad time" "$out rc=$rc" "sbatch: error: Invalid time limit specification rc=1"
out=$(sbatch -d afterok:999999 --wrap true 2>&1); rc=$?
expect "bad dependency" "$out rc=$rc" "sbatch: error: Batch job submission failed: Job dependency problem rc=1"
out=$(sbatch --signal=NOPE --wrap true 2>&1); rc=$?
expect "bad signal" "$out rc=$rc" "sbatch: error: Invalid --signal specification rc=1"
printf 'echo no shebang\n' > noshebang.sh
out=$(sbatch noshebang.sh 2>&1); rc=$?
expect "not a batch script" "$out rc=$rc" "sbatch: error: This does not look like a batch script.  The first
sbatch: error: line must start with #! followed by the path to an interpreter.
sbatch: error: For instance: #!/bin/sh rc=1"
out=$(sbatch missing.sh 2>&1); rc=$?
expect "missing script" "$out rc=$rc" "sbatch: error: Unable to open file missing.sh rc=1"
out=$(sbatch --bogus env.sh 2>&1); rc=$?
expect "unknown option" "$out rc=$rc" "sbatch: unrecognized option '--bogus'
Try \"sbatch --help\" for more information rc=1"

# script from stdin
id=$(printf '#!/bin/sh\necho from stdin\n' | sbatch --parsable -o stdin.out)
wait_for 5 all_done
expect "stdin script ran" "$(cat stdin.out) $(acct "$id" JobName)" "from stdin sbatch"

# --signal=B:USR1@2: the batch shell gets USR1 two seconds before the limit
cat > sig.sh <<'SCRIPT'
#!/bin/bash
t0=$(date +%s%N)
trap 'echo "USR1 after $(( ($(date +%s%N) - t0) / 100000000 ))"; exit 0' USR1
while true; do sleep 0.05; done
SCRIPT
id=$(sbatch --parsable -t 3 --signal=B:USR1@2 -o sig.out sig.sh)
wait_for 6 all_done
# (tenths of a second since the script started: about 10, less when a
# loaded machine started the script late: the signal keeps to the job's clock)
expect_match "--signal=B:USR1@2" "$(cat sig.out) $(acct "$id" State,ExitCode)" "^USR1 after ([6-9]|1[0-4]) COMPLETED\|0:0$"

# sbatch -W waits and returns the job's exit code
sbatch -W --wrap 'exit 3' >/dev/null; rc=$?
expect "--wait exit code" "$rc" "3"
t_done
