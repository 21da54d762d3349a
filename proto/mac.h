/* SHA-256 and HMAC-SHA256 through OpenSSL, with a reusable keyed context so
 * that verifying many small records costs no key setup per record. */
#ifndef SB_PROTO_MAC_H
#define SB_PROTO_MAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbench/error.h"

#define SB_SHA256_LEN 32
#define SB_MAC_LEN 32

/* SHA-256 of data[0..n) into out.  Returns 0, or -1 if OpenSSL fails. */
int sb_sha256(const void *data, size_t n, uint8_t out[SB_SHA256_LEN],
	struct sb_error *err);

struct sb_mac;

/* A keyed HMAC-SHA256 context; the key is copied into OpenSSL's context
 * (our copy of it is not kept).  NULL on failure. */
struct sb_mac *sb_mac_create(const uint8_t *key, size_t key_len,
	struct sb_error *err);

/* HMAC of the concatenation a[0..an) || b[0..bn) (b may be NULL) into tag.
 * The context can be used again at once.  Returns 0 or -1. */
int sb_mac_compute(struct sb_mac *m, const void *a, size_t an,
	const void *b, size_t bn, uint8_t tag[SB_MAC_LEN], struct sb_error *err);

/* 1 when the HMAC of data[0..n) equals tag (compared in constant time), 0
 * when it differs, -1 (and err) when OpenSSL could not compute it (out of
 * memory): not a verdict on the tag. */
int sb_mac_verify(struct sb_mac *m, const void *data, size_t n,
	const uint8_t tag[SB_MAC_LEN], struct sb_error *err);

/* Frees the context and wipes the key it holds.  Accepts NULL. */
void sb_mac_destroy(struct sb_mac *m);

#endif
