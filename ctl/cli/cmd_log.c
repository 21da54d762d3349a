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
#include "sbench/bench.h"
#include "sbench/context.h"
#include "sbench/logview.h"

static const char log_usage[] =
	"usage: sbctl log PATH|BENCH [--child N] [--key KEYFILE] [--head HEAD] [--json]\n"
	"\n"
	"Lists and verifies an event log file, or every log of a benchmark\n"
	"directory (PATH at or below it; the key is then read from its\n"
	"keys/hmac.key unless --key is given).  BENCH: a benchmark's name or\n"
	"digest prefix known to the local index.  Files come in child order.\n"
	"\n"
	"  --child N      only the logs of child N (a benchmark directory)\n"
	"  --key KEYFILE  the HMAC key file (32 bytes, mode 0600)\n"
	"  --head HEAD    COUNT:TAGHEX seen before; report rollback if the log\n"
	"                 ends before it or disagrees with it (one file only)\n"
	"  --json         one JSON object per record, then summary lines\n"
	"\n"
	"exit status: 0 all verified, 3 a problem found, 2 usage or input error,\n"
	"1 I/O error\n";

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

static int exit_for(enum sb_error_code code)
{
	return code == SB_ERR_INPUT || code == SB_ERR_NOT_FOUND ? SB_EXIT_USAGE : SB_EXIT_RUNTIME;
}

int cmd_log(int argc, char **argv)
{
	struct sb_logview_opts o = { .note = print_note, .threads = sb_ctx_threads(sb_cli_ctx()) };
	struct sb_logview_summary sum;
	struct sb_error err = { 0 };
	const char *path = NULL, *child = NULL;
	char *benchdir = NULL;
	struct stat st;
	static char outbuf[1 << 16];
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(log_usage, stdout);
			return SB_EXIT_OK;
		} else if (!strcmp(argv[i], "--json")) {
			o.format = SB_FORMAT_JSON;
		} else if (!strcmp(argv[i], "--key") && i + 1 < argc) {
			o.key_path = argv[++i];
		} else if (!strncmp(argv[i], "--key=", 6)) {
			o.key_path = argv[i] + 6;
		} else if (!strcmp(argv[i], "--head") && i + 1 < argc) {
			o.head = argv[++i];
		} else if (!strncmp(argv[i], "--head=", 7)) {
			o.head = argv[i] + 7;
		} else if (!strcmp(argv[i], "--child") && i + 1 < argc) {
			child = argv[++i];
		} else if (!strncmp(argv[i], "--child=", 8)) {
			child = argv[i] + 8;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			fprintf(stderr, "sbctl log: unknown option or missing value: '%s'\n", argv[i]);
			fputs(log_usage, stderr);
			return SB_EXIT_USAGE;
		} else if (path == NULL) {
			path = argv[i];
		} else {
			fprintf(stderr, "sbctl log: more than one PATH given ('%s', '%s')\n", path, argv[i]);
			return SB_EXIT_USAGE;
		}
	}
	if (path == NULL) {
		fputs(log_usage, stderr);
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
