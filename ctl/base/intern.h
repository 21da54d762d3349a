/* Interned strings: one copy of each distinct text, for the texts that
 * repeat across a benchmark's children (a scheduler row's job name and node
 * list, a pending reason).  The copies live until sb_intern_release. */
#ifndef SB_CTL_INTERN_H
#define SB_CTL_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

struct sb_intern {
	struct sb_arena arena;   /* the copies */
	const char **slots;      /* open addressing, NULL free */
	size_t cap, n;
};

/* FNV-1a of the NUL-terminated s: the hash of the tables of strings. */
uint64_t sb_str_hash(const char *s);

/* The one copy of s (NULL for NULL), or NULL when out of memory. */
const char *sb_intern(struct sb_intern *in, const char *s);

/* Frees every copy; the table is empty and usable again. */
void sb_intern_release(struct sb_intern *in);

#endif
