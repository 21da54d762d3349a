/* sbctl status BENCH [--json] [--class CLASS,...] [--offline] [--settle S] [--rehash] and
 * sbctl wait BENCH [--timeout S] [--interval S] [--settle S]
 * (docs/sbctl-status.md): <sbench/status.h> does the work. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/numarg.h"
#include "cli/options.h"
#include "sbench/sbench.h"

struct status_args {
	const char *bench;
	bool json;
	bool spans;               /* --spans: the lane's spans after the text */
	struct sb_status_opts o;
	struct sb_status_text_opts text;
};

enum { O_JSON = 1, O_OFFLINE, O_SPANS, O_REHASH, O_CLASS, O_SETTLE, O_LAG, O_TIMEOUT, O_INTERVAL };

static const struct sb_opt status_opts[] = {
	{ "json", 0, O_JSON, SB_OPT_FLAG, NULL, "the status as one JSON document (docs/cli.md)" },
	{ "class", 0, O_CLASS, SB_OPT_VALUE, "CLASS,...", "list only the children of these classes" },
	SB_CLI_OPT_OFFLINE(O_OFFLINE),
	SB_CLI_OPT_SETTLE(O_SETTLE),
	SB_CLI_OPT_STORAGE_LAG(O_LAG),
	{ "rehash", 0, O_REHASH, SB_OPT_FLAG, NULL, "hash every result file again (the local index's hashes unused)" },
	{ "spans", 0, O_SPANS, SB_OPT_FLAG, NULL, "after the text, each child's queue and run times (docs/lane.md)" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt wait_opts[] = {
	{ "timeout", 0, O_TIMEOUT, SB_OPT_VALUE, "SECONDS", "give up after this long (exit 1)" },
	{ "interval", 0, O_INTERVAL, SB_OPT_VALUE, "SECONDS", "time between two looks" },
	SB_CLI_OPT_SETTLE(O_SETTLE),
	SB_CLI_OPT_STORAGE_LAG(O_LAG),
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd status_cmd = {
	"status",
	"status BENCH [--json] [--class CLASS,...] [--offline] [--settle SECONDS]\n"
	"                          [--storage-lag SECONDS|auto] [--rehash] [--spans]",
	"Classifies every child of the benchmark BENCH (a directory, or a name or\n"
	"digest prefix the local index knows) from its logs and the scheduler.\n",
	status_opts,
	"exit status: 0 every child succeeded, 3 not every child succeeded,\n"
	"2 usage or input error, 1 runtime error\n",
};

static const struct sb_opt_cmd wait_cmd = {
	"wait",
	"wait BENCH [--timeout SECONDS] [--interval SECONDS] [--settle SECONDS]\n"
	"                        [--storage-lag SECONDS|auto]",
	"Waits until no child of BENCH is pending or running, then prints its\n"
	"status as 'sbctl status' does.\n",
	wait_opts,
	"exit status: 0 every child succeeded, 3 not every child succeeded,\n"
	"2 usage or input error, 1 runtime error or timeout\n",
};

/* A number of seconds of option opt. */
static int parse_seconds(const struct sb_opt_cmd *c, const char *opt, const char *v, double *out)
{
	struct sb_error err;

	if (sb_parse_seconds(v, 1e9, out, &err) < 0) {
		fprintf(stderr, "sbctl %s: --%s needs a number of seconds: %s\n", c->name, opt, err.msg);
		return -1;
	}
	return 0;
}

/* 0, 1 after the help, -1 after a usage error. */
static int parse_args(const struct sb_opt_cmd *c, int argc, char **argv, struct status_args *a)
{
	struct sb_opt_iter it = { 0 };
	struct sb_error err;
	const char *v;
	int k;

	memset(a, 0, sizeof(*a));
	while ((k = sb_opt_next(c, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP:
			return 1;
		case SB_OPT_ERROR:
			return -1;
		case O_JSON:
			a->json = true;
			break;
		case O_OFFLINE:
			a->o.offline = true;
			break;
		case O_SPANS:
			a->spans = true;
			break;
		case O_REHASH:
			a->o.rehash = true;
			break;
		case O_CLASS:
			if (sb_class_mask_parse(v, &a->text.classes, &err) < 0) {
				fprintf(stderr, "sbctl %s: --class: %s\n", c->name, err.msg);
				return -1;
			}
			break;
		case O_SETTLE:
			if (sb_cli_set_settle(c->name, v) < 0)
				return -1;
			break;
		case O_LAG:
			if (sb_cli_set_storage_lag(c->name, v) < 0)
				return -1;
			break;
		case O_TIMEOUT:
			if (parse_seconds(c, "timeout", v, &a->o.timeout) < 0)
				return -1;
			break;
		case O_INTERVAL:
			if (parse_seconds(c, "interval", v, &a->o.interval) < 0)
				return -1;
			break;
		case SB_OPT_OPERAND:
			if (sb_opt_operand(c, &a->bench, v, "BENCH") < 0)
				return -1;
			break;
		}
	}
	if (a->bench == NULL) {
		sb_opt_error(c, "missing BENCH (a benchmark directory, name or digest prefix)");
		return -1;
	}
	return 0;
}

/* Prints st as JSON or as text; the exit status. */
static int show(const char *cmd, const struct sb_status *st, bool json,
		const struct sb_status_text_opts *text)
{
	struct sb_error err;

	if ((json ? sb_status_render(st, SB_FORMAT_JSON, stdout, &err)
	     : sb_status_render_text(st, text, stdout, &err)) < 0) {
		fprintf(stderr, "sbctl %s: %s\n", cmd, err.msg);
		return sb_cli_exit(&err);
	}
	return sb_status_all_succeeded(st) ? SB_EXIT_OK : SB_EXIT_PROBLEM;
}

int cmd_status(int argc, char **argv)
{
	struct status_args a;
	struct sb_status *st = NULL;
	struct sb_bench *b;
	struct sb_error err;
	int rc = parse_args(&status_cmd, argc, argv, &a);

	if (rc != 0)
		return rc > 0 ? SB_EXIT_OK : SB_EXIT_USAGE;
	if (a.json)
		sb_ctx_set_progress(sb_cli_ctx(), NULL, NULL);
	if ((rc = sb_cli_status("status", a.bench, &a.o, &b, &st)) != 0)
		return rc;
	rc = show("status", st, a.json, &a.text);
	if (a.spans && !a.json && sb_status_render_spans(st, stdout, &err) < 0) /* docs/lane.md */
		rc = sb_cli_status_fail("status", &err);
	sb_status_destroy(st);
	sb_bench_destroy(b);
	return rc;
}

int cmd_wait(int argc, char **argv)
{
	struct status_args a;
	struct sb_status *st;
	struct sb_error err;
	int rc = parse_args(&wait_cmd, argc, argv, &a);

	if (rc != 0)
		return rc > 0 ? SB_EXIT_OK : SB_EXIT_USAGE;
	if (sb_status_wait(sb_cli_ctx(), a.bench, &a.o, &st, &err) < 0)
		return sb_cli_status_fail("wait", &err);
	sb_cli_status_warnings("wait", st);
	rc = show("wait", st, false, NULL);
	sb_status_destroy(st);
	return rc;
}
