#include <stdlib.h>
#include <string.h>

#include "ctl/arena.h"

struct sb_arena_chunk {
	struct sb_arena_chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

void *sb_arena_alloc(struct sb_arena *a, size_t n)
{
	struct sb_arena_chunk *c = a->head;
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	if (c == NULL || c->cap - c->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		c = calloc(1, sizeof(*c) + cap);
		if (c == NULL)
			return NULL;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->used;
	c->used += n;
	return p;
}

char *sb_arena_strndup(struct sb_arena *a, const char *s, size_t n)
{
	char *p = sb_arena_alloc(a, n + 1);

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
