#!/usr/bin/env bash
# Fidelity check: the answers of the real Slurm and of the fake to the same
# scenario (tests/cluster/scenario.sh), compared field by field.
#   compare.sh REAL_SNAPDIR FAKE_SNAPDIR [UID]
# Each file snap/<moment>.<what> holds one command's answer at one moment of
# the scenario.  Normalized before comparing: the array job id (A), new raw
# job ids (N), times (<T>), elapsed times (<E>), the work directory (and
# its hash in the jobs' --comment, <H>), the uid.
# Rows are matched by their key (the JobID), so order does not count.  At the
# moments `submit`, `running` and `cancelled` (timing-dependent: the real
# scheduler starts a task every few seconds, its accounting lags) a row that
# only one side has is shown but allowed; at `final` it is a difference.
# Every difference is printed; the script fails (exit 1) on any that no
# regex of tests/cluster/fidelity-allow.txt matches.  Each allowed one is
# documented in docs/fake-slurm.md, "Compared with real Slurm".
set -euo pipefail
real=$1 fake=$2 uid=${3:-}
# SB_FIDELITY_ALLOW_EXTRA: another allow-list file, used as well
allow=$(mktemp)
cat "$(dirname "$0")/fidelity-allow.txt" ${SB_FIDELITY_ALLOW_EXTRA:+"$SB_FIDELITY_ALLOW_EXTRA"} > "$allow"
aid() { head -n 1 "$1/submit.sbatch-stdout"; }
A_real=$(aid "$real"); A_fake=$(aid "$fake")

# norm FILE A: the normalized text of one snapshot file
norm() {
	local f=$1 A=$2 what=${1##*.}
	sed -E -e "s#/tmp/sbench-cluster\.[A-Za-z0-9]+/(real|fake)/#<W>/#g" \
		-e "s/--comment=sbench:[0-9a-f]{16}:/--comment=sbench:<H>:/g" \
		-e "s/\*\*\* JOB [0-9]+ ON ([^ ]+) CANCELLED AT [0-9T:-]+/*** JOB <N> ON \1 CANCELLED AT <T>/" \
		-e "s/StepId=[0-9]+\.batch/StepId=<N>.batch/" \
		-e "s/job id ${A}_/job id A_/; s/job id ${A}\b/job id A/" "$f" |
	awk -F'|' -v OFS='|' -v A="$A" -v what="$what" '
	function rid(x,   s) { s = x; sub(/\..*/, "", s); if (s == A) return "A" substr(x, length(s) + 1);
		if (s ~ /^[0-9]+$/ && s + 0 > A + 0) return "N" substr(x, length(s) + 1); return x }
	function tm(x) { return (x == "Unknown" || x == "") ? x : "<T>" }
	function el(x) { return (x == "") ? x : "<E>" }
	{
		if ($1 ~ "^" A "[_.]" || $1 == A) $1 = "A" substr($1, length(A) + 1)
		if (what == "sacct-X") { $2 = rid($2); $10 = el($10); $11 = tm($11); $12 = tm($12) }
		else if (what == "sacct-steps") { $2 = rid($2) }
		else if (what == "squeue-r") { $2 = rid($2); $3 = rid($3) }
		else if (what == "squeue") { $2 = rid($2) }
		else if (what == "sbatch-stdout" && NR == 1 && $0 ~ /^[0-9]+$/) { $0 = "<jobid>" }
		print
	}'
}
# fields of each kind of answer (for the messages)
fields() {
	case $1 in
	sacct-X) echo "JobID JobIDRaw JobName State ExitCode Timelimit NodeList AllocCPUS Partition Elapsed Start End User" ;;
	sacct-steps) echo "JobID JobIDRaw JobName State ExitCode" ;;
	squeue-r) echo "%i %A %F %K %j %T %t %r %l %C %D" ;;
	squeue) echo "%i %F %K %T %r" ;;
	*) echo "" ;;
	esac
}

diffs=$(mktemp); infos=$(mktemp)
trap 'rm -f "$diffs" "$infos" "$allow"' EXIT
for rf in "$real"/*; do
	name=$(basename "$rf"); ff="$fake/$name"; moment=${name%%.*}; what=${name#*.}
	[ -f "$ff" ] || { echo "$name: only the real run has it" >> "$diffs"; continue; }
	nr=$(norm "$rf" "$A_real"); nf=$(norm "$ff" "$A_fake")
	[ "$nr" = "$nf" ] && continue
	cols=$(fields "$what")
	if [ -z "$cols" ]; then
		# text: line by line
		diff <(printf '%s\n' "$nr") <(printf '%s\n' "$nf") | grep '^[<>]' |
			sed -e "s/^</$name: real:/" -e "s/^>/$name: fake:/" >> "$diffs" || true
		continue
	fi
	# rows by key
	awk -F'|' -v name="$name" -v cols="$cols" -v moment="$moment" -v infos="$infos" '
	BEGIN { n = split(cols, C, " ") }
	FILENAME == ARGV[1] { R[$1] = $0; next }
	{ F[$1] = $0 }
	END {
		for (k in R) if (!(k in F)) print name ": row " k " only in real: " R[k] > (moment == "final" ? "/dev/stdout" : infos)
		for (k in F) if (!(k in R)) print name ": row " k " only in fake: " F[k] > (moment == "final" ? "/dev/stdout" : infos)
		for (k in R) if (k in F && R[k] != F[k]) {
			nr = split(R[k], r, "|"); nf = split(F[k], f, "|")
			for (i = 1; i <= (nr > nf ? nr : nf); i++)
				if (r[i] != f[i]) print name ": row " k " field " (i in C ? C[i] : i) ": real=" r[i] " fake=" f[i]
		}
	}' <(printf '%s\n' "$nr" | grep -v '^$') <(printf '%s\n' "$nf" | grep -v '^$') >> "$diffs"
done
for ff in "$fake"/*; do [ -f "$real/$(basename "$ff")" ] || echo "$(basename "$ff"): only the fake run has it" >> "$diffs"; done

if [ -s "$infos" ]; then
	echo "-- rows only one side had at a timing-dependent moment (allowed)"
	sort "$infos" | sed 's/^/   /'
fi
echo "-- differences (allowed ones marked)"
unexpected=0
while IFS= read -r d; do
	ok=
	while IFS= read -r pat; do
		case "$pat" in ''|'#'*) continue ;; esac
		if printf '%s\n' "$d" | grep -Eq -- "$pat"; then ok=1; break; fi
	done < "$allow"
	if [ -n "$ok" ]; then echo "   allowed     $d"; else echo "   UNEXPECTED  $d"; unexpected=$((unexpected + 1)); fi
done < <(sort "$diffs")
[ -s "$diffs" ] || echo "   none"
if [ $unexpected -gt 0 ]; then
	echo "compare: $unexpected unexpected difference(s) between the real Slurm and the fake:"
	echo "fix the fake (fake/*.c) or document the difference in docs/fake-slurm.md and tests/cluster/fidelity-allow.txt"
	exit 1
fi
echo "compare: the fake answered like the real Slurm (up to the allowed differences)"
