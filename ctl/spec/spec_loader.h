/* What the pieces of the spec loader share and nothing else uses: the
 * spec object's helpers (ctl/spec/spec.c) and the text of a value
 * (ctl/spec/spec_value.c).  The layout of a loaded spec is ctl/spec/spec_private.h. */
#ifndef SB_CTL_SPEC_INTERNAL_H
#define SB_CTL_SPEC_INTERNAL_H

#include <stdbool.h>

#include "spec/spec_private.h"
#include "base/suggest.h"
#include "proto/util.h"

/* "'PATH': out of memory" into err; returns -1. */
int sb_spec_oom(const struct sb_spec *spec, struct sb_error *err);

/* A parameter or environment variable name: [A-Za-z_][A-Za-z0-9_]*. */
bool sb_spec_valid_ident(const char *s);
/* A benchmark name or tag: 1 to SB_SPEC_MAX_NAME of A-Z a-z 0-9 . _ -. */
bool sb_spec_valid_name(const char *s);
/* True when s holds a control character (below 0x20, or 0x7f). */
bool sb_spec_has_control(const char *s);

/* The index of parameter name among the spec's sorted parameters, or -1. */
int sb_spec_param_index(const struct sb_spec *s, const char *name);
/* sb_suggest() over the parameter names (and "repeat" and "child" when
 * refs). */
const char *sb_spec_param_suggest(const struct sb_spec *s, const char *name, bool refs,
				  char buf[SB_SUGGEST_MAX]);

/* The text of a value with its length: a string's own bytes (not copied),
 * a number's or a bool's text written into buf. */
struct sb_str sb_value_str(const struct sb_value *v, char buf[SB_DOUBLE_TEXT_MAX]);

#endif
