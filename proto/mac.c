#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "proto/mac.h"

struct sb_mac {
	EVP_MAC *mac;
	EVP_MAC_CTX *ctx;
};

int sb_sha256(const void *data, size_t n, uint8_t out[SB_SHA256_LEN],
	struct sb_error *err)
{
	unsigned int len = 0;

	if (!EVP_Digest(data, n, out, &len, EVP_sha256(), NULL) ||
	    len != SB_SHA256_LEN)
		return sb_errorf(err, "sha-256 failed in openssl");
	return 0;
}

struct sb_mac *sb_mac_create(const uint8_t *key, size_t key_len,
	struct sb_error *err)
{
	struct sb_mac *m = calloc(1, sizeof(*m));
	OSSL_PARAM params[2];

	if (m == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
		(char *)"SHA256", 0);
	params[1] = OSSL_PARAM_construct_end();
	m->mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (m->mac != NULL)
		m->ctx = EVP_MAC_CTX_new(m->mac);
	/* Keyed once here; every later EVP_MAC_init(ctx, NULL, ...) reuses the
	 * prepared inner and outer pads. */
	if (m->ctx == NULL || !EVP_MAC_init(m->ctx, key, key_len, params)) {
		sb_mac_destroy(m);
		sb_errorf(err, "cannot set up hmac-sha256 in openssl");
		return NULL;
	}
	return m;
}

int sb_mac_compute(struct sb_mac *m, const void *a, size_t an,
	const void *b, size_t bn, uint8_t tag[SB_MAC_LEN], struct sb_error *err)
{
	size_t len = 0;

	if (!EVP_MAC_init(m->ctx, NULL, 0, NULL) ||
	    !EVP_MAC_update(m->ctx, a, an) ||
	    (b != NULL && bn > 0 && !EVP_MAC_update(m->ctx, b, bn)) ||
	    !EVP_MAC_final(m->ctx, tag, &len, SB_MAC_LEN) || len != SB_MAC_LEN)
		return sb_errorf(err, "hmac-sha256 failed in openssl");
	return 0;
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
	EVP_MAC_CTX_free(m->ctx); /* cleanses the key material it holds */
	EVP_MAC_free(m->mac);
	free(m);
}
