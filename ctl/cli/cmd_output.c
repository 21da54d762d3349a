/* sbctl output BENCH CHILD: a child's Slurm stdout and stderr (every
 * attempt and restart, oldest first), from the chunk directories Slurm
 * writes them into: sb_bench_output finds them. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/numarg.h"
#include "cli/options.h"
#include "sbench/sbench.h"

/* A child with no Slurm output of its own that is reused from an earlier
 * benchmark: says so on stdout and gives the source run's files (*files
 * non-NULL then, even with none).  0, or -1 after a message on stderr. */
static int reused_output(const struct sb_bench *b, size_t child, char ***files, size_t *n)
{
	struct sb_bench *src = NULL;
	struct sb_error err = { 0 };
	size_t src_child = 0;
	int rc;

	*files = NULL;
	*n = 0;
	rc = sb_cli_reused_source(b, child, stdout, &src, &src_child, &err);
	if (rc == 1) {
		putchar('\n');
		if (sb_bench_output(src, src_child, NULL, files, n, &err) < 0)
			rc = -1;
	}
	if (rc < 0)
		fprintf(stderr, "sbctl output: child %zu is reused from an earlier benchmark: %s\n", child,
			err.msg);
	sb_bench_destroy(src);
	return rc < 0 ? -1 : 0;
}

static const struct sb_opt opts[] = {
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"output",
	"output BENCH CHILD",
	"Prints child CHILD's Slurm stdout and stderr, every attempt and restart,\n"
	"oldest first.\n",
	opts,
	NULL,
};

int cmd_output(int argc, char **argv)
{
	struct sb_bench *b;
	struct sb_error err;
	struct sb_opt_iter it = { 0 };
	const char *args[2] = { NULL, NULL }, *v;
	char *dir, **files;
	uint64_t child;
	size_t i, n, nargs = 0;
	int rc, k;

	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP: return SB_EXIT_OK;
		case SB_OPT_ERROR: return SB_EXIT_USAGE;
		case SB_OPT_OPERAND:
			if (nargs == 2) {
				sb_opt_error(&cmd, "unexpected argument '%s'", v);
				return SB_EXIT_USAGE;
			}
			args[nargs++] = v;
			break;
		}
	}
	if (nargs < 2) {
		sb_opt_error(&cmd, "missing %s", nargs ? "CHILD" : "BENCH and CHILD");
		return SB_EXIT_USAGE;
	}
	if (sb_parse_uint(args[1], SIZE_MAX, &child, &err) < 0) {
		fprintf(stderr, "sbctl output: CHILD must be a child index: %s\n", err.msg);
		return SB_EXIT_USAGE;
	}
	b = sb_bench_find(sb_cli_ctx(), args[0], &err);
	if (b == NULL) {
		fprintf(stderr, "sbctl output: %s\n", err.msg);
		return SB_EXIT_USAGE;
	}
	rc = sb_bench_output(b, (size_t)child, &dir, &files, &n, &err);
	if (rc < 0) {
		sb_bench_destroy(b);
		fprintf(stderr, "sbctl output: %s%s\n", err.code == SB_ERR_NOT_FOUND
			? "CHILD must be a child index: " : "", err.msg);
		return sb_cli_exit(&err);
	}
	if (n == 0) {
		sb_free(files);
		if (reused_output(b, (size_t)child, &files, &n) < 0) {
			sb_bench_destroy(b);
			sb_free(dir);
			return SB_EXIT_RUNTIME;
		}
	}
	sb_bench_destroy(b);
	if (n == 0 && files == NULL)
		printf("no Slurm output yet for child %" PRIu64 " (its run directory is %s)\n", child, dir);
	for (i = 0; i < n; i++) {
		printf("== %s\n", files[i]);
		sb_cli_copy_file(files[i], stdout);
	}
	sb_free(files);
	sb_free(dir);
	return fflush(stdout) == 0 ? SB_EXIT_OK : SB_EXIT_RUNTIME;
}
