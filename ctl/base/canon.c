#include <stdlib.h>
#include <string.h>

#include "base/canon.h"

void sb_canon_init(struct sb_canon *c, size_t max)
{
	*c = (struct sb_canon){ .max = max };
}

void sb_canon_release(struct sb_canon *c)
{
	free(c->buf);
	*c = (struct sb_canon){ 0 };
}

uint8_t *sb_canon_reserve_slow(struct sb_canon *c, size_t n)
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
