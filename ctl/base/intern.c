/* Interned strings (ctl/base/intern.h): an open-addressing set of copies kept in
 * an arena, grown at half full. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/intern.h"

uint64_t sb_str_hash(const char *s) /* FNV-1a */
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int grow(struct sb_intern *in)
{
	size_t cap = in->cap ? 2 * in->cap : 64, i, k;
	const char **v = calloc(cap, sizeof(*v));

	if (v == NULL)
		return -1;
	for (i = 0; i < in->cap; i++) {
		if (in->slots[i] == NULL)
			continue;
		for (k = sb_str_hash(in->slots[i]) & (cap - 1); v[k]; k = (k + 1) & (cap - 1))
			;
		v[k] = in->slots[i];
	}
	free(in->slots);
	in->slots = v;
	in->cap = cap;
	return 0;
}

const char *sb_intern(struct sb_intern *in, const char *s)
{
	size_t k;
	char *copy;

	if (s == NULL)
		return NULL;
	if (2 * (in->n + 1) > in->cap && grow(in) < 0)
		return NULL;
	for (k = sb_str_hash(s) & (in->cap - 1); in->slots[k]; k = (k + 1) & (in->cap - 1))
		if (!strcmp(in->slots[k], s))
			return in->slots[k];
	if ((copy = sb_arena_strndup(&in->arena, s, strlen(s))) == NULL)
		return NULL;
	in->slots[k] = copy;
	in->n++;
	return copy;
}

void sb_intern_release(struct sb_intern *in)
{
	sb_arena_release(&in->arena);
	free(in->slots);
	in->slots = NULL;
	in->cap = in->n = 0;
}
