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

# --- keygen --ed25519: PEM PKCS#8 private key (0600), SPKI public key,
# both accepted by openssl, a signature made with openssl verifies with the .pub
run 0 "$sbctl" keygen --ed25519 ed
[ "$(stat -c %a ed)" = 600 ] || fail "ed mode is $(stat -c %a ed)"
[ "$(stat -c %a ed.pub)" = 644 ] || fail "ed.pub mode is $(stat -c %a ed.pub)"
head -n 1 ed | grep -qx -- '-----BEGIN PRIVATE KEY-----' || fail "ed is not PEM PKCS#8: $(head -n 1 ed)"
head -n 1 ed.pub | grep -qx -- '-----BEGIN PUBLIC KEY-----' || fail "ed.pub is not PEM SPKI"
openssl pkey -in ed -noout || fail "openssl refuses ed"
openssl pkey -pubin -in ed.pub -noout || fail "openssl refuses ed.pub"
openssl pkey -in ed -text -noout | grep -q 'ED25519 Private-Key' || fail "ed is not Ed25519"
openssl pkey -in ed -pubout | cmp -s - ed.pub || fail "ed.pub is not ed's public key"
printf 'a message' >msg
openssl pkeyutl -sign -inkey ed -rawin -in msg -out msg.sig || fail "openssl cannot sign with ed"
openssl pkeyutl -verify -pubin -inkey ed.pub -rawin -in msg -sigfile msg.sig >/dev/null ||
	fail "the signature does not verify with ed.pub"
printf 'another message' >msg2
openssl pkeyutl -verify -pubin -inkey ed.pub -rawin -in msg2 -sigfile msg.sig >/dev/null 2>&1 &&
	fail "a signature verifies over another message"
ls ed.tmp.* ed.pub.tmp.* >/dev/null 2>&1 && fail "keygen --ed25519 left temporary files"
# an existing private or public key is refused, and nothing changes
cp ed ed.before; cp ed.pub ed.pub.before
run 2 "$sbctl" keygen --ed25519 ed
has err "'ed' already exists"
cmp -s ed ed.before && cmp -s ed.pub ed.pub.before || fail "keygen --ed25519 changed an existing key"
echo keep >only.pub
run 2 "$sbctl" keygen --ed25519 only
has err "'only.pub' already exists"
[ -e only ] && fail "keygen --ed25519 left a private key without its public key"
[ "$(cat only.pub)" = keep ] || fail "keygen --ed25519 changed only.pub"
ln -s ed-target edlink
run 2 "$sbctl" keygen --ed25519 edlink
[ -e ed-target ] && fail "keygen --ed25519 followed a symlink"
run 1 "$sbctl" keygen --ed25519 no/such/dir/key
has err "no/such/dir/key"
run 2 "$sbctl" keygen --ed25519
run 2 "$sbctl" keygen --ed25519=yes ed3
(umask 000; "$sbctl" keygen --ed25519 ed4) && [ "$(stat -c %a ed4)" = 600 ] || fail "ed25519 umask 000"
ls ed4.tmp.* ed4.pub.tmp.* >/dev/null 2>&1 && fail "temporary files left"
cmp -s ed ed4 && fail "two Ed25519 keys are equal"
if [ "$(id -u)" != 0 ]; then
	mkdir ro && chmod 555 ro
	run 1 "$sbctl" keygen --ed25519 ro/key
	[ -z "$(ls ro)" ] || fail "keygen --ed25519 left files in ro/: $(ls ro)"
fi

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
