#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"

struct sb_arena_chunk {
	struct sb_arena_chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

/* n bytes at a multiple of align (a power of two, at most 16) */
static void *take(struct sb_arena *a, size_t n, size_t align)
{
	struct sb_arena_chunk *c = a->head;
	size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
	void *p;

	if (n == 0)
		n = 1;
	if (c == NULL || c->cap < at || c->cap - at < n) {
		struct sb_arena_chunk *big;
		if (n > SIZE_MAX - sizeof(*c) - 65536)
			return NULL;
		if (n > 16384 && c != NULL) {
			/* a chunk of its own, behind the current one: whose room
			 * is not given up for it */
			if ((big = calloc(1, sizeof(*big) + n)) == NULL)
				return NULL;
			big->cap = big->used = n;
			big->next = c->next;
			c->next = big;
			return big->data;
		}
		c = calloc(1, sizeof(*c) + (n > 65536 ? n : 65536));
		if (c == NULL)
			return NULL;
		c->cap = n > 65536 ? n : 65536;
		c->next = a->head;
		a->head = c;
		at = 0;
	}
	p = c->data + at;
	c->used = at + n;
	return p;
}

void *sb_arena_alloc(struct sb_arena *a, size_t n)
{
	return take(a, n, 16);
}

char *sb_arena_strndup(struct sb_arena *a, const char *s, size_t n)
{
	/* a text needs no alignment: a million short ones would waste a
	 * third of their room rounded up to 16 */
	char *p = n < SIZE_MAX ? take(a, n + 1, 1) : NULL;

	if (p != NULL) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

void sb_arena_release(struct sb_arena *a)
{
	struct sb_arena_chunk *c = a->head, *next;

	for (; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
}

int sb_grow(void **p, size_t *cap, size_t want, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (want <= *cap)
		return 0;
	while (n < want)
		n *= 2;
	q = realloc(*p, n * size);
	if (q == NULL)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}
