/* A bump allocator: many small allocations that are freed all at once (a
 * loaded spec lives in one).  Not thread-safe; one owner at a time. */
#ifndef SB_CTL_ARENA_H
#define SB_CTL_ARENA_H

#include <stddef.h>

struct sb_arena {
	struct sb_arena_chunk *head;
};

/* n zeroed bytes aligned to 16, valid until sb_arena_release; NULL on OOM. */
void *sb_arena_alloc(struct sb_arena *a, size_t n);
/* The n bytes at s and a NUL, in the arena; NULL on OOM. */
char *sb_arena_strndup(struct sb_arena *a, const char *s, size_t n);
/* Frees every allocation; the arena is empty and usable again. */
void sb_arena_release(struct sb_arena *a);

/* Grows the array *p of *cap elements of size bytes to hold want (doubling
 * from 16): 0, or -1 when out of memory (*p and *cap unchanged). */
int sb_grow(void **p, size_t *cap, size_t want, size_t size);

#endif
