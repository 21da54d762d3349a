/* sbctl log PATH|BENCH [--child N] [--key KEYFILE] [--head HEAD] [--json]:
 * list and verify event logs (docs/sbctl-log.md).  The work is
 * sb_logview_verify's; this file parses, resolves BENCH, and maps the
 * summary to the exit status. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "sbench/bench.h"
#include "sbench/context.h"
#include "sbench/logview.h"
#include "sbench/sbench.h"

enum { O_CHILD = 1, O_KEY, O_HEAD, O_JSON };

static const struct sb_opt opts[] = {
	{ "child", 0, O_CHILD, SB_OPT_VALUE, "N", "only the logs of child N (a benchmark directory)" },
	{ "key", 0, O_KEY, SB_OPT_VALUE, "KEYFILE", "the HMAC key file (32 bytes, mode 0600)" },
	{ "head", 0, O_HEAD, SB_OPT_VALUE, "HEAD", "COUNT:TAGHEX seen before; report rollback if the log ends before it or disagrees with it (one file only)" },
	{ "json", 0, O_JSON, SB_OPT_FLAG, NULL, "one JSON object per record, then summary lines" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"log",
	"log PATH|BENCH [--child N] [--key KEYFILE] [--head HEAD] [--json]",
	"Lists and verifies an event log file, or every log of a benchmark\n"
	"directory (PATH at or below it; the key is then read from its\n"
	"keys/hmac.key unless --key is given).  BENCH: a benchmark's name or\n"
	"digest prefix known to the local index.  Files come in child order.\n",
	opts,
	"exit status: 0 all verified, 3 a problem found, 2 usage or input error,\n"
	"1 I/O error\n",
};

static void print_note(void *arg, enum sb_logview_note kind, const char *msg)
{
	(void)arg;
	fprintf(stderr, "sbctl log: %s%s\n", kind == SB_LOGVIEW_NOTE_WARNING ? "warning: " : "", msg);
}

/* A child index: decimal digits only. */
static int parse_child(const char *s, int64_t *child)
{
	char *end;
	long long v;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*child = v;
	return 0;
}

/* Child o->child of the benchmark directory path has no log of its own: when
 * it is reused from an earlier benchmark, says so and verifies the logs of
 * its run there instead (with that benchmark's key, unless --key), into
 * *sum.  0 (also when it is not reused, or path is no benchmark), or -1
 * with err. */
static int reused_logs(const char *path, struct sb_logview_opts *o, struct sb_logview_summary *sum,
		       struct sb_error *err)
{
	struct sb_bench *b = sb_bench_open(path, NULL), *src = NULL;
	/* the JSON lines stay records and summaries: the note goes to stderr there */
	FILE *note = o->format == SB_FORMAT_JSON ? stderr : stdout;
	size_t src_child = 0;
	int rc;

	if (b == NULL)
		return 0;
	rc = sb_cli_reused_source(b, (size_t)o->child, note, &src, &src_child, err);
	if (rc == 1) {
		fputs(": the logs of its run there\n", note);
		o->child = (int64_t)src_child;
		rc = sb_logview_verify(sb_bench_dir(src), o, stdout, sum, err);
	}
	sb_bench_destroy(src);
	sb_bench_destroy(b);
	return rc < 0 ? -1 : 0;
}

static int exit_for(enum sb_error_code code)
{
	return code == SB_ERR_INPUT || code == SB_ERR_NOT_FOUND ? SB_EXIT_USAGE : SB_EXIT_RUNTIME;
}

int cmd_log(int argc, char **argv)
{
	struct sb_logview_opts o = { .note = print_note, .threads = sb_ctx_threads(sb_cli_ctx()) };
	struct sb_logview_summary sum;
	struct sb_error err = { 0 };
	const char *path = NULL, *child = NULL, *v;
	struct sb_opt_iter it = { 0 };
	char *benchdir = NULL;
	struct stat st;
	static char outbuf[1 << 16];
	int k, rc;

	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP: return SB_EXIT_OK;
		case SB_OPT_ERROR: return SB_EXIT_USAGE;
		case O_JSON: o.format = SB_FORMAT_JSON; break;
		case O_KEY: o.key_path = v; break;
		case O_HEAD: o.head = v; break;
		case O_CHILD: child = v; break;
		case SB_OPT_OPERAND:
			if (sb_opt_operand(&cmd, &path, v, "PATH") < 0)
				return SB_EXIT_USAGE;
			break;
		}
	}
	if (path == NULL) {
		sb_opt_error(&cmd, "missing PATH or BENCH");
		return SB_EXIT_USAGE;
	}
	if (child != NULL) {
		if (parse_child(child, &o.child) < 0) {
			fprintf(stderr, "sbctl log: --child must be a child index (decimal digits), "
				"not '%s'\n", child);
			return SB_EXIT_USAGE;
		}
		o.has_child = true;
	}
	if (stat(path, &st) < 0 && errno == ENOENT && strchr(path, '/') == NULL) {
		/* not a path: a benchmark's name or digest prefix, as for status */
		struct sb_bench *b = sb_bench_find(sb_cli_ctx(), path, &err);
		if (b == NULL) {
			fprintf(stderr, "sbctl log: %s\n", err.msg);
			return SB_EXIT_USAGE;
		}
		benchdir = strdup(sb_bench_dir(b));
		sb_bench_destroy(b);
		if (benchdir == NULL) {
			fputs("sbctl log: out of memory\n", stderr);
			return SB_EXIT_RUNTIME;
		}
		path = benchdir;
	}
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	rc = sb_logview_verify(path, &o, stdout, &sum, &err);
	if (rc == 0 && o.has_child && sum.files == 0)
		rc = reused_logs(path, &o, &sum, &err);
	free(benchdir);
	if (rc < 0) {
		fflush(stdout);
		fprintf(stderr, "sbctl log: %s\n", err.msg);
		return exit_for(err.code);
	}
	if (sum.io_errors > 0)
		return SB_EXIT_RUNTIME;
	if (sum.tail != SB_LOG_TAIL_OK || sum.verified != sum.records)
		return SB_EXIT_PROBLEM;
	return SB_EXIT_OK;
}
