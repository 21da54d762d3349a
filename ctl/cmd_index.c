/* sbctl index --rebuild DIR...: rebuild the local index's list of
 * benchmarks from benchmark directories (docs/sbctl-index.md). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl/bench.h"
#include "ctl/commands.h"
#include "sbench/context.h"
#include "ctl/index.h"

static int add(struct sb_index *idx, const char *dir, size_t *n)
{
	struct sb_error err;
	struct sb_bench *b = sb_bench_open(dir, &err);
	struct sb_index_bench ib;
	int rc;

	if (b == NULL) {
		fprintf(stderr, "sbctl index: skipping '%s': %s\n", dir, err.msg);
		return 0;
	}
	ib = (struct sb_index_bench){ b->name, b->digest, b->dir, b->created_ns };
	rc = sb_index_put_bench(idx, &ib, &err);
	if (rc < 0)
		fprintf(stderr, "sbctl index: %s\n", err.msg);
	else
		printf("%s %.12s %s\n", b->name, b->digest, b->dir);
	sb_bench_destroy(b);
	*n += rc == 0;
	return rc;
}

/* DIR is a benchmark directory, or a root holding benchmark directories. */
static int scan(struct sb_index *idx, const char *dir, size_t *n)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/benchmark.msgpack", dir);
	if (access(path, F_OK) == 0)
		return add(idx, dir, n);
	dp = opendir(dir);
	if (dp == NULL) {
		perror(dir);
		return -1;
	}
	while ((d = readdir(dp)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/benchmark.msgpack", dir, d->d_name);
		if (access(path, F_OK) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (add(idx, path, n) < 0)
			rc = -1;
	}
	closedir(dp);
	return rc;
}

int cmd_index(int argc, char **argv)
{
	struct sb_error err;
	struct sb_index *idx;
	size_t n = 0;
	int i, rc = 0;

	if (argc < 3 || strcmp(argv[1], "--rebuild") != 0) {
		fputs("usage: sbctl index --rebuild DIR...\n\n"
		      "Forgets the benchmarks the local index knows and adds those found in\n"
		      "each DIR: a benchmark directory, or a root holding some.\n",
		      argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr);
		return argc == 2 && !strcmp(argv[1], "--help") ? SB_EXIT_OK : SB_EXIT_USAGE;
	}
	for (i = 2; i < argc; i++) {
		if (access(argv[i], F_OK) != 0) {
			fprintf(stderr, "sbctl index: '%s': no such directory\n", argv[i]);
			return SB_EXIT_USAGE;
		}
	}
	idx = sb_index_open(sb_ctx_index(sb_cli_ctx()), NULL, &err);
	if (idx == NULL || sb_index_clear_benches(idx, &err) < 0) {
		fprintf(stderr, "sbctl index: %s\n", err.msg);
		sb_index_close(idx);
		return SB_EXIT_RUNTIME;
	}
	for (i = 2; i < argc; i++)
		if (scan(idx, argv[i], &n) < 0)
			rc = -1;
	sb_index_close(idx);
	fprintf(stderr, "sbctl index: %zu benchmark%s indexed\n", n, n == 1 ? "" : "s");
	return rc < 0 ? SB_EXIT_RUNTIME : SB_EXIT_OK;
}
