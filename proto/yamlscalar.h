/* YAML 1.2 core-schema resolution of a plain scalar: the one owner of the
 * rule that turns the text of an unquoted, untagged scalar into null, a
 * bool, an int64, a finite double or a string (docs/spec.md "Values: the
 * YAML 1.2 core schema").  Pure text in, no allocation, no libyaml: quoted,
 * block and !!str scalars are strings and never come here.
 *
 *   [-+]?[0-9]+                 int, base 10 ("007" is 7)
 *   0o[0-7]+   0x[0-9a-fA-F]+   int, base 8 / 16 (no sign)
 *   [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?   float
 *   true True TRUE false False FALSE                      bool
 *   null Null NULL ~ and the empty text                   null
 *   anything else                                         string
 *
 * Refused, each with its own kind so that callers word their errors: an
 * integer outside int64, a signed or unsigned .inf/.Inf/.INF, .nan/.NaN/.NAN,
 * a float that overflows a double, and a float that rounds to zero from a
 * non-zero text.  -0.0 resolves to 0.0; subnormals are fine. */
#ifndef SB_PROTO_YAMLSCALAR_H
#define SB_PROTO_YAMLSCALAR_H

#include <stdbool.h>
#include <stdint.h>

enum sb_yamlscalar_kind {
	SB_YAMLSCALAR_NULL,
	SB_YAMLSCALAR_BOOL,
	SB_YAMLSCALAR_INT,
	SB_YAMLSCALAR_FLOAT,
	SB_YAMLSCALAR_STR,         /* the text itself is the value */
	/* refused: */
	SB_YAMLSCALAR_INT_RANGE,   /* an integer outside int64 */
	SB_YAMLSCALAR_INF,         /* .inf, signed or not */
	SB_YAMLSCALAR_NAN,         /* .nan */
	SB_YAMLSCALAR_FLOAT_RANGE, /* overflows a double (1e999) */
	SB_YAMLSCALAR_FLOAT_ZERO,  /* reads as 0 from a non-zero text (1e-999) */
};

struct sb_yamlscalar {
	enum sb_yamlscalar_kind kind;
	int base;               /* SB_YAMLSCALAR_INT and _INT_RANGE: 8, 10 or 16 */
	union {
		bool b;
		int64_t i;
		double f;
	} u;
};

/* Resolves the NUL-terminated text of a plain scalar into *out and returns
 * out->kind.  Never fails otherwise; thread-safe. */
enum sb_yamlscalar_kind sb_yamlscalar_resolve(const char *text, struct sb_yamlscalar *out);

#endif
