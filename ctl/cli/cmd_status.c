/* sbctl status BENCH [--json] [--class CLASS,...] [--offline] [--settle S] [--rehash] and
 * sbctl wait BENCH [--timeout S] [--interval S] [--settle S]
 * (docs/sbctl-status.md): <sbench/status.h> does the work. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/numarg.h"
#include "sbench/sbench.h"

struct status_args {
	const char *bench;
	bool json;
	bool spans;               /* --spans: the lane's spans after the text */
	struct sb_status_opts o;
	struct sb_status_text_opts text;
};

static int parse_seconds(const char *cmd, const char *opt, const char *v, double *out)
{
	struct sb_error err;

	if (v == NULL || sb_parse_seconds(v, 1e9, out, &err) < 0) {
		fprintf(stderr, "sbctl %s: %s needs a number of seconds: %s\n", cmd, opt,
			v ? err.msg : "none given");
		return -1;
	}
	return 0;
}

static int parse_args(const char *cmd, int argc, char **argv, struct status_args *a, bool wait)
{
	struct sb_error err;
	double settle;
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "--json") && !wait) {
			a->json = true;
		} else if (!strcmp(s, "--offline") && !wait) {
			a->o.offline = true;
		} else if (!strcmp(s, "--spans") && !wait) {
			a->spans = true;
		} else if (!strcmp(s, "--rehash") && !wait) {
			a->o.rehash = true;
		} else if (!strcmp(s, "--class") && !wait) {
			if (i + 1 >= argc) {
				fprintf(stderr, "sbctl %s: --class needs CLASS,...\n", cmd);
				return -1;
			}
			if (sb_class_mask_parse(argv[++i], &a->text.classes, &err) < 0) {
				fprintf(stderr, "sbctl %s: --class: %s\n", cmd, err.msg);
				return -1;
			}
		} else if (!strcmp(s, "--settle")) {
			if (parse_seconds(cmd, s, i + 1 < argc ? argv[++i] : NULL, &settle) < 0)
				return -1;
			/* the context's: 0 there is no settle time, 0 in opts "the context's" */
			if (sb_ctx_set_settle(sb_cli_ctx(), settle, &err) < 0) {
				fprintf(stderr, "sbctl %s: --settle: %s\n", cmd, err.msg);
				return -1;
			}
		} else if (!strcmp(s, "--timeout") && wait) {
			if (parse_seconds(cmd, s, i + 1 < argc ? argv[++i] : NULL, &a->o.timeout) < 0)
				return -1;
		} else if (!strcmp(s, "--interval") && wait) {
			if (parse_seconds(cmd, s, i + 1 < argc ? argv[++i] : NULL, &a->o.interval) < 0)
				return -1;
		} else if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			return 1;
		} else if (s[0] == '-' && s[1]) {
			fprintf(stderr, "sbctl %s: unknown option '%s'\n", cmd, s);
			return -1;
		} else if (a->bench == NULL) {
			a->bench = s;
		} else {
			fprintf(stderr, "sbctl %s: more than one BENCH given\n", cmd);
			return -1;
		}
	}
	if (a->bench == NULL) {
		fprintf(stderr, "sbctl %s: missing BENCH (a benchmark directory, name or digest prefix)\n", cmd);
		return -1;
	}
	return 0;
}

/* Prints the status's warnings, then st as JSON or as text; the exit
 * status. */
static int show(const char *cmd, const struct sb_status *st, bool json,
		const struct sb_status_text_opts *text)
{
	struct sb_error err;
	size_t i;

	for (i = 0; i < sb_status_warning_count(st); i++)
		fprintf(stderr, "sbctl %s: warning: %s\n", cmd, sb_status_warning(st, i));
	if ((json ? sb_status_render(st, SB_FORMAT_JSON, stdout, &err)
	     : sb_status_render_text(st, text, stdout, &err)) < 0) {
		fprintf(stderr, "sbctl %s: %s\n", cmd, err.msg);
		return sb_cli_exit(&err);
	}
	return sb_status_all_succeeded(st) ? SB_EXIT_OK : SB_EXIT_PROBLEM;
}

/* A failed status or wait: the message, with a hint when the scheduler
 * did not answer; the exit status. */
static int fail(const char *cmd, const struct sb_error *err)
{
	fprintf(stderr, "sbctl %s: %s%s\n", cmd, err->msg, err->code == SB_ERR_SCHEDULER
		? " (use --offline to classify from the logs alone)" : "");
	return sb_cli_exit(err);
}

int cmd_status(int argc, char **argv)
{
	struct status_args a;
	struct sb_status *st = NULL;
	struct sb_bench *b;
	struct sb_error err;
	int rc = parse_args("status", argc, argv, &a, false);

	if (rc != 0) {
		fputs("usage: sbctl status BENCH [--json] [--class CLASS,...] [--offline] [--settle SECONDS]\n"
		      "                          [--rehash] [--spans]\n",
		      rc > 0 ? stdout : stderr);
		return rc > 0 ? SB_EXIT_OK : SB_EXIT_USAGE;
	}
	if (a.json)
		sb_ctx_set_progress(sb_cli_ctx(), NULL, NULL);
	b = sb_bench_find(sb_cli_ctx(), a.bench, &err);
	if (b == NULL || sb_status_compute(sb_cli_ctx(), b, &a.o, &st, &err) < 0) {
		rc = fail("status", &err);
		sb_bench_destroy(b);
		return rc;
	}
	rc = show("status", st, a.json, &a.text);
	if (a.spans && !a.json && sb_status_render_spans(st, stdout, &err) < 0) /* docs/lane.md */
		rc = fail("status", &err);
	sb_status_destroy(st);
	sb_bench_destroy(b);
	return rc;
}

int cmd_wait(int argc, char **argv)
{
	struct status_args a;
	struct sb_status *st;
	struct sb_error err;
	int rc = parse_args("wait", argc, argv, &a, true);

	if (rc != 0) {
		fputs("usage: sbctl wait BENCH [--timeout SECONDS] [--interval SECONDS] [--settle SECONDS]\n",
		      rc > 0 ? stdout : stderr);
		return rc > 0 ? SB_EXIT_OK : SB_EXIT_USAGE;
	}
	if (sb_status_wait(sb_cli_ctx(), a.bench, &a.o, &st, &err) < 0)
		return fail("wait", &err);
	rc = show("wait", st, false, NULL);
	sb_status_destroy(st);
	return rc;
}
