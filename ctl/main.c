/* sbctl: a table of commands, one file each. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/commands.h"
#include "sbench/context.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "keygen", cmd_keygen, "write a new HMAC key file" },
	{ "log", cmd_log, "list and verify event logs" },
	{ "plan", cmd_plan, "expand a benchmark spec into its children" },
	{ "submit", cmd_submit, "submit a benchmark's children as job arrays" },
	{ "status", cmd_status, "classify every child of a benchmark" },
	{ "analyze", cmd_analyze, "statistics over the children that succeeded" },
	{ "report", cmd_report, "write a self-contained HTML report of a benchmark" },
	{ "rerun", cmd_rerun, "submit new attempts for children of chosen classes" },
	{ "cancel", cmd_cancel, "cancel a benchmark's pending and running jobs" },
	{ "output", cmd_output, "print a child's Slurm stdout and stderr" },
	{ "wait", cmd_wait, "wait until no child is pending or running" },
	{ "watch", cmd_watch, "show a benchmark's records live as its agents write them" },
	{ "list", cmd_list, "list the benchmarks the local index knows" },
	{ "index", cmd_index, "rebuild the local index from benchmark directories" },
	{ "forget", cmd_forget, "remove a benchmark from the local index (not its directory)" },
};

static void usage(FILE *out)
{
	size_t i;

	fputs("usage: sbctl COMMAND [ARGS...]\n\ncommands:\n", out);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fputs("\n'sbctl COMMAND --help' describes a command; docs/cli.md has the full reference.\n", out);
}

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

struct sb_ctx *sb_cli_ctx(void)
{
	return cli_ctx;
}

int main(int argc, char **argv)
{
	struct sb_error err = { 0 };
	size_t i;
	int rc;

	if (argc < 2) {
		usage(stderr);
		return SB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return SB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("sbctl %s\n", SB_VERSION);
		return SB_EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		/* the defaults the library uses, from this process's environment:
		 * the one place sbctl reads SB_ROOT, SB_AGENT, SB_INDEX,
		 * XDG_STATE_HOME, HOME and SB_LOOKUP_WINDOW */
		cli_ctx = sb_ctx_create(&err);
		if (cli_ctx == NULL || sb_ctx_load_env(cli_ctx, environ, &err) < 0 ||
		    default_agent(cli_ctx, &err) < 0) {
			fprintf(stderr, "sbctl: %s\n", err.msg);
			sb_ctx_destroy(cli_ctx);
			return sb_cli_exit(&err);
		}
		struct cli_term term = { .cmd = commands[i].name };
		sb_ctx_set_warn(cli_ctx, cli_warn, &term);
		if (isatty(STDERR_FILENO))
			sb_ctx_set_progress(cli_ctx, cli_progress, &term);
		rc = commands[i].fn(argc - 1, argv + 1);
		sb_ctx_destroy(cli_ctx);
		return rc;
	}
	fprintf(stderr, "sbctl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return SB_EXIT_USAGE;
}
