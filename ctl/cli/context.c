/* The context of this sbctl process: the library's defaults as the
 * environment sets them, and where the library's warnings and progress go
 * (stderr). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "cli/commands.h"
#include "cli/numarg.h"
#include "sbench/context.h"
#include "sbench/sbench.h"

static struct sb_ctx *cli_ctx;

/* When SB_AGENT did not name the sbagent the batch scripts run: the one
 * installed beside this sbctl, when there is one (else the context names
 * none, and a submit says so).  The library never looks for it itself. */
static int default_agent(struct sb_ctx *ctx, struct sb_error *err)
{
	char self[PATH_MAX], *agent;
	ssize_t n;
	int rc = 0;

	if (sb_ctx_agent(ctx) != NULL)
		return 0;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return 0;
	self[n] = '\0';
	if (asprintf(&agent, "%s/sbagent", dirname(self)) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (access(agent, X_OK) == 0)
		rc = sb_ctx_set_agent(ctx, agent, err);
	free(agent);
	return rc;
}

/* What the library tells while it works, on stderr: warnings as
 * "sbctl COMMAND: MESSAGE" lines, progress (on a terminal only) as one line
 * rewritten in place and cleared when done. */
struct cli_term {
	const char *cmd;
	bool line; /* a progress line is showing */
};

static void cli_warn(void *user, const char *msg)
{
	struct cli_term *t = user;

	if (t->line)
		fputc('\n', stderr);
	t->line = false;
	fprintf(stderr, "sbctl %s: %s\n", t->cmd, msg);
}

static void cli_progress(void *user, const char *what, size_t done, size_t total)
{
	struct cli_term *t = user;

	if (done >= total) {
		if (t->line)
			fputs("\r\033[K", stderr);
		t->line = false;
	} else {
		fprintf(stderr, "\r%s: %zu/%zu\033[K", what, done, total);
		t->line = true;
	}
	fflush(stderr);
}

static struct cli_term term;

struct sb_ctx *sb_cli_ctx(void)
{
	return cli_ctx;
}

int sb_cli_ctx_open(const char *cmd, struct sb_error *err)
{
	/* the defaults the library uses, from this process's environment:
	 * the one place sbctl reads SB_ROOT, SB_AGENT, SB_INDEX,
	 * XDG_STATE_HOME, HOME and SB_LOOKUP_WINDOW */
	cli_ctx = sb_ctx_create(err);
	if (cli_ctx == NULL || sb_ctx_load_env(cli_ctx, environ, err) < 0 ||
	    default_agent(cli_ctx, err) < 0) {
		sb_cli_ctx_close();
		return -1;
	}
	term.cmd = cmd;
	sb_ctx_set_warn(cli_ctx, cli_warn, &term);
	if (isatty(STDERR_FILENO))
		sb_ctx_set_progress(cli_ctx, cli_progress, &term);
	return 0;
}

void sb_cli_ctx_close(void)
{
	sb_ctx_destroy(cli_ctx);
	cli_ctx = NULL;
}

int sb_cli_set_settle(const char *cmd, const char *value)
{
	struct sb_error err;
	double v;

	/* 0 in the context is no settle time (0 in status opts: the context's) */
	if (sb_parse_seconds(value, 1e9, &v, &err) < 0 || sb_ctx_set_settle(cli_ctx, v, &err) < 0) {
		fprintf(stderr, "sbctl %s: --settle needs a number of seconds: %s\n", cmd, err.msg);
		return -1;
	}
	return 0;
}

int sb_cli_set_storage_lag(const char *cmd, const char *value)
{
	struct sb_error err;
	double v = SB_CTX_STORAGE_LAG_AUTO;

	if ((strcmp(value, "auto") != 0 && sb_parse_seconds(value, SB_CTX_STORAGE_LAG_MAX, &v, &err) < 0) ||
	    sb_ctx_set_storage_lag(cli_ctx, v, &err) < 0) {
		fprintf(stderr, "sbctl %s: --storage-lag needs 'auto' or a number of seconds: %s\n", cmd,
			err.msg);
		return -1;
	}
	return 0;
}

int sb_cli_status_fail(const char *cmd, const struct sb_error *err)
{
	fprintf(stderr, "sbctl %s: %s%s\n", cmd, err->msg, err->code == SB_ERR_SCHEDULER
		? " (use --offline to classify from the logs alone)" : "");
	return sb_cli_exit(err);
}

void sb_cli_status_warnings(const char *cmd, const struct sb_status *st)
{
	for (size_t i = 0; i < sb_status_warning_count(st); i++)
		fprintf(stderr, "sbctl %s: warning: %s\n", cmd, sb_status_warning(st, i));
}

int sb_cli_status(const char *cmd, const char *bench, const struct sb_status_opts *o,
		  struct sb_bench **b, struct sb_status **st)
{
	struct sb_error err = { 0 };

	*st = NULL;
	*b = sb_bench_find(cli_ctx, bench, &err);
	if (*b == NULL || sb_status_compute(cli_ctx, *b, o, st, &err) < 0) {
		sb_bench_destroy(*b);
		*b = NULL;
		return sb_cli_status_fail(cmd, &err);
	}
	sb_cli_status_warnings(cmd, *st);
	return 0;
}

int sb_cli_reused_source(const struct sb_bench *b, size_t child, FILE *out,
			 struct sb_bench **src, size_t *src_child, struct sb_error *err)
{
	char *dir = NULL;
	int rc = sb_bench_reused_from(b, child, &dir, src_child, err);

	*src = NULL;
	if (rc == 1 && (*src = sb_bench_open(dir, err)) == NULL)
		rc = -1;
	if (rc == 1)
		fprintf(out, "child %zu is reused from %s %.12s child %zu (%s)", child, sb_bench_name(*src),
			sb_bench_digest(*src), *src_child, dir);
	sb_free(dir);
	return rc;
}

void sb_cli_copy_file(const char *path, FILE *out)
{
	FILE *f = sb_fs_fopen_regular(path);
	char buf[65536];
	size_t r;

	if (f == NULL)
		return;
	while ((r = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, r, out);
	fclose(f);
}

/* a bundle is read whole; this bounds what a mistaken FILE can make us hold */
#define BUNDLE_MAX ((size_t)16 << 30)

int sb_cli_verify_bundle(const char *cmd, const char *file, const struct sb_bundle_verify_opts *vo,
			 struct sb_bundle_verdict *vd)
{
	struct sb_error err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (access(file, F_OK) != 0 && errno == ENOENT) {
		fprintf(stderr, "sbctl %s: bundle '%s' does not exist\n", cmd, file);
		return SB_EXIT_USAGE;
	}
	if (sb_fs_read_file(file, BUNDLE_MAX, &buf, &len, &err) < 0) {
		fprintf(stderr, "sbctl %s: %s\n", cmd, err.msg);
		return sb_cli_exit(&err);
	}
	rc = sb_bundle_verify(buf, len, vo, vd, &err);
	free(buf);
	if (rc < 0) {
		fprintf(stderr, "sbctl %s: %s: %s\n", cmd, file, err.msg);
		return sb_cli_exit(&err);
	}
	return SB_EXIT_OK;
}
