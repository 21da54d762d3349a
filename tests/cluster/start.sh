#!/usr/bin/env bash
# Installs (when missing), configures and starts a single-node Slurm 22.05
# (munge, MariaDB, slurmdbd, slurmctld, slurmd) on this Debian 12 machine
# without systemd, then waits until the node is idle and sacct answers.
# Run as root.  Stop with tests/cluster/stop.sh.
#   SLURMLAB_CGROUP=yes|no   force cgroup or linuxproc process tracking
#                            (default: cgroup when cgroup v1's memory controller is mounted)
#   SLURMLAB_NO_INSTALL=1    do not call apt-get
# Prints "cgroup" or "linuxproc" in /run/slurmlab.mode.  Exit 1 with a
# clear message (and the daemons' log tails) when the cluster cannot start.
set -euo pipefail
t0=$(date +%s.%N)
say() { awk -v t0="$t0" -v t1="$(date +%s.%N)" -v m="$*" 'BEGIN { printf "slurmlab: %s (+%.1fs)\n", m, t1 - t0 }' >&2; }
die() {
	echo "slurmlab: FATAL: $*" >&2
	for f in /var/log/slurm/slurmdbd.log /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log /var/log/mysql/mariadbd.log; do
		[ -f "$f" ] && { echo "---- tail $f" >&2; tail -n 15 "$f" >&2; }
	done
	exit 1
}
[ "$(id -u)" -eq 0 ] || die "must run as root"

# wait_until SECONDS WHAT CMD...: poll CMD every 0.25 s
wait_until() {
	local limit=$1 what=$2; shift 2
	local end=$(( $(date +%s) + limit ))
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || die "$what not ready after ${limit}s"
		sleep 0.25
	done
}

# 1. packages
pkgs=(munge slurm-wlm slurmctld slurmd slurm-client slurmdbd mariadb-server)
missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "${SLURMLAB_NO_INSTALL:-0}" = 1 ] && die "missing packages: ${missing[*]}"
	echo "slurmlab: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || die "apt-get update failed"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/slurmlab-apt.log 2>&1 ||
		{ tail -n 20 /tmp/slurmlab-apt.log >&2; die "apt-get install failed"; }
fi
say "packages present"

# already running?
running() { local f=$1 p; [ -f "$f" ] && p=$(cat "$f" 2>/dev/null) && [ -n "$p" ] && [ -d "/proc/$p" ] &&
	! grep -q '^State:[[:space:]]*Z' "/proc/$p/status" 2>/dev/null; }

# 2. configuration
host=$(hostname -s)
getent hosts "$host" >/dev/null || echo "127.0.0.1 $host" >> /etc/hosts
cpus=$(nproc)
mem=$(awk '/MemTotal/ {printf "%d", $2/1024 * 0.98}' /proc/meminfo)
defmem=$(( mem / cpus ))
mode=${SLURMLAB_CGROUP:-auto}
if [ "$mode" = auto ]; then
	if [ -e /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then mode=yes; else mode=no; fi
fi
if [ "$mode" = yes ]; then
	track=$'ProctrackType=proctrack/cgroup\nTaskPlugin=task/cgroup'
	echo cgroup > /run/slurmlab.mode
else
	track=$'ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherParams=OverMemoryKill'
	echo linuxproc > /run/slurmlab.mode
fi
mkdir -p /etc/slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=lab
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# a requeued job waits the credential's lifetime before it may start again
# (120 s by default): 10 s keeps the checkpoint/requeue scenario short
AuthInfo=cred_expire=10
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
$track
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=5
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=$defmem
KillWait=10
MinJobAge=300
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoreFlags=job_comment
JobCompType=jobcomp/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus Boards=1 SocketsPerBoard=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP PriorityTier=1
PartitionName=urgent Nodes=ALL MaxTime=INFINITE State=UP PriorityTier=2
CONF
cat > /etc/slurm/cgroup.conf <<'CONF'
CgroupPlugin=autodetect
ConstrainCores=yes
ConstrainRAMSpace=yes
CONF
cat > /etc/slurm/slurmdbd.conf <<'CONF'
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
SlurmUser=root
DebugLevel=info
LogFile=/var/log/slurm/slurmdbd.log
PidFile=/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=slurmdbpass
StorageLoc=slurm_acct_db
CONF
chmod 600 /etc/slurm/slurmdbd.conf
mkdir -p /etc/mysql/mariadb.conf.d
cat > /etc/mysql/mariadb.conf.d/60-slurmdbd.cnf <<'CONF'
[mysqld]
innodb_buffer_pool_size=1024M
innodb_log_file_size=64M
innodb_lock_wait_timeout=900
CONF
say "configured ($(cat /run/slurmlab.mode), $cpus CPUs, ${mem} MB)"

# 3. start, in order
[ -s /etc/munge/munge.key ] || die "/etc/munge/munge.key missing (munge postinst did not run?)"
mkdir -p /run/munge && chown munge:munge /run/munge && chmod 0755 /run/munge
running /run/munge/munged.pid || runuser -u munge -- /usr/sbin/munged || die "munged did not start"
wait_until 10 munge sh -c 'munge -n | unmunge'
say "munge up"

mkdir -p /run/mysqld /var/log/mysql && chown mysql:root /run/mysqld && chown mysql:adm /var/log/mysql
if ! running /run/mysqld/mysqld.pid; then
	setsid nohup /usr/sbin/mariadbd --user=mysql >>/var/log/mysql/mariadbd.log 2>&1 </dev/null &
fi
wait_until 60 mariadb mariadb-admin ping
mariadb -e "CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurmdbpass';
            GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;" || die "mariadb: cannot create the slurm user"
say "mariadb up"

running /run/slurmdbd.pid || slurmdbd || die "slurmdbd did not start"
wait_until 60 slurmdbd sacctmgr -n show cluster
sacctmgr -n -P show cluster format=cluster | grep -x lab >/dev/null || sacctmgr -i add cluster lab >/dev/null || die "sacctmgr add cluster failed"
say "slurmdbd up"

running /run/slurmctld.pid || slurmctld || die "slurmctld did not start"
wait_until 60 slurmctld sh -c 'scontrol ping | grep -q UP'
say "slurmctld up"

running /run/slurmd.pid || slurmd || die "slurmd did not start"
idle() { local s; s=$(sinfo -h -n "$host" -o %T); [ "$s" = idle ] || [ "$s" = mixed ] || [ "$s" = allocated ]; }
wait_until 60 "node $host (state: $(sinfo -h -n "$host" -o %T 2>/dev/null))" idle
wait_until 60 sacct sacct -n -X -S now-1minutes
say "ready: node $(sinfo -h -n "$host" -o %T), sacct answers"
