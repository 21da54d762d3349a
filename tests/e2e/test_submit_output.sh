#!/bin/bash
# Where a submitted benchmark's files come from (docs/benchmark-dir.md,
# "Slurm output"): submit makes one output directory per chunk and nothing
# per child; each job's sbagent makes its run directory runs/<index>/ (and
# refuses a symbolic link or a file in its place: that child fails, saying
# why); Slurm's stdout and stderr land in jobs/a<N>/c<k>/slurm-<A>_<task>,
# where `sbctl output` finds them; a rerun reuses the run directory.
. "$(dirname "$0")/lib.sh"
umask 022
export SB_FAKE_MAX_ARRAY_SIZE=3

# every chunk waits for a gate job until the test lets it go
gate=$("$SB_FAKE_BIN/sbatch" --parsable --wrap 'sleep 60')
shim sbatch "echo \"\$*\" >> $T_ROOT/sbatch.args; set -- --dependency=afterany:$gate \"\$@\""
write_spec out.yaml "name: out
command: [sh, -c, 'echo \"stdout of {x}\"; echo \"stderr of {x}\" >&2; echo {x} > r.txt']
parameters:
  x: [10, 11, 12, 13, 14]
results: [r.txt]"
"$SBCTL" submit out.yaml --json > s.json
expect "submit exits 0" "$?" 0
dir=$(jqf s.json .benchmark.dir)
A0=$(jqf s.json '.jobs[0].job_id') A1=$(jqf s.json '.jobs[1].job_id')

# -- before the jobs run -------------------------------------------------
expect "no run directory before the jobs run" "$(ls -A "$dir/runs" | wc -l)" 0
expect "no symbolic link in jobs/" "$(find "$dir/jobs" -type l | wc -l)" 0
expect "one output directory per chunk, empty" "$(cd "$dir/jobs/a0" && find c0 c1 | sort | tr '\n' ' ')" "c0 c1 "
expect "sbatch writes into the chunk's directory" \
	"$(grep -o -- "--\(output\|error\)=[^ ]*" "$T_ROOT/sbatch.args" | tr '\n' ' ')" \
	"--output=$dir/jobs/a0/c0/slurm-%A_%a.out --error=$dir/jobs/a0/c0/slurm-%A_%a.err --output=$dir/jobs/a0/c1/slurm-%A_%a.out --error=$dir/jobs/a0/c1/slurm-%A_%a.err "
out=$("$SBCTL" output "$dir" 0); rc=$?
expect "output before the run exits 0" "$rc" 0
expect "output before the run says so" "$out" "no Slurm output yet for child 0 (its run directory is $dir/runs/0)"

# child 3 finds a symbolic link in its run directory's place, child 4 a file
mkdir "$T_ROOT/elsewhere"
ln -s "$T_ROOT/elsewhere" "$dir/runs/3"
echo "not a directory" > "$dir/runs/4"

scancel "$gate"
"$SBCTL" wait "$dir" --timeout 60 --interval 0.2 > /dev/null 2>&1
expect "wait: not every child succeeded" "$?" 3

# -- after ---------------------------------------------------------------
for c in 0 1 2; do
	expect "child $c: its job made runs/$c (0755)" "$(stat -c '%F %a' "$dir/runs/$c")" "directory 755"
	expect "child $c: ran in it" "$(cat "$dir/runs/$c/r.txt")" "1$c"
done
st s1.json "$dir"
expect "status: the three children succeeded, the two refused failed" "$(classes s1.json)" \
	"0:succeeded 1:succeeded 2:succeeded 3:failed 4:failed"
expect_child s1.json 3 failed "FAILED \\(ExitCode 125:0\\): sbagent could not start the run \\(its stderr says why\\)$"
expect_child s1.json 4 failed "FAILED \\(ExitCode 125:0\\)"
expect "the symlink is left alone" "$(readlink "$dir/runs/3")" "$T_ROOT/elsewhere"
expect "nothing was written through it" "$(ls -A "$T_ROOT/elsewhere" | wc -l)" 0
expect "the file is left alone" "$(cat "$dir/runs/4")" "not a directory"
expect "child 3 and 4 wrote no log (sbagent stopped before the start)" \
	"$(ls "$dir"/events/0/ | sed 's/\..*//' | sort -u | tr '\n' ' ')" "0 1 2 "

# sbctl output: stdout then stderr of each child, from its chunk's directory
# (oldest first, by modification time: the .out or the .err first, as they
# were last written)
"$SBCTL" output "$dir" 1 > o1.txt
expect "output of child 1: its two files" "$(grep '^==' o1.txt | sort | tr '\n' ' ')" \
	"== $dir/jobs/a0/c0/slurm-${A0}_1.err == $dir/jobs/a0/c0/slurm-${A0}_1.out "
expect "output of child 1: each file's text after its name" \
	"$(grep -A1 '_1\.out$' o1.txt | tail -n 1) / $(grep -A1 '_1\.err$' o1.txt | tail -n 1)" \
	"stdout of 11 / stderr of 11"
"$SBCTL" output "$dir" 3 > o3.txt
expect_match "output of child 3: sbagent says why (the symlink)" "$(cat o3.txt)" \
	"== $dir/jobs/a0/c1/slurm-${A1}_0\\.err
sbagent: the run directory '$dir/runs/3' is a symbolic link \\(refused"
expect_match "output of child 4: sbagent says why (the file)" "$("$SBCTL" output "$dir" 4)" \
	"sbagent: the run directory '$dir/runs/4' exists and is not a directory"
"$SBCTL" status "$dir" > s1.txt
expect_match "status text shows child 3's stderr" "$(cat s1.txt)" \
	"is a symbolic link \\(refused: the command runs only in a directory of the benchmark"
expect_match "status text points at the chunk's output files" "$(cat s1.txt)" \
	"output: $dir/jobs/a0/c1/slurm-${A1}_0\\.\\{out,err\\}"

# -- a rerun finds its run directory there ---------------------------------
rm "$dir/runs/3" "$dir/runs/4"
mkdir "$dir/runs/3"
echo kept > "$dir/runs/3/mine.txt"
"$SBCTL" rerun "$dir" --only failed --json > r.json
expect "rerun exits 0" "$?" 0
"$SBCTL" wait "$dir" --timeout 60 --interval 0.2 > /dev/null 2>&1
expect "wait after the rerun: every child succeeded" "$?" 0
expect "child 3: the rerun used the directory it found" "$(cat "$dir/runs/3/mine.txt") $(cat "$dir/runs/3/r.txt")" "kept 13"
expect "child 4: made by its job" "$(stat -c '%F' "$dir/runs/4")" "directory"
R=$(jqf r.json '.jobs[0].job_id')
"$SBCTL" output "$dir" 3 | grep '^==' | sed "s|^== $dir/||" > o3b.txt
expect "output of child 3 after the rerun: both attempts, oldest first" \
	"$(head -n 2 o3b.txt | sort | tr '\n' ' ')/ $(tail -n 2 o3b.txt | sort | tr '\n' ' ')" \
	"jobs/a0/c1/slurm-${A1}_0.err jobs/a0/c1/slurm-${A1}_0.out / jobs/a1/c0/slurm-${R}_0.err jobs/a1/c0/slurm-${R}_0.out "

t_done
