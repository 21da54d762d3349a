/* sbctl plan SPEC [--json]: print a spec's children, without side effects
 * (docs/sbctl-plan.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/commands.h"
#include "proto/json.h"
#include "proto/util.h"
#include "sbench/plan.h"
#include "sbench/spec.h"

static void usage(FILE *out)
{
	fputs("usage: sbctl plan SPEC [--json]\n"
	      "\n"
	      "Expands the benchmark spec SPEC into its children and prints them:\n"
	      "a table (index, digest, repeat, parameters) by default, or the JSON\n"
	      "document of docs/sbctl-plan.md with --json.  Nothing is written or\n"
	      "submitted.\n", out);
}

static void json_value(struct sb_json *j, const struct sb_value *v)
{
	switch (v->type) {
	case SB_VALUE_INT: sb_json_int(j, v->u.i); break;
	case SB_VALUE_FLOAT: sb_json_double(j, v->u.f); break;
	case SB_VALUE_BOOL: sb_json_bool(j, v->u.b); break;
	case SB_VALUE_STR: sb_json_strn(j, v->u.str.s, v->u.str.len); break;
	}
}

static int print_json(const struct sb_plan *plan, struct sb_child *ch, FILE *out,
		      struct sb_error *err)
{
	const struct sb_spec *spec = sb_plan_spec(plan);
	size_t n = sb_plan_count(plan), i, k, np = sb_spec_param_count(spec);
	struct sb_json j;

	sb_json_init(&j, out);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "format");
	sb_json_int(&j, 1);
	sb_json_key(&j, "benchmark");
	sb_json_obj_begin(&j);
	sb_json_key(&j, "name");
	sb_json_str(&j, sb_spec_name(spec));
	sb_json_key(&j, "tag");
	sb_json_str(&j, sb_spec_tag(spec));
	sb_json_key(&j, "digest");
	sb_json_str(&j, sb_plan_benchmark_digest_hex(plan));
	sb_json_key(&j, "children");
	sb_json_uint(&j, n);
	sb_json_obj_end(&j);
	sb_json_key(&j, "children");
	sb_json_arr_begin(&j);
	for (i = 0; i < n; i++) {
		if (sb_plan_child(plan, i, ch, err) < 0)
			return -1;
		sb_json_obj_begin(&j);
		sb_json_key(&j, "index");
		sb_json_uint(&j, i);
		sb_json_key(&j, "digest");
		sb_json_str(&j, sb_child_digest_hex(ch));
		sb_json_key(&j, "params");
		sb_json_obj_begin(&j);
		for (k = 0; k < np; k++) {
			sb_json_key(&j, sb_spec_param_name(spec, k));
			json_value(&j, sb_child_param(ch, k));
		}
		sb_json_obj_end(&j);
		sb_json_key(&j, "repeat");
		sb_json_int(&j, sb_child_repeat(ch));
		sb_json_key(&j, "command");
		if (sb_child_is_shell(ch)) {
			sb_json_str(&j, sb_child_shell(ch));
		} else {
			sb_json_arr_begin(&j);
			for (k = 0; k < sb_child_argc(ch); k++)
				sb_json_str(&j, sb_child_argv(ch)[k]);
			sb_json_arr_end(&j);
		}
		sb_json_obj_end(&j);
	}
	sb_json_arr_end(&j);
	sb_json_obj_end(&j);
	fputc('\n', out);
	if (sb_json_error(&j))
		return sb_errorf(err, "cannot write the output");
	return 0;
}

/* A string value in the table: bare when it is plain, else quoted. */
static void table_str(FILE *out, const char *s, size_t n)
{
	size_t i;

	if (n > 0 && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/:+@%,") == n) {
		fwrite(s, 1, n, out);
		return;
	}
	fputc('"', out);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static int print_table(const struct sb_plan *plan, struct sb_child *ch, FILE *out,
		       struct sb_error *err)
{
	const struct sb_spec *spec = sb_plan_spec(plan);
	size_t n = sb_plan_count(plan), i, k, np = sb_spec_param_count(spec);
	char buf[SB_DOUBLE_TEXT_MAX];

	fprintf(out, "benchmark  %s", sb_spec_name(spec));
	if (sb_spec_tag(spec))
		fprintf(out, " (tag %s)", sb_spec_tag(spec));
	fprintf(out, "\ndigest     %s\nchildren   %zu\n\n", sb_plan_benchmark_digest_hex(plan), n);
	fprintf(out, "%-8s %-12s %-6s %s\n", "INDEX", "DIGEST", "REPEAT", "PARAMS");
	for (i = 0; i < n; i++) {
		if (sb_plan_child(plan, i, ch, err) < 0)
			return -1;
		fprintf(out, "%-8zu %.12s %-6" PRId64 " ", i, sb_child_digest_hex(ch), sb_child_repeat(ch));
		for (k = 0; k < np; k++) {
			const struct sb_value *v = sb_child_param(ch, k);
			fprintf(out, "%s%s=", k ? " " : "", sb_spec_param_name(spec, k));
			switch (v->type) {
			case SB_VALUE_INT: fprintf(out, "%" PRId64, v->u.i); break;
			case SB_VALUE_FLOAT: fputs(sb_fmt_double(v->u.f, buf), out); break;
			case SB_VALUE_BOOL: fputs(v->u.b ? "true" : "false", out); break;
			case SB_VALUE_STR: table_str(out, v->u.str.s, v->u.str.len); break;
			}
		}
		if (np == 0)
			fputs("-", out);
		fputc('\n', out);
	}
	if (ferror(out))
		return sb_errorf(err, "cannot write the output");
	return 0;
}

int cmd_plan(int argc, char **argv)
{
	const char *path = NULL;
	bool json = false;
	struct sb_error err = { { 0 } };
	struct sb_spec *spec;
	struct sb_plan *plan;
	struct sb_child *ch;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return SB_EXIT_OK;
		} else if (!strcmp(argv[i], "--") && i + 1 < argc && path == NULL && i + 2 == argc) {
			path = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			fprintf(stderr, "sbctl plan: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return SB_EXIT_USAGE;
		} else if (path == NULL) {
			path = argv[i];
		} else {
			fprintf(stderr, "sbctl plan: more than one spec given ('%s')\n", argv[i]);
			usage(stderr);
			return SB_EXIT_USAGE;
		}
	}
	if (path == NULL) {
		fputs("sbctl plan: no spec given\n", stderr);
		usage(stderr);
		return SB_EXIT_USAGE;
	}
	spec = sb_spec_load(path, &err);
	if (spec == NULL) {
		fprintf(stderr, "%s\n", err.msg);
		return SB_EXIT_USAGE;
	}
	plan = sb_plan_create(spec, &err);
	if (plan == NULL) {
		fprintf(stderr, "%s\n", err.msg);
		sb_spec_destroy(spec);
		return SB_EXIT_USAGE;
	}
	for (i = 0; (size_t)i < sb_plan_warning_count(plan); i++)
		fprintf(stderr, "%s\n", sb_plan_warning(plan, (size_t)i));
	ch = sb_child_create();
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	if (ch == NULL)
		rc = sb_errorf(&err, "out of memory");
	else if (json)
		rc = print_json(plan, ch, stdout, &err);
	else
		rc = print_table(plan, ch, stdout, &err);
	if (fflush(stdout) != 0 && rc == 0)
		rc = sb_errorf(&err, "cannot write the output");
	sb_child_destroy(ch);
	sb_plan_destroy(plan);
	sb_spec_destroy(spec);
	if (rc < 0) {
		fprintf(stderr, "sbctl plan: %s\n", err.msg);
		return SB_EXIT_RUNTIME;
	}
	return SB_EXIT_OK;
}
