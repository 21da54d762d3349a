#!/bin/bash
# tests/storage/run.sh BUILD_DIR: sbench over a caching network file system.
#
# Jobs write their logs on "compute nodes" and the user runs sbctl on a
# "login node", each through its own sshfs client of one export; a third
# view, a plain bind mount of the export, is the ground truth (lib.sh).
# Scenarios (README.md says what each proves):
#   a  mixed benchmark: succeeded, failed, killed, incomplete, partial
#   b  quick benchmark: 8 children over in a second or two
#      (a, b: status through login, compute and truth every 0.5 s; a final
#      verdict through login or compute must be the truth's, and login
#      must reach it within ST_BOUND)
#   c  sbctl wait through login on a and b ends with the truth's verdicts
#   d  one submit through login and one through compute at the same moment:
#      exactly one job array per chunk (one chunk, then two); and a submit
#      through login right after compute's, while login's cache still says
#      the benchmark's key (and record) do not exist
#   e  a result rewritten with its size and mtime kept: status --rehash
#      through login says invalid
#   f  wait through login on a benchmark it looked up before it existed
# Run as root: sudo bash tests/storage/run.sh build.  Exit 0 when every
# check passed, 1 when one failed, 2 when the stage cannot run here.
set -u

# seconds within which every child must be final through login, after the
# truth's verdict (and the poll stops this long after the last job's end):
# docs/shared-storage.md's bound, the settle time (10 s) plus the storage
# lag (60 s on a shared file system) since the job's End, and 10 s for the
# polls and the scheduler's whole-second End
ST_BOUND=${SB_STORAGE_BOUND:-80}
ST_INTERVAL=0.5     # seconds between two rounds of snapshots
ST_TAIL=5           # seconds of snapshots after every child is final
ST_WAIT_INTERVAL=2  # sbctl wait --interval: more looks, more chances to stop early
ST_LIMIT=290        # the whole stage, setup to summary, in seconds

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$HERE/lib.sh"
# snap poll|check ...: the snapshot poller and checker (snap.py)
snap() { python3 "$HERE/snap.py" "$@"; }

if [ $# -ne 1 ]; then
	echo "usage: $0 BUILD_DIR (as root: sudo bash $0 build)" >&2
	exit 2
fi
st_require "$1"

# ---- results --------------------------------------------------------------

# result PASS|FAIL|INFO|KNOWN ID TEXT: one line of the summary (KNOWN: a
# known defect seen, said, not counted as a failure)
result() { printf '%s %s: %s\n' "$1" "$2" "$3" >> "$ST_OUT/results"; }

# evidence NAME < LINES: lines shown under the summary's failures of NAME
evidence() { cat >> "$ST_OUT/evidence.$1"; }

# summary: every result, the evidence of the failed scenarios, the verdict
summary() {
	local fails sc
	echo
	echo "==== tests/storage: results ($(st_now) s) ===="
	[ -f "$ST_OUT/results" ] && sort -s -k2,2 "$ST_OUT/results"
	fails=$(grep -c '^FAIL' "$ST_OUT/results" 2> /dev/null)
	for sc in a b c d e f; do
		[ -s "$ST_OUT/evidence.$sc" ] || continue
		echo
		echo "---- evidence of scenario $sc ----"
		cat "$ST_OUT/evidence.$sc"
	done
	echo
	if [ "${fails:-0}" -gt 0 ] || [ ! -s "$ST_OUT/results" ]; then
		echo "tests/storage: FAILED: ${fails:-0} check(s): $(grep '^FAIL' "$ST_OUT/results" 2> /dev/null | cut -d' ' -f2 | tr -d : | tr '\n' ' ')"
		return 1
	fi
	echo "tests/storage: all $(grep -c '^PASS' "$ST_OUT/results") checks passed"
}

# ---- helpers ---------------------------------------------------------------

# write_spec NAME TEXT: the spec in the export (what the truth sees); prints
# its path as every client sees it
write_spec() {
	printf '%s\n' "$2" > "$ST_EXPORT/specs/$1.yaml"
	echo "$ST_SHARED/specs/$1.yaml"
}

# dry_dir SPEC: the benchmark directory a submit of SPEC will create
dry_dir() {
	on truth "$SBCTL" submit "$1" --dry-run |
		sed -n 's/^directory \(.*\) (not created: --dry-run)$/\1/p'
}

# classes_of JSON: "index:class ..." of a status document ("" if no JSON)
classes_of() { jq -r '[.children[] | "\(.index):\(.class)"] | join(" ")' "$1" 2> /dev/null; }

# all_final JSON: every child of the status document has a final class
all_final() {
	jq -e '.children | length > 0 and all(.class | IN("succeeded","failed","killed",
		"incomplete","missing","partial","inconsistent","invalid","stopped"))' "$1" > /dev/null 2>&1
}

# rc_of_classes "i:class ...": the exit status sbctl status/wait give for them
rc_of_classes() {
	local c
	for c in $1; do
		[ "${c#*:}" = succeeded ] || { echo 3; return; }
	done
	echo 0
}

# truth_final DIR OUT SECONDS [ARGS...]: status through the truth until
# every child is final (OUT: its last answer); 1 if not within SECONDS
truth_final() {
	local dir=$1 out=$2 end=$(( $(date +%s) + $3 ))
	shift 3
	while :; do
		on truth "$SBCTL" status "$dir" --json "$@" > "$out" 2> /dev/null
		all_final "$out" && return 0
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 1
	done
}

# jobs_gone PREFIX SECONDS: until no job named PREFIX* is queued
jobs_gone() {
	local end=$(( $(date +%s) + $2 ))
	while squeue -h -r -o %j | grep -q "^$1"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}

# check_wait ID WAITDIR TRUTH-CLASSES: the checks of a wait through login
# (WAITDIR holds wait.rc "rc time", wait.out, after.json): its exit status,
# its summary and the status right after are the truth's
check_wait() {
	local id=$1 w=$2 truth=$3 rc t want got counts tcounts
	read -r rc t < "$w/wait.rc"
	want=$(rc_of_classes "$truth")
	if [ "$rc" = "$want" ]; then
		result PASS "$id-rc" "wait through login exited $rc at t=$t, as the truth's classes say"
	else
		result FAIL "$id-rc" "wait through login exited $rc at t=$t; the truth's classes say $want"
		{ echo "  $id: wait exited $rc at t=$t; stderr:"; sed 's/^/    | /' "$w/wait.err" | head -n 5; } | evidence "${id%%-*}"
	fi
	# the counts of wait's summary ("  failed        2") against the truth's
	counts=$(sed -n 's/^  \([a-z]*\) \+\([0-9]\+\)$/\1=\2/p' "$w/wait.out" | sort | tr '\n' ' ')
	tcounts=$(for c in $truth; do echo "${c#*:}"; done | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')
	if [ "$counts" = "$tcounts" ]; then
		result PASS "$id-summary" "wait's summary counts are the truth's: $counts"
	else
		result FAIL "$id-summary" "wait's summary counts: '$counts'; the truth's: '$tcounts'"
		{ echo "  $id: wait's output:"; sed 's/^/    | /' "$w/wait.out" | head -n 20; } | evidence "${id%%-*}"
	fi
	got=$(classes_of "$w/after.json")
	if [ "$got" = "$truth" ]; then
		result PASS "$id-after" "status through login right after wait: the truth's classes"
	else
		result FAIL "$id-after" "status through login right after wait: '$got'; the truth: '$truth'"
		jq -r '.children[] | "  '"$id"': after wait: child \(.index) \(.class) (\(.reason // ""))"' \
			"$w/after.json" 2> /dev/null | evidence "${id%%-*}"
	fi
}

# start_wait DIR WAITDIR TIMEOUT: sbctl wait through login in the background
# ($! is its pid; WAITDIR/wait.rc "exit-status time" when it ended, and
# after.json: status through login right after)
start_wait() {
	(
		on login "$SBCTL" wait "$1" --interval "$ST_WAIT_INTERVAL" --timeout "$3" > "$2/wait.out" 2> "$2/wait.err"
		echo "$? $(st_now)" > "$2/wait.rc"
		on login "$SBCTL" status "$1" --json > "$2/after.json" 2> "$2/after.err"
	) < /dev/null > /dev/null 2>&1 &
}

# ---- a, b and c: snapshots through every client, and a wait ----------------

# sc_snapshots NAME SPECNAME EXPECT SPECTEXT: submits through login, polls,
# checks (i) and (ii); and c on the same benchmark
sc_snapshots() {
	local name=$1 sname=$2 expect=$3 text=$4 d=$ST_OUT/$1 spec dir digest wpid truth
	mkdir -p "$d"
	cd "$d" || return 1
	spec=$(write_spec "$sname" "$text")
	if ! on login "$SBCTL" submit "$spec" --json > submit.json 2> submit.err; then
		result FAIL "$name-submit" "sbctl submit through login failed: $(head -n 1 submit.err)"
		return 1
	fi
	dir=$(jq -r .benchmark.dir submit.json)
	digest=$(jq -r .benchmark.digest submit.json)
	note "$name: submitted $dir through login"
	start_wait "$dir" "$d" $((ST_BOUND + 60))
	wpid=$!
	snap poll --dir "$dir" --out snaps.jsonl --jobname "sb-${digest:0:12}-" \
		--interval "$ST_INTERVAL" --bound "$ST_BOUND" --tail "$ST_TAIL"
	note "$name: snapshots done"
	snap check --snaps snaps.jsonl --name "$name" --expect "$expect" --bound "$ST_BOUND" > check.out
	grep -E '^(PASS|FAIL|INFO) ' check.out | while read -r verdict id text; do
		result "$verdict" "${id%:}" "$text"
	done
	sed -n '/^evidence/,$p' check.out | evidence "$name"
	sed -n '/^violations/,/^evidence/p' check.out | grep -v '^evidence'  # every one, in the log
	# c: the wait started with the submit
	wait "$wpid"
	truth=$(jq -r 'select(.client == "truth" and .children != null) |
		[.children[] | "\(.[0]):\(.[1])"] | join(" ")' snaps.jsonl | tail -n 1)
	check_wait "c-$name" "$d" "$truth"
	cd "$ST_OUT" || return 1
}

# The children wait 4 s in the queue, as on a cluster, so that login lists
# the benchmark's directories before any log exists (a listing it keeps for
# 60 s); then each runs for a moment first, so that login reads its log while
# it runs (a start record, no finish) and may keep that when it ends.
sc_a() {
	# shellcheck disable=SC2016 # $PPID is the child's shell's
	sc_snapshots a st-mixed succeeded,failed,killed,incomplete,partial,succeeded 'name: st-mixed
command: |
  sleep 2
  case {mode} in
  ok|ok2) echo ok > out.txt ;;
  fail) echo fail > out.txt; exit 3 ;;
  timeout) echo t > out.txt; exec sleep 30 ;;
  incomplete) echo i > out.txt; kill -KILL $PPID; sleep 1 ;;
  partial) exit 0 ;;
  esac
parameters:
  mode: [ok, fail, timeout, incomplete, partial, ok2]
results: [out.txt]
slurm: {time: "3", extra: ["--begin=now+4"]}'
}

sc_b() {
	# ({i} is a quoted word in a shell command: no arithmetic on it)
	sc_snapshots b st-quick succeeded,succeeded,failed,succeeded,succeeded,failed,succeeded,succeeded 'name: st-quick
command: "sleep 1; case {i} in 2|5) exit 1 ;; esac"
parameters:
  i: [0, 1, 2, 3, 4, 5, 6, 7]'
}

# ---- d: exactly once across clients ----------------------------------------

# once NAME CHILDREN MAXARRAY: the same spec submitted through login and
# through compute at the same moment, sbatch slowed down by 5 s so that the
# two submits overlap
once() {
	local name=$1 n=$2 max=$3 d=$ST_OUT/d/$1 spec dir prefix chunks k arrays calls c rc pids=()
	mkdir -p "$d"
	cd "$d" || return 1
	# the shim is on local disk: both namespaces see it
	mkdir -p "$ST_SHIM/$name"
	cat > "$ST_SHIM/$name/sbatch" <<EOF
#!/bin/bash
echo "\$*" >> "$d/sbatch.calls"
sleep 5
exec "$SB_FAKE_BIN/sbatch" "\$@"
EOF
	chmod +x "$ST_SHIM/$name/sbatch"
	spec=$(write_spec "$name" "name: $name
command: [\"true\"]
parameters:
  i: [$(seq -s ', ' 0 $((n - 1)))]")
	dir=$(SB_FAKE_MAX_ARRAY_SIZE=$max dry_dir "$spec")
	chunks=$(( (n + max - 1) / max ))
	for c in login compute; do
		(
			st_now > "$c.start"
			PATH=$ST_SHIM/$name:$PATH SB_FAKE_MAX_ARRAY_SIZE=$max \
				on "$c" "$SBCTL" submit "$spec" --json > "$c.json" 2> "$c.err"
			echo "$? $(st_now)" > "$c.rc"
		) &
		pids+=($!)
	done
	wait "${pids[@]}"
	note "d: $name: both submits over"
	prefix="sb-$(on truth jq -r .digest "$dir/benchmark.json" | cut -c1-12)-a0-c"
	jobs_gone "$prefix" 60 || result FAIL "d-$name-jobs" "jobs of $name still queued after 60 s"
	# how each submit ended: both 0 (the second waited for the first), or
	# one refused, saying the benchmark is locked
	local how="" zero=0 other=0 t starts ends
	# the scenario proves something only if each submit started before the
	# other ended
	starts=$(sort -n login.start compute.start | tail -n 1)
	ends=$(cut -d' ' -f2 login.rc compute.rc | sort -n | head -n 1)
	if awk -v s="$starts" -v e="$ends" 'BEGIN { exit !(s < e) }'; then
		result PASS "d-$name-overlap" "the submits overlapped: started at t=$(cat login.start) (login) and t=$(cat compute.start) (compute), the first ended at t=$ends"
	else
		result FAIL "d-$name-overlap" "the submits did not overlap: the second started at t=$starts, after the first ended at t=$ends"
	fi
	for c in login compute; do
		read -r rc t < "$c.rc"
		if [ "$rc" = 0 ]; then
			zero=$((zero + 1))
			how+="$c: exit 0 at t=$t$([ -s "$c.err" ] && echo " ($(head -n 1 "$c.err"))"); "
		elif grep -qi "lock\|another node made moments ago: nothing was submitted" "$c.err"; then
			# a refusal that says why and submits nothing: the lock, or a
			# directory the other client made that this one's cache hides
			how+="$c: refused, exit $rc at t=$t: $(head -n 1 "$c.err"); "
		else
			other=$((other + 1))
			# all of its stderr: the first line may be only the wait
			how+="$c: exit $rc at t=$t: $(tr '\n' ' ' < "$c.err" | cut -c1-600); "
		fi
	done
	# one of them submitted; the other waited (exit 0) or refused, saying why.
	# KNOWN (not a failure; the issue of shared storage is open for it): the
	# loser's cache still hides the key the winner made, and asking the file
	# server for it (sb_fs_reveal) did not bring it back; it fails with
	# "cannot open key file" having submitted nothing (d-$name-once checks that)
	if [ "$other" = 0 ] && [ "$zero" -ge 1 ]; then
		result PASS "d-$name-submits" "${how%; }"
	elif [ "$other" = 1 ] && [ "$zero" = 1 ] &&
		grep -q "cannot open key file '.*/keys/hmac.key': No such file or directory" login.err compute.err; then
		result KNOWN "d-$name-submits" "${how%; }"
	else
		result FAIL "d-$name-submits" "${how%; }"
	fi
	# arrays per chunk, from the fake's accounting; sbatch calls from the shim
	sacct -P -n -X -S now-1days --format=JobID,JobName > sacct.out
	local ok=1 text=""
	for k in $(seq 0 $((chunks - 1))); do
		arrays=$(awk -F'|' -v name="$prefix$k" '$2 == name { split($1, a, "_"); print a[1] }' sacct.out | sort -u | tr '\n' ' ')
		calls=$(grep -c -- "--job-name=$prefix$k " sbatch.calls)
		text+="chunk $k: $(echo "$arrays" | wc -w) array(s) [${arrays% }], $calls sbatch call(s); "
		[ "$(echo "$arrays" | wc -w)" = 1 ] || ok=0
	done
	if [ "$ok" = 1 ]; then
		result PASS "d-$name-once" "$chunks chunk(s): $text"
	else
		result FAIL "d-$name-once" "$chunks chunk(s): $text"
		on truth "$SBCTL" status "$dir" --json > truth.json 2> truth.err
		{
			echo "  d-$name: $text"
			sed 's/^/  d-'"$name"': status through the truth: /' truth.err | head -n 3
		} | evidence d
	fi
	cd "$ST_OUT" || return 1
}

# hidden NAME FILES: the benchmark made through compute while login's
# cache holds "no such file" for FILES (names in the benchmark directory,
# looked up through login just before): a submit through login right
# after must see the benchmark made and submit nothing, and status through
# login must read it (the key loads)
hidden() {
	local name=$1 files=$2 d=$ST_OUT/d/$1 spec dir f rc calls
	mkdir -p "$d" "$ST_SHIM/$name"
	cd "$d" || return 1
	cat > "$ST_SHIM/$name/sbatch" <<EOF
#!/bin/bash
echo "\$*" >> "$d/sbatch.calls"
exec "$SB_FAKE_BIN/sbatch" "\$@"
EOF
	chmod +x "$ST_SHIM/$name/sbatch"
	spec=$(write_spec "$name" "name: $name
command: [\"true\"]
parameters:
  i: [0, 1]")
	dir=$(dry_dir "$spec")
	[ -n "$dir" ] || { result FAIL "d-$name-setup" "no directory from submit --dry-run"; return 1; }
	# keys/ made on the server as submit makes it, so that login can look
	# up names in it; login then caches their absence for 30 s
	mkdir -p -m 0700 "$ST_EXPORT${dir#"$ST_SHARED"}/keys"
	for f in $files; do
		on login stat "$dir/$f" > /dev/null 2>&1 &&
			result FAIL "d-$name-setup" "login sees $f before the submit"
	done
	PATH=$ST_SHIM/$name:$PATH on compute "$SBCTL" submit "$spec" > compute.out 2> compute.err
	rc=$?
	[ "$rc" = 0 ] || result FAIL "d-$name-setup" "submit through compute: exit $rc: $(head -n 1 compute.err)"
	PATH=$ST_SHIM/$name:$PATH on login "$SBCTL" submit "$spec" > login.out 2> login.err
	rc=$?
	calls=$(wc -l < sbatch.calls)
	if [ "$rc" = 0 ] && [ "$calls" = 1 ]; then
		result PASS "d-$name-submit" "submit through login right after compute's, login's cache hiding $files: exit 0, no second sbatch call"
	else
		result FAIL "d-$name-submit" "submit through login right after compute's, login's cache hiding $files: exit $rc, $calls sbatch call(s): $(head -n 1 login.err)"
	fi
	on login "$SBCTL" status "$dir" --json > status.json 2> status.err
	rc=$?
	if jq -e '.children | length == 2' status.json > /dev/null 2>&1; then
		result PASS "d-$name-status" "status through login reads the benchmark (exit $rc)"
	else
		result FAIL "d-$name-status" "status through login: exit $rc: $(head -n 1 status.err)"
	fi
	cd "$ST_OUT" || return 1
}

sc_d() {
	once st-once1 2 1001
	once st-once2 4 2
	hidden st-hidkey keys/hmac.key
	hidden st-hidall "keys/hmac.key benchmark.msgpack"
}

# ---- e: a result rewritten, size and mtime kept -------------------------------

sc_e() {
	local d=$ST_OUT/e spec dir f mt size cls end t0 t
	mkdir -p "$d"
	cd "$d" || return 1
	spec=$(write_spec st-rehash 'name: st-rehash
command: "printf aaaa > res.txt"
results: [res.txt]')
	if ! on login "$SBCTL" submit "$spec" --json > submit.json 2> submit.err; then
		result FAIL e-submit "sbctl submit through login failed: $(head -n 1 submit.err)"
		return 1
	fi
	dir=$(jq -r .benchmark.dir submit.json)
	# (bounds that keep the worst case, 30 + 60 + 20 + ST_BOUND s, within ST_LIMIT)
	if ! truth_final "$dir" truth0.json 30 || [ "$(classes_of truth0.json)" != 0:succeeded ]; then
		result FAIL e-truth "through the truth the child is '$(classes_of truth0.json)', not succeeded"
		return 1
	fi
	# login reads the result first, as a user looking at it would: its
	# pages are in login's cache from then on
	end=$(( $(date +%s) + 60 ))
	until on login "$SBCTL" status "$dir" --rehash --json > login0.json 2> /dev/null &&
		[ "$(classes_of login0.json)" = 0:succeeded ]; do
		if [ "$(date +%s)" -ge "$end" ]; then
			result FAIL e-login-first "login never showed the child succeeded before the rewrite ('$(classes_of login0.json)')"
			return 1
		fi
		sleep 1
	done
	on login cat "$dir/runs/0/res.txt" > /dev/null
	# rewrite through the truth: the same size, the mtime to the nanosecond
	f=$ST_EXPORT/${dir#"$ST_SHARED"/}/runs/0/res.txt
	read -r size mt < <(stat -c '%s %.9Y' "$f")
	printf bbbb > "$f"
	touch -d "@$mt" "$f"
	if [ "$(stat -c '%s %.9Y' "$f")" != "$size $mt" ]; then
		result FAIL e-rewrite "the rewrite changed the size or mtime: $(stat -c '%s %.9Y' "$f") != $size $mt"
		return 1
	fi
	# (within the settle time of the job's end the truth may still wait)
	truth_final "$dir" truth1.json 20 --rehash
	if [ "$(classes_of truth1.json)" != 0:invalid ]; then
		result FAIL e-truth-rehash "status --rehash through the truth: '$(classes_of truth1.json)', not invalid"
		return 1
	fi
	note "e: result rewritten (size $size, mtime $mt kept)"
	t0=$(date +%s%N)
	end=$(( $(date +%s) + ST_BOUND ))
	while :; do
		on login "$SBCTL" status "$dir" --rehash --json > login1.json 2> /dev/null
		cls=$(classes_of login1.json)
		echo "t=$(st_now) $(jq -r '.children[0] | "\(.class) (\(.reason // ""))"' login1.json 2> /dev/null)" >> login-rehash.log
		[ "$cls" = 0:invalid ] && break
		[ "$(date +%s)" -ge "$end" ] && break
		sleep 1
	done
	t=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
	if [ "$cls" = 0:invalid ]; then
		result PASS e-login-rehash "status --rehash through login: invalid $t s after the rewrite ($(jq -r '.children[0].reason' login1.json))"
	else
		result FAIL e-login-rehash "status --rehash through login: still '$cls' $t s after the rewrite (bound $ST_BOUND s)"
		{
			echo "  e: through login after ${t} s: $(jq -r '.children[0] | "\(.class) (\(.reason // ""))"' login1.json)"
			echo "  e: through the truth:        $(jq -r '.children[0] | "\(.class) (\(.reason // ""))"' truth1.json)"
			echo "  e: login reads res.txt as '$(on login cat "$dir/runs/0/res.txt")', the truth as '$(cat "$f")'"
		} | evidence e
	fi
	on compute "$SBCTL" status "$dir" --rehash --json > compute1.json 2> /dev/null
	result INFO e-compute-rehash "status --rehash through compute: $(jq -r '.children[0] | "\(.class) (\(.reason // ""))"' compute1.json 2> /dev/null)"
	cd "$ST_OUT" || return 1
}

# ---- f: a benchmark directory login looked up before it existed ---------------

sc_f() {
	local d=$ST_OUT/f spec dir rc truth
	mkdir -p "$d"
	cd "$d" || return 1
	spec=$(write_spec st-late 'name: st-late
command: "test {i} -ne 1"
parameters:
  i: [0, 1, 2]')
	dir=$(dry_dir "$spec")
	# login looks it up first: "not there" is now in its cache (30 s)
	on login "$SBCTL" status "$dir" > before.out 2> before.err
	rc=$?
	result INFO f-before "status through login before the submit: exit $rc: $(head -n 1 before.err)"
	if ! on compute "$SBCTL" submit "$spec" --json > submit.json 2> submit.err; then
		result FAIL f-submit "sbctl submit through compute failed: $(head -n 1 submit.err)"
		return 1
	fi
	note "f: submitted $dir through compute; wait through login"
	start_wait "$dir" "$d" 120
	wait $!
	if ! truth_final "$dir" truth.json 30; then
		result FAIL f-truth "the children are not final through the truth: '$(classes_of truth.json)'"
		return 1
	fi
	truth=$(classes_of truth.json)
	read -r rc _ < wait.rc
	if [ "$rc" = 2 ]; then
		result FAIL f-kept-waiting "wait through login gave up at once: exit 2: $(head -n 1 wait.err)"
		{ echo "  f: wait's stderr:"; sed 's/^/    | /' wait.err | head -n 5; } | evidence f
	else
		result PASS f-kept-waiting "wait through login kept waiting (exit $rc)"
	fi
	check_wait f-wait "$d" "$truth"
	cd "$ST_OUT" || return 1
}

# ---- main --------------------------------------------------------------------

on_limit() {
	echo "tests/storage: the stage took more than $ST_LIMIT s; stopping" >&2
	result FAIL stage "the stage took more than $ST_LIMIT s"
	summary
	exit 1
}

# on_signal NAME CODE: what was found before the interruption, then exit
on_signal() {
	echo "tests/storage: $1; the results so far:" >&2
	[ -s "$ST_OUT/results" ] && sort -s -k2,2 "$ST_OUT/results" >&2
	echo "tests/storage: INTERRUPTED ($1): no verdict" >&2
	exit "$2"
}

ST_T0=$(date +%s%N)
export ST_T0
trap st_teardown EXIT
ST_OUT=/nonexistent  # until st_setup made it
trap 'on_signal interrupted 130' INT
trap 'on_signal terminated 143' TERM HUP
trap on_limit USR1
st_setup
export SBCTL
note "setup: sshd on 127.0.0.1, clients compute/login/truth at $ST_SHARED"
(sleep "$ST_LIMIT" && kill -USR1 $$) &
ST_PIDS+=($!)
cd "$ST_OUT" || exit 1

# the scenarios run side by side: the stage waits for the slowest client
# once, not once per scenario
declare -A SC_PID=()
for sc in a b d e f; do
	"sc_$sc" > "$ST_OUT/log.$sc" 2>&1 &
	SC_PID[$sc]=$!
	ST_PIDS+=($!)
done
for sc in a b d e f; do
	wait "${SC_PID[$sc]}"
	sed "s/^/$sc| /" "$ST_OUT/log.$sc"
done
summary
