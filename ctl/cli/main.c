/* sbctl: a table of commands, one file each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/suggest.h"
#include "cli/commands.h"

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
	{ "export", cmd_export, "write a signed in-toto bundle of a benchmark" },
	{ "verify", cmd_verify, "check a signed bundle with the public key alone" },
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
	fputs("\n'sbctl COMMAND --help' describes a command; 'man sbctl' has the full reference\n"
	      "(and 'man sbctl-COMMAND' each command's, 'man sbench-spec' the spec's).\n", out);
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
		if (sb_cli_ctx_open(commands[i].name, &err) < 0) {
			fprintf(stderr, "sbctl: %s\n", err.msg);
			return sb_cli_exit(&err);
		}
		rc = commands[i].fn(argc - 1, argv + 1);
		sb_cli_ctx_close();
		return rc;
	}
	{
		const char *names[sizeof(commands) / sizeof(commands[0])];
		char buf[SB_SUGGEST_MAX];

		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			names[i] = commands[i].name;
		fprintf(stderr, "sbctl: unknown command '%s'%s\n", argv[1],
			sb_suggest(argv[1], names, i, buf));
	}
	usage(stderr);
	return SB_EXIT_USAGE;
}
