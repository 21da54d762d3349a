/* SHA-256 and HMAC-SHA256 on OpenSSL's low-level SHA-256 (SHA256_Init,
 * _Update, _Final), not its EVP interface.  The low-level functions are
 * the same SHA-256 code (assembly with SHA-NI/AVX2 where the CPU has it)
 * without OpenSSL 3's provider start-up: the first EVP fetch builds the
 * algorithm tables, about 0.3 ms, a fifth of sbagent's start-up budget
 * (docs/sbagent.md, PERFORMANCE).  They are deprecated in OpenSSL 3 but
 * kept by it; the HMAC construction over them is RFC 2104's, checked
 * against RFC 4231's vectors in tests/proto/test_crypto.c. */
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "proto/mac.h"

#define BLOCK 64 /* SHA-256's block: the HMAC key pads are one block */

struct sb_mac {
	SHA256_CTX inner; /* after absorbing key ^ ipad */
	SHA256_CTX outer; /* after absorbing key ^ opad */
};

int sb_sha256(const void *data, size_t n, uint8_t out[SB_SHA256_LEN],
	struct sb_error *err)
{
	SHA256_CTX c;

	if (!SHA256_Init(&c) || !SHA256_Update(&c, data, n) || !SHA256_Final(out, &c)) {
		OPENSSL_cleanse(&c, sizeof(c));
		return sb_errorf(err, "sha-256 failed in openssl");
	}
	OPENSSL_cleanse(&c, sizeof(c));
	return 0;
}

struct sb_mac *sb_mac_create(const uint8_t *key, size_t key_len,
	struct sb_error *err)
{
	struct sb_mac *m = calloc(1, sizeof(*m));
	uint8_t k[BLOCK], pad[BLOCK];
	size_t i;
	int ok;

	if (m == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	memset(k, 0, sizeof(k));
	if (key_len > BLOCK) /* a long key is replaced by its hash (RFC 2104) */
		ok = sb_sha256(key, key_len, k, NULL) == 0;
	else {
		memcpy(k, key, key_len);
		ok = 1;
	}
	for (i = 0; i < BLOCK; i++)
		pad[i] = k[i] ^ 0x36;
	ok = ok && SHA256_Init(&m->inner) && SHA256_Update(&m->inner, pad, BLOCK);
	for (i = 0; i < BLOCK; i++)
		pad[i] = k[i] ^ 0x5c;
	ok = ok && SHA256_Init(&m->outer) && SHA256_Update(&m->outer, pad, BLOCK);
	OPENSSL_cleanse(k, sizeof(k));
	OPENSSL_cleanse(pad, sizeof(pad));
	if (!ok) {
		sb_mac_destroy(m);
		sb_errorf(err, "cannot set up hmac-sha256 in openssl");
		return NULL;
	}
	return m;
}

int sb_mac_compute(struct sb_mac *m, const void *a, size_t an,
	const void *b, size_t bn, uint8_t tag[SB_MAC_LEN], struct sb_error *err)
{
	uint8_t inner[SB_SHA256_LEN];
	SHA256_CTX c = m->inner;
	int ok;

	ok = SHA256_Update(&c, a, an) &&
	     (b == NULL || bn == 0 || SHA256_Update(&c, b, bn)) &&
	     SHA256_Final(inner, &c);
	c = m->outer;
	ok = ok && SHA256_Update(&c, inner, sizeof(inner)) && SHA256_Final(tag, &c);
	OPENSSL_cleanse(&c, sizeof(c));
	OPENSSL_cleanse(inner, sizeof(inner));
	return ok ? 0 : sb_errorf(err, "hmac-sha256 failed in openssl");
}

int sb_mac_verify(struct sb_mac *m, const void *data, size_t n,
	const uint8_t tag[SB_MAC_LEN], struct sb_error *err)
{
	uint8_t mine[SB_MAC_LEN];
	int ok;

	if (sb_mac_compute(m, data, n, NULL, 0, mine, err) < 0)
		return -1;
	ok = CRYPTO_memcmp(mine, tag, SB_MAC_LEN) == 0;
	OPENSSL_cleanse(mine, sizeof(mine));
	return ok;
}

void sb_mac_destroy(struct sb_mac *m)
{
	if (m == NULL)
		return;
	OPENSSL_cleanse(m, sizeof(*m)); /* the keyed states stand for the key */
	free(m);
}
