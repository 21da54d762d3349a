/* Canonical msgpack (DESIGN §2, docs/spec.md "Canonical msgpack"): a small
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

#include "sbench/spec.h"

struct sb_canon {
	uint8_t *buf;
	size_t len, cap, max;
	bool failed;            /* out of memory or over max: output invalid */
};

void sb_canon_init(struct sb_canon *c, size_t max);
void sb_canon_release(struct sb_canon *c);
static inline void sb_canon_reset(struct sb_canon *c) { c->len = 0; c->failed = false; }

void sb_canon_raw(struct sb_canon *c, const void *p, size_t n);
void sb_canon_nil(struct sb_canon *c);
void sb_canon_bool(struct sb_canon *c, bool b);
void sb_canon_int(struct sb_canon *c, int64_t v);
void sb_canon_double(struct sb_canon *c, double v);
void sb_canon_str(struct sb_canon *c, const char *s, size_t n);
void sb_canon_cstr(struct sb_canon *c, const char *s);
void sb_canon_bin(struct sb_canon *c, const void *p, size_t n);
void sb_canon_str_header(struct sb_canon *c, size_t n);
void sb_canon_array(struct sb_canon *c, size_t n);
void sb_canon_map(struct sb_canon *c, size_t n);
/* A spec value (int, float, bool or str). */
void sb_canon_value(struct sb_canon *c, const struct sb_value *v);

struct sb_plan;
struct sb_error;
/* For tests: the canonical msgpack whose SHA-256 is the digest of child
 * index (malloc'd, *len set), or NULL. */
uint8_t *sb_plan_child_canonical(const struct sb_plan *plan, size_t index, size_t *len,
				 struct sb_error *err);

#endif
