# shellcheck shell=bash
# Setup and teardown of the storage stage (tests/storage/run.sh): one export
# directory served by a private sshd on 127.0.0.1, and three mount
# namespaces that see it at the same path, as the nodes of a cluster do:
#
#   compute  sshfs, default caching: where the fake Slurm's jobs run
#   login    sshfs caching like NFS without close-to-open: where the user
#            runs sbctl
#   truth    a plain bind mount of the export: the ground truth
#
# Source it, call st_require BUILD_DIR, trap st_teardown EXIT, st_setup;
# then `on CLIENT CMD...` runs CMD in a client's namespace.
set -u

# login: attributes and names cached for 30 s, listings for 60 s, pages kept
# across opens (kernel_cache): a write on compute is seen by an open-read
# after ~30 s, a new name after ~30 s, a listing after ~61 s
ST_LOGIN_OPTS=kernel_cache,attr_timeout=30,entry_timeout=30,negative_timeout=30,dir_cache=yes,dcache_timeout=60
# compute: sshfs's defaults (1 s kernel timeouts, its own 20 s directory cache)
ST_COMPUTE_OPTS=
ST_CLIENTS="compute login truth"

declare -A ST_NS=()   # client -> pid of the process holding its mount namespace
declare -A ST_NSID=() # client -> its mount namespace ("mnt:[4026532174]")
ST_PIDS=()           # background processes of the scenarios, killed at teardown
ST_ROOT=
ST_ON=
ST_SSHD_PID=
ST_MADE_RUN_SSHD=0

# refuse MESSAGE: the stage cannot run here; never a silent skip
refuse() {
	echo "tests/storage: cannot run: $*" >&2
	exit 2
}

# note MESSAGE: progress, with the stage's clock
note() { printf '[%6.1f] %s\n' "$(st_now)" "$*"; }

# st_now: seconds since the stage began (after setup: since ST_T0)
st_now() {
	local ns
	ns=$(date +%s%N)
	awk -v n="$ns" -v t="${ST_T0:-$ns}" 'BEGIN { printf "%.3f", (n - t) / 1e9 }'
}

# st_require BUILD_DIR: root, /dev/fuse, the programs and the build, or exit 2
st_require() {
	local b=$1 cmd
	[ "$(id -u)" -eq 0 ] || refuse "must run as root (it mounts file systems and starts sshd): sudo bash $0 $b"
	[ -c /dev/fuse ] || refuse "/dev/fuse is missing (no FUSE on this machine: sshfs cannot mount)"
	for cmd in sshfs ssh ssh-keygen unshare nsenter mount umount findmnt jq python3 timeout; do
		command -v "$cmd" > /dev/null || refuse "$cmd is missing (apt-get install -y openssh-server sshfs util-linux jq python3)"
	done
	ST_SSHD=$(command -v sshd || echo /usr/sbin/sshd)
	[ -x "$ST_SSHD" ] || refuse "sshd is missing (apt-get install -y openssh-server)"
	ST_FUSERMOUNT=$(command -v fusermount3 || command -v fusermount || echo)
	if [ ! -x "$b/bin/sbctl" ] || [ ! -x "$b/bin/sbagent" ]; then
		refuse "$b/bin/sbctl or sbagent is missing: build first (cmake --build $b)"
	fi
	[ -x "$b/fake/bin/sbfake" ] || refuse "$b/fake/bin/sbfake is missing: build first"
	grep -q SB_FAKE_NODE_MNTNS "$b/fake/bin/sbfake" ||
		refuse "$b/fake/bin/sbfake does not know SB_FAKE_NODE_MNTNS (rebuild: cmake --build $b --target sbfake)"
	ST_BUILD=$(cd "$b" && pwd)
}

# st_setup: everything, or exit 1 (the EXIT trap tears down what was made)
st_setup() {
	ST_ROOT=$(mktemp -d /tmp/sbstorage.XXXXXX) || exit 1
	chmod 755 "$ST_ROOT"
	ST_EXPORT=$ST_ROOT/export  # the ground truth, served by sshd
	ST_SHARED=$ST_ROOT/shared  # the one path every client mounts (empty here)
	ST_OUT=$ST_ROOT/out        # snapshots, outputs, results (local disk)
	ST_SHIM=$ST_ROOT/shim      # wrapped Slurm commands: local, seen by all
	mkdir -p "$ST_EXPORT/runs" "$ST_EXPORT/specs" "$ST_SHARED" "$ST_OUT" "$ST_SHIM" "$ST_ROOT/ssh"
	st_env
	st_sshd || exit 1
	local c
	for c in $ST_CLIENTS; do
		st_ns_start "$c" || exit 1
	done
	st_on_script
	st_mount compute sshfs "$ST_COMPUTE_OPTS" || exit 1
	st_mount login sshfs "$ST_LOGIN_OPTS" || exit 1
	st_mount truth bind || exit 1
	export SB_FAKE_NODE_MNTNS=/proc/${ST_NS[compute]}/ns/mnt
	st_check_mounts || exit 1
	st_check_node || exit 1
}

# st_env: the fake Slurm (state on local disk, outside the shared path, so
# that every namespace sees the same cluster) and sbench, as the e2e tests
# set them (tests/fake/lib.sh)
st_env() {
	local v
	for v in $(env | sed -n 's/^\(SB_FAKE_[A-Z_]*\)=.*/\1/p; s/^\(SBATCH_[A-Z_]*\)=.*/\1/p'); do
		unset "$v"
	done
	unset SLURM_CONF SB_SETTLE
	export SB_BIN=$ST_BUILD/bin SB_FAKE_BIN=$ST_BUILD/fake/bin
	export PATH="$SB_FAKE_BIN:$PATH"
	export SB_FAKE_SLURM_DIR=$ST_ROOT/state
	export SB_FAKE_TIME_UNIT=s
	export SB_FAKE_KILLWAIT=0.2
	export SB_FAKE_REQUEUE_DELAY=0.3
	export SB_FAKE_NODENAME=node1
	export SB_FAKE_CLUSTER=lab
	export SB_FAKE_CPUS=32  # the scenarios run side by side: no queueing
	export SB_ROOT=$ST_SHARED/runs
	export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
	export SBCTL=$SB_BIN/sbctl
}

# st_free_port: a TCP port nobody listens on now
st_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# st_sshd: our own sshd (own config, port, host key; root by key only),
# serving the export over sftp; not the system's service
st_sshd() {
	local d=$ST_ROOT/ssh port
	ssh-keygen -q -t ed25519 -N '' -C sbstorage-host -f "$d/host_key" || return 1
	ssh-keygen -q -t ed25519 -N '' -C sbstorage-client -f "$d/client_key" || return 1
	cp "$d/client_key.pub" "$d/authorized_keys" && chmod 600 "$d/authorized_keys"
	port=$(st_free_port) || return 1
	cat > "$d/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $d/host_key
PidFile none
AuthorizedKeysFile $d/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
X11Forwarding no
PrintMotd no
Subsystem sftp internal-sftp
LogLevel ERROR
EOF
	# the client trusts exactly this host key, under an alias
	echo "sbstorage $(cut -d' ' -f1-2 "$d/host_key.pub")" > "$d/known_hosts"
	cat > "$d/ssh_config" <<EOF
Host sbstorage
	HostName 127.0.0.1
	Port $port
	User root
	HostKeyAlias sbstorage
	IdentityFile $d/client_key
	IdentitiesOnly yes
	UserKnownHostsFile $d/known_hosts
	StrictHostKeyChecking yes
	BatchMode yes
	ServerAliveInterval 15
EOF
	# sshd needs its privilege separation directory (the system's service
	# would make it); ours only if it was not there
	if [ ! -d /run/sshd ]; then
		mkdir -p /run/sshd && chmod 755 /run/sshd && ST_MADE_RUN_SSHD=1
	fi
	# (a session of its own, like the namespace holders: a Ctrl-C in the
	# terminal reaches the stage, whose trap takes them down in order)
	setsid "$ST_SSHD" -D -e -f "$d/sshd_config" < /dev/null 2>> "$d/sshd.log" &
	ST_SSHD_PID=$!
	for _ in $(seq 100); do
		ssh -F "$d/ssh_config" sbstorage true 2>> "$d/ssh.log" && return 0
		kill -0 "$ST_SSHD_PID" 2> /dev/null || break
		sleep 0.1
	done
	echo "tests/storage: sshd on 127.0.0.1:$port does not answer; its log:" >&2
	cat "$d/sshd.log" "$d/ssh.log" >&2
	return 1
}

# st_ns_start CLIENT: a process that holds a new private mount namespace
st_ns_start() {
	local pid self
	setsid unshare --mount --propagation private sleep infinity < /dev/null > /dev/null 2>&1 &
	pid=$!
	self=$(readlink /proc/self/ns/mnt)
	# until unshare has made the namespace and exec'd sleep, entering the
	# pid would enter ours
	for _ in $(seq 100); do
		if [ "$(readlink "/proc/$pid/ns/mnt" 2> /dev/null)" != "$self" ] &&
			[ "$(cat "/proc/$pid/comm" 2> /dev/null)" = sleep ]; then
			ST_NS[$1]=$pid
			ST_NSID[$1]=$(readlink "/proc/$pid/ns/mnt")
			return 0
		fi
		sleep 0.05
	done
	echo "tests/storage: the mount namespace of $1 was not made" >&2
	kill "$pid" 2> /dev/null
	return 1
}

# st_on_script: writes $ST_ON, the command `on CLIENT CMD...` (a script, so
# that the poller, a python program, runs commands the same way): CMD in the
# client's mount namespace, in the current directory (nsenter would start
# it in /), with the client's own local index (an index is per machine
# here: SQLite must not live on sshfs)
st_on_script() {
	ST_ON=$ST_ROOT/bin/on
	mkdir -p "$ST_ROOT/bin"
	cat > "$ST_ON" <<EOF
#!/bin/bash
# on CLIENT CMD...: written by tests/storage/lib.sh
case \$1 in
compute) pid=${ST_NS[compute]} ;;
login) pid=${ST_NS[login]} ;;
truth) pid=${ST_NS[truth]} ;;
*) echo "on: no client \$1" >&2; exit 2 ;;
esac
index=$ST_ROOT/index.\$1.sqlite
shift
exec nsenter -t "\$pid" -m --wd="\$PWD" -- env SB_INDEX="\$index" "\$@"
EOF
	chmod +x "$ST_ON"
	export ST_ON
}

# on CLIENT CMD...: see st_on_script
on() { "$ST_ON" "$@"; }

# st_mount CLIENT sshfs OPTIONS | CLIENT bind
st_mount() {
	if [ "$2" = bind ]; then
		on "$1" mount --bind "$ST_EXPORT" "$ST_SHARED"
		return
	fi
	on "$1" sshfs -F "$ST_ROOT/ssh/ssh_config" "sbstorage:$ST_EXPORT" "$ST_SHARED" \
		${3:+-o "$3"} 2>> "$ST_ROOT/ssh/sshfs.$1.log" || {
		echo "tests/storage: sshfs of $1 failed:" >&2
		cat "$ST_ROOT/ssh/sshfs.$1.log" >&2
		return 1
	}
}

# st_check_mounts: each client sees the export through the right file
# system, and the host's own view of the path stays empty
st_check_mounts() {
	local c want got
	for c in $ST_CLIENTS; do
		want=fuse.sshfs
		[ "$c" = truth ] && want=$(findmnt -n -o FSTYPE --target "$ST_EXPORT")
		got=$(on "$c" findmnt -n -o FSTYPE --mountpoint "$ST_SHARED")
		if [ "$got" != "$want" ]; then
			echo "tests/storage: $c sees $ST_SHARED as '$got', not $want" >&2
			return 1
		fi
		on "$c" test -d "$ST_SHARED/runs" || {
			echo "tests/storage: $c does not see the export's runs/" >&2
			return 1
		}
	done
	if [ -n "$(ls -A "$ST_SHARED")" ]; then
		echo "tests/storage: $ST_SHARED is not empty outside the namespaces" >&2
		return 1
	fi
}

# st_check_node: a job submitted from login runs in compute's namespace
# (else every scenario would write through login and prove nothing)
st_check_node() {
	local f=$ST_OUT/node-ns
	(cd "$ST_OUT" && on login sbatch --parsable --output=/dev/null --job-name=node-check \
		--wrap "readlink /proc/self/ns/mnt > $f") > /dev/null || return 1
	for _ in $(seq 100); do
		[ -s "$f" ] && break
		sleep 0.1
	done
	if [ "$(cat "$f" 2> /dev/null)" != "${ST_NSID[compute]}" ]; then
		echo "tests/storage: a fake job ran in '$(cat "$f" 2> /dev/null)', not in compute's namespace ${ST_NSID[compute]} (SB_FAKE_NODE_MNTNS)" >&2
		return 1
	fi
}

# ns_pids CLIENT: pids of every process in the client's mount namespace
# (its holder, sshfs, the jobs that entered it); found by the namespace,
# not through the holder, which may be gone
ns_pids() {
	local p
	[ -n "${ST_NSID[$1]:-}" ] || return 0
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/mnt" 2> /dev/null)" = "${ST_NSID[$1]}" ] && echo "${p#/proc/}"
	done
}

# descendants PID: pids of every descendant of PID
descendants() {
	local kids k
	kids=$(ps -o pid= --ppid "$1" 2> /dev/null)
	for k in $kids; do
		echo "$k"
		descendants "$k"
	done
}

# kill_pids PID...: SIGTERM, then SIGKILL to those still there after 2 s
kill_pids() {
	local p left
	[ $# -gt 0 ] || return 0
	kill "$@" 2> /dev/null
	for _ in $(seq 20); do
		left=
		for p in "$@"; do kill -0 "$p" 2> /dev/null && left=1; done
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	kill -KILL "$@" 2> /dev/null
}

# st_keep: SB_STORAGE_KEEP=DIR copies the snapshots, outputs and the
# benchmark directories (the export) there before they are removed
st_keep() {
	[ -n "${SB_STORAGE_KEEP:-}" ] && [ -n "$ST_ROOT" ] && [ -d "$ST_ROOT/out" ] || return 0
	mkdir -p "$SB_STORAGE_KEEP" &&
		cp -a "$ST_ROOT/out" "$SB_STORAGE_KEEP/" &&
		cp -a "$ST_ROOT/export" "$SB_STORAGE_KEEP/" &&
		cp -a "$ST_ROOT/ssh/"*.log "$SB_STORAGE_KEEP/out/" 2> /dev/null
	echo "tests/storage: kept the snapshots and benchmark directories in $SB_STORAGE_KEEP"
}

# st_teardown: always, also after a failure half-way or an interrupt: the
# scenarios' processes, the fake's jobs, the mounts, the namespaces, sshd,
# the temporary directory.  Each step tolerates what was never made.
st_teardown() {
	local c p pids
	trap - EXIT INT TERM HUP
	set +e
	# the scenarios and everything they started (pollers, sbctl, sleeps)
	# shellcheck disable=SC2046 # a list of pids
	[ ${#ST_PIDS[@]} -gt 0 ] && kill_pids $(for p in "${ST_PIDS[@]}"; do descendants "$p"; echo "$p"; done)
	[ -n "$ST_ROOT" ] && [ -d "$ST_ROOT/state" ] &&
		SB_FAKE_SLURM_DIR=$ST_ROOT/state "$ST_BUILD/fake/bin/sbfake" shutdown > /dev/null 2>&1
	st_keep
	for c in $ST_CLIENTS; do
		[ -n "${ST_NS[$c]:-}" ] || continue
		# the jobs and commands in it, not the holder, sshfs and its ssh
		# (before the mount goes: a process on it would keep it busy)
		pids=$(ns_pids "$c" | grep -vx "${ST_NS[$c]}" | while read -r p; do
			case $(cat "/proc/$p/comm" 2> /dev/null) in sshfs | ssh) ;; *) echo "$p" ;; esac
		done)
		# shellcheck disable=SC2086 # a list of pids
		kill_pids $pids
		if [ ! -x "$ST_ON" ] || ! kill -0 "${ST_NS[$c]}" 2> /dev/null; then
			: # nothing mounted yet, or no way in: the namespace and its
			# mounts go with the last of its processes, killed below
		elif [ "$c" != truth ] && [ -n "$ST_FUSERMOUNT" ]; then
			on "$c" "$ST_FUSERMOUNT" -u "$ST_SHARED" 2> /dev/null ||
				on "$c" umount -l "$ST_SHARED" 2> /dev/null
		else
			on "$c" umount -l "$ST_SHARED" 2> /dev/null
		fi
		# sshfs (still there if the unmount failed) and the holder
		# shellcheck disable=SC2046 # a list of pids
		kill_pids $(ns_pids "$c")
	done
	if [ -n "$ST_SSHD_PID" ]; then
		# shellcheck disable=SC2046 # a list of pids: sshd's sessions, then sshd
		kill_pids $(descendants "$ST_SSHD_PID") "$ST_SSHD_PID"
		wait "$ST_SSHD_PID" 2> /dev/null
	fi
	[ "$ST_MADE_RUN_SSHD" = 1 ] && rmdir /run/sshd 2> /dev/null
	case $ST_ROOT in
	/tmp/sbstorage.?*) rm -rf "$ST_ROOT" ;;
	esac
}
