/* Spec templates: compiling the text of a command element or an env value
 * into literal pieces and references ({name}, {repeat}, {child}; {{ and }}
 * for the braces), and the substitution text of a parameter value with its
 * shell-quoted twin (docs/spec.md "Templates"). */
#ifndef SB_CTL_SPEC_TEMPLATE_H
#define SB_CTL_SPEC_TEMPLATE_H

#include <stddef.h>

#include "spec/spec_private.h"

/* {spec_dir}: the directory of the spec file, which sbagent puts in place
 * at run time (in argv elements, the shell string, quoted, and env
 * values); sbctl keeps the reference as written, so it is in no digest. */
#define SB_TMPL_SPEC_DIR_NAME "spec_dir"
#define SB_TMPL_SPEC_DIR "{spec_dir}"

/* Compiles len bytes of text into t (in the spec's arena), resolving each
 * reference against the spec's parameters (loaded before); line and col
 * place the errors.  0, or -1 with err filled. */
int sb_tmpl_compile(struct sb_spec *s, int line, int col, const char *text, size_t len,
		    struct sb_tmpl *t, struct sb_error *err);

/* The substitution text of v and the same in POSIX single quotes ('\''
 * for a quote), in the spec's arena.  0, or -1 with err filled. */
int sb_tmpl_value_texts(struct sb_spec *s, const struct sb_value *v, struct sb_str *text,
			struct sb_str *quoted, struct sb_error *err);

#endif
