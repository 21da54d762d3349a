#include <stdlib.h>
#include <string.h>

#include "ctl/canon.h"

void sb_canon_init(struct sb_canon *c, size_t max)
{
	*c = (struct sb_canon){ .max = max };
}

void sb_canon_release(struct sb_canon *c)
{
	free(c->buf);
	*c = (struct sb_canon){ 0 };
}

static uint8_t *reserve(struct sb_canon *c, size_t n)
{
	if (c->failed)
		return NULL;
	if (n > c->max - c->len || c->len > c->max) {
		c->failed = true;
		return NULL;
	}
	if (c->len + n > c->cap) {
		size_t cap = c->cap ? c->cap : 256;
		uint8_t *p;
		while (cap < c->len + n)
			cap *= 2;
		if (cap > c->max)
			cap = c->max;
		p = realloc(c->buf, cap);
		if (p == NULL) {
			c->failed = true;
			return NULL;
		}
		c->buf = p;
		c->cap = cap;
	}
	c->len += n;
	return c->buf + c->len - n;
}

void sb_canon_raw(struct sb_canon *c, const void *p, size_t n)
{
	uint8_t *d = reserve(c, n);

	if (d != NULL && n > 0)
		memcpy(d, p, n);
}

static void put_be(uint8_t *d, uint64_t v, int bytes)
{
	int i;

	for (i = bytes - 1; i >= 0; i--) {
		d[i] = (uint8_t)(v & 0xff);
		v >>= 8;
	}
}

/* A one-byte tag followed by a big-endian value of 0, 1, 2, 4 or 8 bytes. */
static void tagged(struct sb_canon *c, uint8_t tag, uint64_t v, int bytes)
{
	uint8_t *d = reserve(c, 1 + (size_t)bytes);

	if (d == NULL)
		return;
	d[0] = tag;
	put_be(d + 1, v, bytes);
}

void sb_canon_nil(struct sb_canon *c) { tagged(c, 0xc0, 0, 0); }
void sb_canon_bool(struct sb_canon *c, bool b) { tagged(c, b ? 0xc3 : 0xc2, 0, 0); }

void sb_canon_int(struct sb_canon *c, int64_t v)
{
	if (v >= 0) {
		uint64_t u = (uint64_t)v;
		if (u < 0x80)
			tagged(c, (uint8_t)u, 0, 0);
		else if (u <= 0xff)
			tagged(c, 0xcc, u, 1);
		else if (u <= 0xffff)
			tagged(c, 0xcd, u, 2);
		else if (u <= 0xffffffffu)
			tagged(c, 0xce, u, 4);
		else
			tagged(c, 0xcf, u, 8);
	} else if (v >= -32) {
		tagged(c, (uint8_t)(0xe0 | (uint8_t)(v + 32)), 0, 0);
	} else if (v >= INT8_MIN) {
		tagged(c, 0xd0, (uint64_t)v, 1);
	} else if (v >= INT16_MIN) {
		tagged(c, 0xd1, (uint64_t)v, 2);
	} else if (v >= INT32_MIN) {
		tagged(c, 0xd2, (uint64_t)v, 4);
	} else {
		tagged(c, 0xd3, (uint64_t)v, 8);
	}
}

void sb_canon_double(struct sb_canon *c, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	tagged(c, 0xcb, bits, 8);
}

void sb_canon_str_header(struct sb_canon *c, size_t n)
{
	if (n < 32)
		tagged(c, (uint8_t)(0xa0 | n), 0, 0);
	else if (n <= 0xff)
		tagged(c, 0xd9, n, 1);
	else if (n <= 0xffff)
		tagged(c, 0xda, n, 2);
	else if (n <= 0xffffffffu)
		tagged(c, 0xdb, n, 4);
	else
		c->failed = true;
}

void sb_canon_str(struct sb_canon *c, const char *s, size_t n)
{
	sb_canon_str_header(c, n);
	sb_canon_raw(c, s, n);
}

void sb_canon_cstr(struct sb_canon *c, const char *s)
{
	sb_canon_str(c, s, strlen(s));
}

void sb_canon_bin(struct sb_canon *c, const void *p, size_t n)
{
	if (n <= 0xff)
		tagged(c, 0xc4, n, 1);
	else if (n <= 0xffff)
		tagged(c, 0xc5, n, 2);
	else if (n <= 0xffffffffu)
		tagged(c, 0xc6, n, 4);
	else
		c->failed = true;
	sb_canon_raw(c, p, n);
}

void sb_canon_array(struct sb_canon *c, size_t n)
{
	if (n < 16)
		tagged(c, (uint8_t)(0x90 | n), 0, 0);
	else if (n <= 0xffff)
		tagged(c, 0xdc, n, 2);
	else if (n <= 0xffffffffu)
		tagged(c, 0xdd, n, 4);
	else
		c->failed = true;
}

void sb_canon_map(struct sb_canon *c, size_t n)
{
	if (n < 16)
		tagged(c, (uint8_t)(0x80 | n), 0, 0);
	else if (n <= 0xffff)
		tagged(c, 0xde, n, 2);
	else if (n <= 0xffffffffu)
		tagged(c, 0xdf, n, 4);
	else
		c->failed = true;
}

void sb_canon_value(struct sb_canon *c, const struct sb_value *v)
{
	switch (v->type) {
	case SB_VALUE_INT: sb_canon_int(c, v->u.i); break;
	case SB_VALUE_FLOAT: sb_canon_double(c, v->u.f); break;
	case SB_VALUE_BOOL: sb_canon_bool(c, v->u.b); break;
	case SB_VALUE_STR: sb_canon_str(c, v->u.str.s, v->u.str.len); break;
	default: c->failed = true; break;
	}
}
