#!/usr/bin/env bash
# sbctl keygen, and key-file weaknesses refused by sbctl log (the real binary).
. "$(dirname "$0")/../cli-lib.sh"
tamper=${SB_BUILD:?}/tests/sbtamper
golden=${SB_TEST_DATA:?}/golden

# --- keygen
run 0 "$sbctl" keygen k1
[ "$(stat -c %a k1)" = 600 ] || fail "k1 mode is $(stat -c %a k1)"
[ "$(stat -c %s k1)" = 32 ] || fail "k1 size is $(stat -c %s k1)"
cp k1 k1.before
run 2 "$sbctl" keygen k1
has err "already exists"
cmp -s k1 k1.before || fail "keygen changed an existing key"
run 0 "$sbctl" keygen k2
cmp -s k1 k2 && fail "two keys are equal"
ln -s target-file link
run 2 "$sbctl" keygen link
[ -e target-file ] && fail "keygen followed a symlink"
run 1 "$sbctl" keygen no/such/dir/key
run 2 "$sbctl" keygen
run 2 "$sbctl" keygen a b
run 0 "$sbctl" keygen --help
(umask 077; "$sbctl" keygen k3) && [ "$(stat -c %a k3)" = 600 ] || fail "umask 077"
(umask 000; "$sbctl" keygen k4) && [ "$(stat -c %a k4)" = 600 ] || fail "umask 000"

# --- sbctl log refuses weak key files, each with its own message
cp "$golden/log-4.sbe" a.log
"$tamper" golden-key key
run 0 "$sbctl" log a.log --key key
ln -s key keylink
run 2 "$sbctl" log a.log --key keylink
has err "symbolic link"
cp key group && chmod 640 group
run 2 "$sbctl" log a.log --key group
has err "chmod 600 group"
cp key other && chmod 604 other
run 2 "$sbctl" log a.log --key other
has err "chmod 600 other"
head -c 31 key >short && chmod 600 short
run 2 "$sbctl" log a.log --key short
has err "is 31 bytes long, not 32"
mkdir keydir
run 2 "$sbctl" log a.log --key keydir
has err "not a regular file"
if [ "$(id -u)" = 0 ]; then
	cp key nobody && chown 65534 nobody
	run 2 "$sbctl" log a.log --key nobody
	has err "not by you"
fi
# in a benchmark directory the key comes from keys/hmac.key, with the same checks
mkdir -p bench/keys bench/events
cp key bench/keys/hmac.key && chmod 644 bench/keys/hmac.key
cp a.log bench/events/
run 2 "$sbctl" log bench
has err "bench/keys/hmac.key"
chmod 600 bench/keys/hmac.key
run 0 "$sbctl" log bench

finish sbctl_keygen
