/* The YAML reader of ctl/spec: YAML text to a small tree of scalars, lists
 * and mappings that keeps each node's position, and the "PATH:LINE:COL:
 * message" form of every error at a position.  Knows nothing of what a spec
 * means (ctl/spec/spec_schema.c does). */
#ifndef SB_CTL_SPEC_YAML_H
#define SB_CTL_SPEC_YAML_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "sbench/error.h"

enum sb_ynode_kind { SB_YNODE_SCALAR, SB_YNODE_SEQ, SB_YNODE_MAP };

struct sb_ynode {
	enum sb_ynode_kind kind;
	bool plain;             /* plain untagged scalar: core schema applies */
	char *text;             /* a scalar's text, NUL-terminated, no NUL inside */
	size_t len;
	int line, col;          /* 1-based */
	struct sb_ynode **kids; /* a map: key, value, key, value, ... */
	size_t nkids, cap;
};

/* Parses one YAML document of len bytes (UTF-8, or UTF-16 with a byte
 * order mark) into a tree; path names it in errors.  Mapping keys are
 * scalars and unique; nesting and sizes are bounded by the SB_SPEC_MAX_*
 * limits.  NULL with err filled on error (an empty document is one). */
struct sb_ynode *sb_ynode_parse(const char *path, const unsigned char *data, size_t len,
				struct sb_error *err);
/* Frees a tree; NULL is fine. */
void sb_ynode_free(struct sb_ynode *n);

/* Formats "PATH:LINE:COL: message" into err; returns -1. */
int sb_ynode_verrorf(struct sb_error *err, const char *path, int line, int col,
		     const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

#endif
