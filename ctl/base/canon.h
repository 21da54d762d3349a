/* Canonical msgpack (docs/spec.md "Canonical msgpack"): a small
 * writer into a bounded growing buffer.  Integers take their shortest
 * encoding (non-negative: fixint/uint8/16/32/64; negative: negative
 * fixint/int8/16/32/64), floats are always float64, strings are str with the
 * shortest str header, byte strings bin.  The caller writes map keys in
 * sorted order.  The same bytes msgpack-c's packer writes (tests check). */
#ifndef SB_CTL_CANON_H
#define SB_CTL_CANON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>


struct sb_canon {
	uint8_t *buf;
	size_t len, cap, max;
	bool failed;            /* out of memory or over max: output invalid */
};

void sb_canon_init(struct sb_canon *c, size_t max);
void sb_canon_release(struct sb_canon *c);
static inline void sb_canon_reset(struct sb_canon *c) { c->len = 0; c->failed = false; }

uint8_t *sb_canon_reserve_slow(struct sb_canon *c, size_t n);

static inline uint8_t *sb_canon_reserve(struct sb_canon *c, size_t n)
{
	if (!c->failed && c->buf != NULL && c->cap - c->len >= n) {
		c->len += n;
		return c->buf + c->len - n;
	}
	return sb_canon_reserve_slow(c, n);
}

/* p NULL: reserve n bytes for the caller to fill. */
static inline void sb_canon_raw(struct sb_canon *c, const void *p, size_t n)
{
	uint8_t *d = sb_canon_reserve(c, n);

	if (d != NULL && n > 0 && p != NULL)
		memcpy(d, p, n);
}

static inline void sb_canon_put_be(uint8_t *d, uint64_t v, int bytes)
{
	int i;

	for (i = bytes - 1; i >= 0; i--) {
		d[i] = (uint8_t)(v & 0xff);
		v >>= 8;
	}
}

/* A one-byte tag followed by a big-endian value of 0, 1, 2, 4 or 8 bytes. */
static inline void sb_canon_tagged(struct sb_canon *c, uint8_t tag, uint64_t v, int bytes)
{
	uint8_t *d = sb_canon_reserve(c, 1 + (size_t)bytes);

	if (d == NULL)
		return;
	d[0] = tag;
	sb_canon_put_be(d + 1, v, bytes);
}

static inline void sb_canon_nil(struct sb_canon *c) { sb_canon_tagged(c, 0xc0, 0, 0); }
static inline void sb_canon_bool(struct sb_canon *c, bool b) { sb_canon_tagged(c, b ? 0xc3 : 0xc2, 0, 0); }

static inline void sb_canon_int(struct sb_canon *c, int64_t v)
{
	if (v >= 0) {
		uint64_t u = (uint64_t)v;
		if (u < 0x80)
			sb_canon_tagged(c, (uint8_t)u, 0, 0);
		else if (u <= 0xff)
			sb_canon_tagged(c, 0xcc, u, 1);
		else if (u <= 0xffff)
			sb_canon_tagged(c, 0xcd, u, 2);
		else if (u <= 0xffffffffu)
			sb_canon_tagged(c, 0xce, u, 4);
		else
			sb_canon_tagged(c, 0xcf, u, 8);
	} else if (v >= -32) {
		sb_canon_tagged(c, (uint8_t)(0xe0 | (uint8_t)(v + 32)), 0, 0);
	} else if (v >= INT8_MIN) {
		sb_canon_tagged(c, 0xd0, (uint64_t)v, 1);
	} else if (v >= INT16_MIN) {
		sb_canon_tagged(c, 0xd1, (uint64_t)v, 2);
	} else if (v >= INT32_MIN) {
		sb_canon_tagged(c, 0xd2, (uint64_t)v, 4);
	} else {
		sb_canon_tagged(c, 0xd3, (uint64_t)v, 8);
	}
}

static inline void sb_canon_double(struct sb_canon *c, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	sb_canon_tagged(c, 0xcb, bits, 8);
}

static inline void sb_canon_str_header(struct sb_canon *c, size_t n)
{
	if (n < 32)
		sb_canon_tagged(c, (uint8_t)(0xa0 | n), 0, 0);
	else if (n <= 0xff)
		sb_canon_tagged(c, 0xd9, n, 1);
	else if (n <= 0xffff)
		sb_canon_tagged(c, 0xda, n, 2);
	else if (n <= 0xffffffffu)
		sb_canon_tagged(c, 0xdb, n, 4);
	else
		c->failed = true;
}

static inline void sb_canon_str(struct sb_canon *c, const char *s, size_t n)
{
	sb_canon_str_header(c, n);
	sb_canon_raw(c, s, n);
}

static inline void sb_canon_cstr(struct sb_canon *c, const char *s)
{
	sb_canon_str(c, s, strlen(s));
}

static inline void sb_canon_bin(struct sb_canon *c, const void *p, size_t n)
{
	if (n <= 0xff)
		sb_canon_tagged(c, 0xc4, n, 1);
	else if (n <= 0xffff)
		sb_canon_tagged(c, 0xc5, n, 2);
	else if (n <= 0xffffffffu)
		sb_canon_tagged(c, 0xc6, n, 4);
	else
		c->failed = true;
	sb_canon_raw(c, p, n);
}

static inline void sb_canon_array(struct sb_canon *c, size_t n)
{
	if (n < 16)
		sb_canon_tagged(c, (uint8_t)(0x90 | n), 0, 0);
	else if (n <= 0xffff)
		sb_canon_tagged(c, 0xdc, n, 2);
	else if (n <= 0xffffffffu)
		sb_canon_tagged(c, 0xdd, n, 4);
	else
		c->failed = true;
}

static inline void sb_canon_map(struct sb_canon *c, size_t n)
{
	if (n < 16)
		sb_canon_tagged(c, (uint8_t)(0x80 | n), 0, 0);
	else if (n <= 0xffff)
		sb_canon_tagged(c, 0xde, n, 2);
	else if (n <= 0xffffffffu)
		sb_canon_tagged(c, 0xdf, n, 4);
	else
		c->failed = true;
}

/* A map key and its value: a str, or nil when v is NULL. */
static inline void sb_canon_key_cstr(struct sb_canon *c, const char *key, const char *v)
{
	sb_canon_cstr(c, key);
	if (v != NULL)
		sb_canon_cstr(c, v);
	else
		sb_canon_nil(c);
}

#endif
