# Helpers of the end-to-end tests: the fake Slurm first on PATH (tests/fake/lib.sh),
# sbctl and sbagent from the build, a private local index, and a shim
# directory where a test can wrap a Slurm command.
: "${SB_BIN:?SB_BIN must name build/bin}"
. "$(dirname "${BASH_SOURCE[0]}")/../fake/lib.sh"
export SB_INDEX="$T_ROOT/index.sqlite"
export SB_ROOT="$T_ROOT/runs"
SBCTL="$SB_BIN/sbctl"
SHIM="$T_ROOT/shim"
mkdir -p "$SHIM"
export PATH="$SHIM:$PATH"

# count_calls NAME: how many times the shim of NAME ran
count_calls() { [ -f "$T_ROOT/calls.$1" ] && wc -l < "$T_ROOT/calls.$1" || echo 0; }

# shim NAME BODY: NAME on PATH runs BODY (bash) first, then the fake's NAME;
# every call is counted.  BODY may use $n, the number of this call (1, 2...).
shim() {
	cat > "$SHIM/$1" <<SHIM
#!/bin/bash
echo call >> "$T_ROOT/calls.$1"
n=\$(wc -l < "$T_ROOT/calls.$1")
$2
exec "$SB_FAKE_BIN/$1" "\$@"
SHIM
	chmod +x "$SHIM/$1"
}

# py ARGS...: python3 over the build's library; a sanitized one needs its runtime first
py() {
	local rt
	rt=$(ldd "$SB_BUILD/lib/libsbench.so" | awk '/libasan/ {print $3}')
	env ${rt:+LD_PRELOAD=$rt ASAN_OPTIONS=detect_leaks=0:abort_on_error=1} \
		PYTHONPATH="$SB_BUILD/python" SB_AGENT="$SB_BIN/sbagent" python3 "$@"
}

# jqf FILE FILTER: jq -r FILTER FILE
jqf() { jq -r "$2" "$1"; }

# write_spec FILE TEXT
write_spec() { printf '%s\n' "$2" > "$1"; }

# ---- helpers of the status tests (tests/e2e/test_status_*.sh) -------------

# submit_spec NAME TEXT: writes NAME.yaml, submits it; prints the benchmark dir
submit_spec() {
	write_spec "$1.yaml" "$2"
	"$SBCTL" submit "$1.yaml" --json > "$1.submit.json" || {
		echo "not ok - submit $1 failed"; T_FAILS=$((T_FAILS + 1)); return 1; }
	jqf "$1.submit.json" .benchmark.dir
}

# array_of NAME [CHUNK]: the array job id sbatch printed for the chunk
array_of() { jqf "$1.submit.json" ".jobs[${2:-0}].job_id"; }

# st OUT DIR [ARGS...]: sbctl status DIR --json ARGS > OUT; its exit code
st() { local out=$1; shift; "$SBCTL" status "$@" --json > "$out"; }

# expect_child JSON INDEX CLASS REASON-REGEX: the child's class and reason
expect_child() {
	local cls reason
	cls=$(jq -r ".children[$2].class" "$1")
	reason=$(jq -r ".children[$2].reason // \"\"" "$1")
	expect "child $2 is $3 ($reason)" "$cls" "$3"
	expect_match "child $2: reason" "$reason" "$4"
}

# classes JSON: "index:class" of every child, one line
classes() { jq -r '[.children[] | "\(.index):\(.class)"] | join(" ")' "$1"; }

# log_of DIR INDEX: the newest log file of a child (any attempt, job, restart)
log_of() { ls -t "$1"/events/*/"$2".a*.log 2>/dev/null | head -n 1; }

# log_types FILE: the verified record types of a log, space separated
log_types() { "$SBCTL" log "$1" --json 2>/dev/null | jq -r 'select(.type) | .type' | tr '\n' ' '; }

# started DIR INDEX: the child's log has a verified start record (for wait_for)
started() { local f; f=$(log_of "$1" "$2"); [ -n "$f" ] && [[ "$(log_types "$f")" == start* ]]; }

# agent_pid DIR INDEX: the pid of the sbagent writing the child's log (its start record)
agent_pid() { "$SBCTL" log "$(log_of "$1" "$2")" --json | jq -r 'select(.type=="start") | .pid'; }
