#!/usr/bin/env bash
# What `sbagent -- true` adds over `true`: wall time per run and peak RSS,
# on a local disk (ext4 here; budget 1.5 ms) and on tmpfs (budget 1 ms),
# peak RSS within 4 MiB (docs/sbagent.md, PERFORMANCE).  Each sbagent run
# writes a new log file (two fdatasyncs) in a scratch directory: under
# $SB_BENCH_TMP when set, else one under /tmp (the local disk, whatever
# TMPDIR says) and one under /dev/shm.  SB_BENCH_DIR, SB_ATTEMPT and
# SB_CHUNK are sbagent's benchmark mode (the job's environment): they are
# removed here, so a shell inside a job measures the standalone agent too.
#
# Wall time: ROUNDS rounds, each one runs `true` RUNS/ROUNDS times and then
# `sbagent -- true` as often, and gives the added time per run of that
# round (the two halves of a round see the same load).  The figure is the
# median round: a noisy neighbour spoils a few rounds, not the median,
# while the best round would flatter the agent (it hides the variance of
# the two fdatasyncs, which is real).
# The floor (below) is measured in the same rounds, after sbagent.
# Peak RSS: GNU time's %M (the maximum resident set of the process and its
# reaped descendants, KiB), the largest of 20 runs each.
# usage: SB_BIN=build/bin bash tests/bench/bench_agent.sh [RUNS]
set -euo pipefail
runs=${1:-600}
bin=${SB_BIN:-build/bin}
agent=$bin/sbagent
true_bin=$(type -P true)
[ -x "$agent" ] || { echo "bench_agent: no $agent (build first)" >&2; exit 2; }
unset SB_BENCH_DIR SB_ATTEMPT SB_CHUNK

dirs=()
trap 'rm -rf "${dirs[@]}"' EXIT
scratch() { # FS-PARENT: sets SCRATCH to a new scratch directory with a key
	SCRATCH=$(mktemp -d "$1/sbagent-bench.XXXXXX")
	dirs+=("$SCRATCH") # not in a subshell, so that the trap removes it
	if [ -x "$bin/sbctl" ] && "$bin/sbctl" keygen "$SCRATCH/key" 2>/dev/null; then :; else
		(umask 077 && head -c 32 /dev/urandom > "$SCRATCH/key")
	fi
}

# the clock in ns: bash's EPOCHREALTIME needs no process (date would add
# its own start-up to every interval)
if [ -n "${EPOCHREALTIME:-}" ]; then now_ns() { local t=${EPOCHREALTIME/[.,]/}; NOW=${t}000; }
else now_ns() { NOW=$(date +%s%N); }; fi
fstype() { df --output=fstype "$1" 2>/dev/null | tail -n 1 || stat -f -c %T "$1"; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# The floor: the least any agent must do around the command, as a C
# program of its own (built with cc when there is one): vfork and exec the
# command, create the log exclusively, and two 400-byte records each
# written with one write and made durable with fdatasync, one before the
# command runs and one after it ended.  What sbagent adds beyond it is its
# own cost; the floor itself is the process start-up of a glibc program
# (or of a static musl one: the second floor) and the two syncs on this
# machine.
floor= floor_musl=
if command -v cc >/dev/null 2>&1; then
	fdir=$(mktemp -d "${TMPDIR:-/tmp}/sbagent-floor.XXXXXX")
	dirs+=("$fdir")
	cat > "$fdir/floor.c" <<'EOF_C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static int record(int fd)
{
	char buf[400];
	memset(buf, 'x', sizeof(buf));
	return write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) && fdatasync(fd) == 0 ? 0 : -1;
}
int main(int argc, char **argv)
{
	sigset_t all, none;
	int fd, st;
	pid_t p;
	if (argc < 3)
		return 125;
	sigfillset(&all);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &all, NULL);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (fd < 0 || record(fd) < 0)
		return 125;
	p = vfork();
	if (p == 0) {
		sigprocmask(SIG_SETMASK, &none, NULL);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (p < 0 || waitpid(p, &st, 0) < 0 || record(fd) < 0 || close(fd) < 0)
		return 124;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
EOF_C
	if cc -O2 -o "$fdir/floor" "$fdir/floor.c" 2>/dev/null; then floor=$fdir/floor; fi
	# the same floor as a static musl program, as sbagent is built where
	# musl-gcc is installed: without glibc's start-up (its CPU feature
	# probing and ld.so, about 0.4 ms a process on a virtual machine)
	if [ -n "$floor" ] && command -v musl-gcc >/dev/null 2>&1 &&
	   musl-gcc -O2 -static -o "$fdir/floor-musl" "$fdir/floor.c" 2>/dev/null; then
		floor_musl=$fdir/floor-musl
	fi
fi

# floor_time PROG: runs the floor program PROG per times (in measure's
# round: its dir, per and the round's time of true, t1 - t0); FT is what
# it added per run over true, in ns
floor_time() {
	local i ta
	rm -f "$dir"/floor.*
	now_ns; ta=$NOW
	for i in $(seq "$per"); do
		"$1" "$dir/floor.$i" "$true_bin" ||
			{ echo "bench_agent: the floor program $1 exited $?" >&2; exit 1; }
	done
	now_ns; FT=$(( (NOW - ta - (t1 - t0)) / per ))
}

# measure LABEL DIR BUDGET_MS
measure() {
	local label=$1 dir=$2 budget=$3 rounds=11 per r i t0 t1 t2 n=0
	local base=() with=() added=() over=() overm=()
	per=$(( (runs + rounds - 1) / rounds ))
	for r in $(seq "$rounds"); do
		now_ns; t0=$NOW
		for i in $(seq "$per"); do "$true_bin"; done
		now_ns; t1=$NOW
		for i in $(seq "$per"); do
			n=$((n + 1))
			"$agent" --key "$dir/key" --log "$dir/log.$n" -- "$true_bin" ||
				{ echo "bench_agent: sbagent exited $? (run $n)" >&2; exit 1; }
		done
		now_ns; t2=$NOW
		if [ -n "$floor" ]; then floor_time "$floor"; over+=("$FT"); fi
		if [ -n "$floor_musl" ]; then floor_time "$floor_musl"; overm+=("$FT"); fi
		rm -f "$dir"/log.* "$dir"/floor.*
		base+=($(( (t1 - t0) / per )))
		with+=($(( (t2 - t1) / per )))
		added+=($(( (t2 - t1 - (t1 - t0)) / per )))
	done
	awk -v l="$label" -v b="$(median "${base[@]}")" -v w="$(median "${with[@]}")" \
		-v d="$(median "${added[@]}")" -v f="${over[*]:+$(median "${over[@]}")}" \
		-v fm="${overm[*]:+$(median "${overm[@]}")}" \
		-v n="$((per * rounds))" -v bud="$budget" 'BEGIN {
		d /= 1e6
		fl = f == "" ? "floor not measured (no cc)" : sprintf("floor %.3f ms", f / 1e6)
		if (fm != "")
			fl = fl sprintf(", static musl floor %.3f ms", fm / 1e6)
		printf "sbagent wall, %s: true %.3f ms, sbagent -- true %.3f ms, added %.3f ms per run (%s; budget %s ms) %s  [median of 11 rounds, %d runs each]\n",
			l, b / 1e6, w / 1e6, d, fl, bud, d <= bud ? "ok" : "OVER BUDGET", n
	}'
}

# peak LABEL DIR
peak() {
	local label=$1 dir=$2 rb=0 rw=0 kb i
	if ! [ -x /usr/bin/time ]; then
		echo "sbagent peak RSS, $label: /usr/bin/time not found; not measured (budget 4 MiB)"
		return
	fi
	for i in $(seq 20); do
		kb=$( { /usr/bin/time -f %M "$true_bin" >/dev/null; } 2>&1 | tail -n 1)
		[ "$kb" -gt "$rb" ] && rb=$kb
		kb=$( { /usr/bin/time -f %M "$agent" --key "$dir/key" --log "$dir/rss.$i" -- "$true_bin" >/dev/null; } 2>&1 | tail -n 1)
		[ "$kb" -gt "$rw" ] && rw=$kb
	done
	awk -v l="$label" -v b="$rb" -v w="$rw" 'BEGIN {
		d = w - b
		printf "sbagent peak RSS, %s: true %d KiB, sbagent -- true %d KiB, added %d KiB (budget 4096 KiB) %s  [GNU time %%M, largest of 20]\n",
			l, b, w, d, d <= 4096 ? "ok" : "OVER BUDGET"
	}'
}

if [ -n "${SB_BENCH_TMP:-}" ]; then
	fs=$(fstype "$SB_BENCH_TMP")
	budget=1.5
	[ "$fs" = tmpfs ] && budget=1
	scratch "$SB_BENCH_TMP"
	d=$SCRATCH
	measure "$fs ($SB_BENCH_TMP)" "$d" "$budget"
	peak "$fs ($SB_BENCH_TMP)" "$d"
	exit 0
fi
scratch /tmp
d=$SCRATCH
measure "$(fstype /tmp) (/tmp)" "$d" 1.5
peak "$(fstype /tmp) (/tmp)" "$d"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	scratch /dev/shm
	d=$SCRATCH
	measure "tmpfs (/dev/shm)" "$d" 1
fi
