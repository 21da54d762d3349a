#!/usr/bin/env bash
# sbagent's start-up (docs/sbagent.md, PERFORMANCE): what it links, how it
# starts the command (vfork, then exec in the child's own process group),
# and that tests/bench/bench_agent.sh measures the standalone agent even
# from inside a job's environment.
. "$(dirname "$0")/lib.sh"

# No EVP, provider or random-generator code: OpenSSL 3's provider start-up
# (about 0.3 ms) is what the low-level SHA-256 avoids.  A static sbagent
# contains the symbols it links, a dynamic one imports them: nm shows both.
syms=$( { nm "$AGENT" 2>/dev/null || true; nm -D "$AGENT" 2>/dev/null || true; } |
	grep -E ' (EVP_[A-Za-z0-9_]+|OSSL_PROVIDER_[a-z_]+|RAND_bytes|OPENSSL_init_crypto)(@|$)' || true)
check "no EVP, provider or RAND code in sbagent${syms:+ (found: $(echo $syms | head -c 200))}" \
	test -z "$syms"

# Shared libraries: never libzmq (the helper sbagent-watch loads it, only
# for a watcher), sqlite or libsbench.  The default build is a static musl
# program (no interpreter, nothing needed); a glibc build with libcrypto
# linked statically needs libc alone (libm is not needed).
needed=$(readelf -d "$AGENT" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
check "no libzmq, sqlite or libsbench needed (needed: $needed)" \
	eval '! grep -qE "libzmq|libsqlite|libsbench" <<<"$needed"'
if ! readelf -l "$AGENT" | grep -q INTERP; then
	check "a static sbagent needs nothing (needed: $needed)" test -z "$needed"
elif ! grep -q libcrypto <<<"$needed"; then
	check "a static sbagent needs libc only (needed: $needed)" test "$needed" = "libc.so.6 "
fi

# The command is its own process group's leader (the child's setpgid: the
# parent resumes only after the exec, so it does not make that call).
rc=0
"$AGENT" --key "$K" --log "$T/pg" -- sh -c 'set -- $(cat /proc/$$/stat); echo "$1 $5" > pg' || rc=$?
check "pgid: exit 0 (got $rc)" test "$rc" -eq 0
read -r pid pgid < pg
check "the command leads its own process group ($pid, $pgid)" test "$pid" = "$pgid"

# A script without '#!' runs through /bin/sh, as execvp does it under glibc
# (posix_spawn and musl's execvp would fail it with ENOEXEC): the vfork
# child searches PATH and falls back to sh itself, $0 the script's path.
printf 'echo from-script > script.out\n' > noshebang
chmod +x noshebang
rc=0
"$AGENT" --key "$K" --log "$T/script" -- ./noshebang || rc=$?
check "script without #!: exit 0 (got $rc)" test "$rc" -eq 0
check "script without #!: it ran" test "$(cat script.out 2>/dev/null)" = from-script
printf 'echo "$0 $*" > script0.out\n' > noshebang-0
chmod +x noshebang-0
"$AGENT" --key "$K" --log "$T/script1" -- ./noshebang-0 a 'b c' || true
check "script without #!: its arguments after \$0 (got $(cat script0.out 2>/dev/null))" \
	test "$(cat script0.out 2>/dev/null)" = "./noshebang-0 a b c"

# The search of PATH is execvp's (sbagent's own, the same under glibc and
# musl): a name without '/' is looked up in each PATH entry in turn, an
# empty entry is the working directory, a script found there runs through
# /bin/sh, a file found but not executable is 126 (EACCES), none 127.
mkdir -p pdir1 pdir2
printf 'echo second > pathrun.out\n' > pdir2/sb-pathcmd
chmod +x pdir2/sb-pathcmd
rc=0
PATH="$PWD/pdir1:$PWD/pdir2:$PATH" "$AGENT" --key "$K" --log "$T/path1" -- sb-pathcmd || rc=$?
check "PATH search: found in the second entry, run through sh (exit $rc)" \
	test "$rc" -eq 0 -a "$(cat pathrun.out 2>/dev/null)" = second
printf 'echo cwd > pathrun.out\n' > sb-cwdcmd
chmod +x sb-cwdcmd
rc=0
PATH="/nonexistent::/bin" "$AGENT" --key "$K" --log "$T/path2" -- sb-cwdcmd || rc=$?
check "PATH search: an empty entry is the working directory (exit $rc)" \
	test "$rc" -eq 0 -a "$(cat pathrun.out 2>/dev/null)" = cwd
printf 'echo no\n' > pdir1/sb-noexec
chmod -x pdir1/sb-noexec
rc=0
PATH="$PWD/pdir1:/bin" "$AGENT" --key "$K" --log "$T/path3" -- sb-noexec 2>/dev/null || rc=$?
check "PATH search: found but not executable: 126 (got $rc)" test "$rc" -eq 126
rc=0
PATH="$PWD/pdir1" "$AGENT" --key "$K" --log "$T/path4" -- sb-none-such 2>/dev/null || rc=$?
check "PATH search: not found: 127 (got $rc)" test "$rc" -eq 127

# The benchmark runs standalone, also with a job's SB_BENCH_DIR, SB_ATTEMPT
# and SB_CHUNK in the environment (they would switch sbagent into benchmark
# mode and make it exit 125), and prints each figure beside its budget.
rc=0
out=$(SB_BENCH_DIR=/nonexistent SB_ATTEMPT=1 SB_CHUNK=0 SB_BENCH_TMP=$T SB_BIN=$SB_BIN \
	bash "$SB_SRC/tests/bench/bench_agent.sh" 11 2>&1) || rc=$?
check "bench_agent.sh in a job's environment: exit 0 (got $rc: $out)" test "$rc" -eq 0
check "bench_agent.sh: wall time beside its floor and budget" \
	grep -qE '^sbagent wall, .*added -?[0-9.]+ ms per run \((floor -?[0-9.]+ ms(, static musl floor -?[0-9.]+ ms)?|floor not measured \(no cc\)); budget 1(\.5)? ms\)' <<<"$out"
if command -v musl-gcc >/dev/null; then
	check "bench_agent.sh: the static musl floor beside the glibc one" \
		grep -qE 'floor -?[0-9.]+ ms, static musl floor -?[0-9.]+ ms;' <<<"$out"
fi
left=$(find "$T" -maxdepth 1 -name 'sbagent-bench.*' | head -n 3)
check "bench_agent.sh removes its scratch directories${left:+ (left: $left)}" test -z "$left"
check "bench_agent.sh: peak RSS beside 4 MiB" \
	grep -qE '^sbagent peak RSS, .*(added -?[0-9]+ KiB \(budget 4096 KiB\)|not measured)' <<<"$out"

finish_tests
