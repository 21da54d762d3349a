#!/usr/bin/env bash
# Stops the single-node Slurm that tests/cluster/start.sh started, by PID, in
# reverse order: slurmd, slurmctld, slurmdbd, mariadbd, munged.  A daemon is
# gone when its PID no longer exists or is a zombie (PID 1 here reaps late:
# see tests/cluster/README.md).  SIGKILL after 20 s.  Safe to run when nothing runs.
set -u
gone() { [ ! -d "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
rc=0
for f in /run/slurmd.pid /run/slurmctld.pid /run/slurmdbd.pid /run/mysqld/mysqld.pid /run/munge/munged.pid; do
	[ -f "$f" ] || continue
	pid=$(cat "$f" 2>/dev/null)
	case "$pid" in ''|*[!0-9]*) continue ;; esac
	gone "$pid" && continue
	kill "$pid" 2>/dev/null || continue
	for _ in $(seq 80); do gone "$pid" && break; sleep 0.25; done
	if ! gone "$pid"; then
		echo "slurmlab: $f ($pid) still alive after 20 s: SIGKILL" >&2
		kill -9 "$pid" 2>/dev/null; sleep 0.5
		gone "$pid" || rc=1
	fi
	echo "slurmlab: stopped $(basename "$f" .pid) ($pid)" >&2
done
exit $rc
