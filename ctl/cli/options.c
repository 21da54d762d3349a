/* sbctl's one option parser (cli/options.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/suggest.h"
#include "cli/options.h"

void sb_opt_usage(const struct sb_opt_cmd *c, FILE *out)
{
	const char *p = c->usage;

	/* a line of its own for each form of the command; a line that starts
	 * with a blank goes on the form above */
	while (*p) {
		size_t n = strcspn(p, "\n");
		fprintf(out, "%s%.*s\n", p == c->usage ? "usage: sbctl " : *p == ' ' ? "" : "       sbctl ",
			(int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* "--name VALUE" or "-o, --name VALUE" as the help shows an option. */
static int opt_title(const struct sb_opt *o, char *buf, size_t size)
{
	const char *arg = o->kind == SB_OPT_FLAG ? "" : o->arg ? o->arg : "VALUE";
	char sh[8] = "";

	if (o->short_name)
		snprintf(sh, sizeof(sh), "-%c, ", o->short_name);
	return snprintf(buf, size, "%s--%s%s%s%s", sh, o->name,
			o->kind == SB_OPT_OPTIONAL ? "[=" : o->kind == SB_OPT_VALUE ? " " : "", arg,
			o->kind == SB_OPT_OPTIONAL ? "]" : "");
}

void sb_opt_help(const struct sb_opt_cmd *c, FILE *out)
{
	const struct sb_opt *o;
	int width = 10;
	char title[128];

	sb_opt_usage(c, out);
	if (c->about)
		fprintf(out, "\n%s", c->about);
	for (o = c->opts; o && o->name; o++) {
		int n = opt_title(o, title, sizeof(title));
		if (n > width)
			width = n;
	}
	fputs("\noptions:\n", out);
	for (o = c->opts; o && o->name; o++) {
		opt_title(o, title, sizeof(title));
		fprintf(out, "  %-*s  %s\n", width, title, o->help);
	}
	fprintf(out, "  %-*s  %s\n", width, "-h, --help", "this help");
	if (c->epilog)
		fprintf(out, "\n%s", c->epilog);
	fprintf(out, "\nthe full reference: man sbctl-%s\n", c->name);
}

int sb_opt_error(const struct sb_opt_cmd *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sbctl %s: ", c->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	sb_opt_usage(c, stderr);
	return SB_OPT_ERROR;
}

int sb_opt_operand(const struct sb_opt_cmd *c, const char **slot, const char *value, const char *what)
{
	if (*slot != NULL)
		return sb_opt_error(c, "more than one %s given ('%s', '%s')", what, *slot, value);
	*slot = value;
	return 0;
}

/* The closest known option's " (did you mean '--x'?)" for name[0..len)
 * ("" for none, or for a name too long to be a misspelling). */
static const char *suggestion(const struct sb_opt_cmd *c, const char *name, size_t len,
			      char buf[SB_SUGGEST_MAX])
{
	const char *cands[64];
	char dashed[64][72], word[72];
	size_t n = 0;

	buf[0] = '\0';
	if (len >= sizeof(word))
		return buf;
	memcpy(word, name, len);
	word[len] = '\0';

	for (const struct sb_opt *o = c->opts; o && o->name && n < 63; o++, n++) {
		snprintf(dashed[n], sizeof(dashed[n]), "--%s", o->name);
		cands[n] = dashed[n];
	}
	cands[n++] = "--help";
	return sb_suggest(word, cands, n, buf);
}

static const struct sb_opt *find_long(const struct sb_opt_cmd *c, const char *name, size_t len)
{
	for (const struct sb_opt *o = c->opts; o && o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static const struct sb_opt *find_short(const struct sb_opt_cmd *c, char ch)
{
	for (const struct sb_opt *o = c->opts; o && o->name; o++)
		if (o->short_name && o->short_name == ch)
			return o;
	return NULL;
}

/* What a missing value of o is called in the error ("a number of seconds"). */
static void missing_value(const struct sb_opt_cmd *c, const char *shown, const struct sb_opt *o)
{
	if (o->arg && !strcmp(o->arg, "SECONDS"))
		sb_opt_error(c, "%s needs a number of seconds: none given", shown);
	else
		sb_opt_error(c, "%s needs a value (%s): none given", shown, o->arg ? o->arg : "VALUE");
}

int sb_opt_next(const struct sb_opt_cmd *c, int argc, char **argv, struct sb_opt_iter *it,
		const char **value)
{
	const struct sb_opt *o;
	const char *a, *eq;
	char buf[SB_SUGGEST_MAX];

	*value = NULL;
	if (it->i == 0)
		it->i = 1;
	if (it->i >= argc)
		return SB_OPT_END;
	a = argv[it->i++];
	/* "-" and a negative number ("-1") are operands: the command's own
	 * check of the number then says what is wrong with it */
	if (it->operands_only || a[0] != '-' || a[1] == '\0' || (a[1] >= '0' && a[1] <= '9')) {
		*value = a;
		return SB_OPT_OPERAND;
	}
	if (!strcmp(a, "--")) {
		it->operands_only = 1;
		return sb_opt_next(c, argc, argv, it, value);
	}
	if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
		sb_opt_help(c, stdout);
		return SB_OPT_HELP;
	}
	if (a[1] != '-') { /* a short option: -o VALUE */
		if (a[2] != '\0' || (o = find_short(c, a[1])) == NULL)
			return sb_opt_error(c, "unknown option '%s'%s", a, suggestion(c, a, strlen(a), buf));
		if (o->kind != SB_OPT_VALUE)
			return o->key;
		if (it->i >= argc) {
			missing_value(c, a, o);
			return SB_OPT_ERROR;
		}
		*value = argv[it->i++];
		return o->key;
	}
	eq = strchr(a + 2, '=');
	o = find_long(c, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
	if (o == NULL) {
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		return sb_opt_error(c, "unknown option '%.*s'%s", (int)len, a, suggestion(c, a, len, buf));
	}
	switch (o->kind) {
	case SB_OPT_FLAG:
		if (eq)
			return sb_opt_error(c, "--%s takes no value (given '%s')", o->name, eq + 1);
		return o->key;
	case SB_OPT_OPTIONAL:
		*value = eq ? eq + 1 : NULL;
		return o->key;
	case SB_OPT_VALUE:
	default:
		if (eq) {
			*value = eq + 1;
		} else if (it->i < argc) {
			*value = argv[it->i++];
		} else {
			missing_value(c, a, o);
			return SB_OPT_ERROR;
		}
		return o->key;
	}
}
