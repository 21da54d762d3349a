/* sbctl analyze BENCH [--json|--csv] [--group-by P,...] [--metrics M,...]
 * [--offline] [--settle S] (docs/sbctl-analyze.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/analyze.h"
#include "ctl/commands.h"
#include "ctl/numarg.h"
#include "ctl/plan_json.h"
#include "proto/json.h"
#include "proto/util.h"

static const char usage_text[] =
	"usage: sbctl analyze BENCH [--json | --csv] [--group-by P,...] [--metrics M,...]\n"
	"                     [--offline] [--settle SECONDS]\n";

/* Splits a comma list in place; returns the count (at most max). */
static size_t split_list(char *s, char **out, size_t max)
{
	size_t n = 0;

	for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ","))
		if (*tok)
			out[n++] = tok;
	return n;
}

static void json_stat(struct sb_json *j, const char *key, double v)
{
	sb_json_key(j, key);
	if (isnan(v))
		sb_json_null(j);
	else
		sb_json_double(j, v);
}

static void print_json(FILE *out, const struct sb_status *st, const struct sb_analysis *a,
		       struct sb_child *pc)
{
	const struct sb_spec *spec = st->bench->spec;
	struct sb_json j;
	size_t g, k, m, c;

	sb_json_init(&j, out);
	sb_status_json_head(&j, st);
	sb_json_key(&j, "group_by");
	sb_json_arr_begin(&j);
	for (k = 0; k < a->nby; k++)
		sb_json_str(&j, sb_spec_param_name(spec, a->by[k]));
	sb_json_arr_end(&j);
	sb_json_key(&j, "counts");
	sb_status_json_counts(&j, st->counts);
	sb_json_key(&j, "groups");
	sb_json_arr_begin(&j);
	for (g = 0; g < a->ngroups; g++) {
		const struct sb_group *gr = &a->groups[g];
		sb_plan_child_params(st->bench->plan, gr->first, pc, NULL);
		sb_json_obj_begin(&j);
		sb_json_key(&j, "params");
		sb_json_obj_begin(&j);
		for (k = 0; k < a->nby; k++) {
			sb_json_key(&j, sb_spec_param_name(spec, a->by[k]));
			sb_json_spec_value(&j, sb_child_param(pc, a->by[k]));
		}
		sb_json_obj_end(&j);
		sb_json_key(&j, "n");
		sb_json_uint(&j, gr->n);
		sb_json_key(&j, "classes");
		sb_status_json_counts(&j, gr->classes);
		sb_json_key(&j, "metrics");
		sb_json_obj_begin(&j);
		for (m = 0; m < a->nmetrics; m++) {
			const struct sb_stats *s = &gr->stats[m];
			if (s->n == 0)
				continue;
			sb_json_key(&j, a->metrics[m]);
			sb_json_obj_begin(&j);
			sb_json_key(&j, "n");
			sb_json_uint(&j, s->n);
			json_stat(&j, "mean", s->mean);
			json_stat(&j, "stddev", s->stddev);
			json_stat(&j, "min", s->min);
			json_stat(&j, "median", s->median);
			json_stat(&j, "max", s->max);
			sb_json_obj_end(&j);
		}
		sb_json_obj_end(&j);
		sb_json_obj_end(&j);
	}
	sb_json_arr_end(&j);
	sb_json_key(&j, "excluded");
	sb_json_arr_begin(&j);
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		if (ch->cls == SB_CLASS_SUCCEEDED)
			continue;
		sb_json_obj_begin(&j);
		sb_json_key(&j, "index");
		sb_json_uint(&j, c);
		sb_json_key(&j, "class");
		sb_json_str(&j, sb_class_name(ch->cls));
		sb_json_key(&j, "reason");
		sb_json_str(&j, ch->reason);
		sb_json_obj_end(&j);
	}
	sb_json_arr_end(&j);
	sb_json_obj_end(&j);
	fputc('\n', out);
}

/* One CSV field, RFC 4180: quoted when it holds a comma, quote, CR or LF. */
static void csv_field(FILE *out, const char *s, int first)
{
	if (!first)
		fputc(',', out);
	if (s == NULL)
		return;
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_num(FILE *out, double v)
{
	char buf[SB_DOUBLE_TEXT_MAX];

	fputc(',', out);
	if (!isnan(v))
		fputs(sb_fmt_double(v, buf), out);
}

static void print_csv(FILE *out, const struct sb_status *st, const struct sb_analysis *a,
		      struct sb_child *pc)
{
	const struct sb_spec *spec = st->bench->spec;
	static const char *const cols[] = { "metric", "n", "mean", "stddev", "min", "median", "max" };
	size_t g, k, m;

	for (k = 0; k < a->nby; k++)
		csv_field(out, sb_spec_param_name(spec, a->by[k]), k == 0);
	for (k = 0; k < 7; k++)
		csv_field(out, cols[k], a->nby == 0 && k == 0);
	fputs("\r\n", out);
	for (g = 0; g < a->ngroups; g++) {
		sb_plan_child_params(st->bench->plan, a->groups[g].first, pc, NULL);
		for (m = 0; m < a->nmetrics; m++) {
			const struct sb_stats *s = &a->groups[g].stats[m];
			char n[32];
			for (k = 0; k < a->nby; k++) {
				char *text = sb_value_text(sb_child_param(pc, a->by[k]));
				csv_field(out, text, k == 0);
				free(text);
			}
			csv_field(out, a->metrics[m], a->nby == 0);
			snprintf(n, sizeof(n), "%zu", s->n);
			csv_field(out, n, 0);
			if (s->n == 0) {
				fputs(",,,,,", out);
			} else {
				csv_num(out, s->mean);
				csv_num(out, s->stddev);
				csv_num(out, s->min);
				csv_num(out, s->median);
				csv_num(out, s->max);
			}
			fputs("\r\n", out);
		}
	}
}

static void print_human(FILE *out, const struct sb_status *st, const struct sb_analysis *a,
			struct sb_child *pc)
{
	const struct sb_spec *spec = st->bench->spec;
	char t[5][32];
	size_t g, k, m, c, shown = 0;

	fprintf(out, "%s (%.12s): %zu children, %zu succeeded", st->bench->name, st->bench->digest,
		st->n, st->counts[SB_CLASS_SUCCEEDED]);
	for (k = 1; k < SB_CLASS_COUNT; k++)
		if (st->counts[k])
			fprintf(out, ", %zu %s", st->counts[k], sb_class_name((enum sb_class)k));
	fputs("\nstatistics over the succeeded children only\n", out);
	for (g = 0; g < a->ngroups; g++) {
		const struct sb_group *gr = &a->groups[g];
		size_t total = 0;

		for (k = 0; k < SB_CLASS_COUNT; k++)
			total += gr->classes[k];
		sb_plan_child_params(st->bench->plan, gr->first, pc, NULL);
		fputc('\n', out);
		for (k = 0; k < a->nby; k++) {
			char *text = sb_value_text(sb_child_param(pc, a->by[k]));
			fprintf(out, "%s%s=%s", k ? " " : "", sb_spec_param_name(spec, a->by[k]),
				text ? text : "?");
			free(text);
		}
		fprintf(out, "%s%zu of %zu succeeded\n", a->nby ? ": " : "", gr->n, total);
		for (m = 0; m < a->nmetrics; m++) {
			const struct sb_stats *s = &gr->stats[m];
			if (s->n == 0)
				continue;
			/* for people: 6 significant digits; --json and --csv are exact */
			snprintf(t[0], sizeof(t[0]), "%.6g", s->mean);
			snprintf(t[1], sizeof(t[1]), "%.6g", s->stddev);
			snprintf(t[2], sizeof(t[2]), "%.6g", s->min);
			snprintf(t[3], sizeof(t[3]), "%.6g", s->median);
			snprintf(t[4], sizeof(t[4]), "%.6g", s->max);
			fprintf(out, "  %-16s n=%-5zu mean=%-11s sd=%-11s min=%-11s median=%-11s max=%s\n",
				a->metrics[m], s->n, t[0], isnan(s->stddev) ? "-" : t[1], t[2], t[3], t[4]);
		}
	}
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		if (ch->cls == SB_CLASS_SUCCEEDED)
			continue;
		if (shown++ == 0)
			fputs("\nexcluded (did not succeed):\n", out);
		fprintf(out, "  %-6zu %-12s %s\n", c, sb_class_name(ch->cls), ch->reason);
	}
}

int cmd_analyze(int argc, char **argv)
{
	struct sb_status_opts o = { .ctx = sb_cli_ctx(), .settle_s = 10, .record_outcomes = true };
	struct sb_analysis an;
	struct sb_status st;
	struct sb_error err;
	struct sb_child *pc;
	char *by[SB_SPEC_MAX_PARAMS], *mets[4096], *by_arg = NULL, *met_arg = NULL;
	const char *bench = NULL;
	size_t nby = 0, nmet = 0;
	int i, json = 0, csv = 0, rc;

	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "--json")) {
			json = 1;
		} else if (!strcmp(s, "--csv")) {
			csv = 1;
		} else if (!strcmp(s, "--offline")) {
			o.offline = true;
		} else if (!strcmp(s, "--group-by") && i + 1 < argc) {
			by_arg = argv[++i];
		} else if (!strcmp(s, "--metrics") && i + 1 < argc) {
			met_arg = argv[++i];
		} else if (!strcmp(s, "--settle") && i + 1 < argc) {
			struct sb_error e;
			double v;
			if (sb_parse_seconds(argv[++i], 1e9, &v, &e) < 0) {
				fprintf(stderr, "sbctl analyze: --settle needs a number of seconds: %s\n", e.msg);
				return SB_EXIT_USAGE;
			}
			o.settle_s = (int64_t)ceil(v); /* whole seconds, never less than asked */
		} else if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			fputs(usage_text, stdout);
			return SB_EXIT_OK;
		} else if (s[0] == '-' && s[1]) {
			fprintf(stderr, "sbctl analyze: unknown option or missing value: '%s'\n%s", s, usage_text);
			return SB_EXIT_USAGE;
		} else if (bench == NULL) {
			bench = s;
		} else {
			fprintf(stderr, "sbctl analyze: more than one BENCH given\n");
			return SB_EXIT_USAGE;
		}
	}
	if (bench == NULL || (json && csv)) {
		fprintf(stderr, "sbctl analyze: %s\n%s", bench ? "--json and --csv exclude each other"
			: "missing BENCH", usage_text);
		return SB_EXIT_USAGE;
	}
	if (by_arg)
		nby = split_list(by_arg, by, SB_SPEC_MAX_PARAMS);
	if (met_arg && (nmet = split_list(met_arg, mets, 4096)) == 0) {
		fputs("sbctl analyze: --metrics needs at least one name\n", stderr);
		return SB_EXIT_USAGE;
	}
	if (isatty(STDERR_FILENO) && !json && !csv)
		o.progress = stderr;
	rc = sb_status_run(bench, &o, &st, &err);
	if (rc < 0) {
		fprintf(stderr, "sbctl analyze: %s%s\n", err.msg,
			st.sched_failed ? " (use --offline to classify from the logs alone)" : "");
		sb_status_release(&st);
		return rc == -2 ? SB_EXIT_USAGE : SB_EXIT_RUNTIME;
	}
	sb_status_print_warnings(stderr, "analyze", &st);
	if (sb_analyze(&st, by_arg ? by : NULL, nby, met_arg ? mets : NULL, nmet, &an, &err) < 0) {
		fprintf(stderr, "sbctl analyze: %s\n", err.msg);
		sb_status_release(&st);
		return SB_EXIT_USAGE;
	}
	pc = sb_child_create();
	if (pc == NULL) {
		fputs("sbctl analyze: out of memory\n", stderr);
		rc = SB_EXIT_RUNTIME;
	} else {
		if (json)
			print_json(stdout, &st, &an, pc);
		else if (csv)
			print_csv(stdout, &st, &an, pc);
		else
			print_human(stdout, &st, &an, pc);
		rc = fflush(stdout) != 0 ? SB_EXIT_RUNTIME
		     : st.counts[SB_CLASS_SUCCEEDED] == st.n ? SB_EXIT_OK : SB_EXIT_PROBLEM;
	}
	sb_child_destroy(pc);
	sb_analysis_release(&an);
	sb_status_release(&st);
	return rc;
}
