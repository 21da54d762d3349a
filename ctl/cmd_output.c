/* sbctl output BENCH CHILD: a child's Slurm stdout and stderr, from its run
 * directory (every attempt and restart, oldest first). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl/bench.h"
#include "ctl/commands.h"
#include "ctl/numarg.h"

struct entry {
	char name[256];
	long long mtime_ns;
};

static int by_time(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->mtime_ns != y->mtime_ns)
		return (x->mtime_ns > y->mtime_ns) - (x->mtime_ns < y->mtime_ns);
	return strcmp(x->name, y->name);
}

int cmd_output(int argc, char **argv)
{
	struct entry *v = NULL;
	struct sb_bench *b;
	struct sb_error err;
	struct dirent *d;
	char dir[PATH_MAX], path[PATH_MAX + 300], buf[65536];
	size_t n = 0, i, r;
	uint64_t child;
	DIR *dp;

	if (argc != 3 || argv[1][0] == '-') {
		int help = argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
		fputs("usage: sbctl output BENCH CHILD\n", help ? stdout : stderr);
		return help ? SB_EXIT_OK : SB_EXIT_USAGE;
	}
	if (sb_parse_uint(argv[2], SIZE_MAX, &child, &err) < 0) {
		fprintf(stderr, "sbctl output: CHILD must be a child index: %s\n", err.msg);
		return SB_EXIT_USAGE;
	}
	b = sb_bench_find(sb_cli_ctx(), argv[1], &err);
	if (b == NULL) {
		fprintf(stderr, "sbctl output: %s\n", err.msg);
		return SB_EXIT_USAGE;
	}
	if (child >= b->children) {
		fprintf(stderr, "sbctl output: CHILD must be a child index: benchmark %s has children "
			"0 to %zu, not %llu\n", b->name, b->children - 1, (unsigned long long)child);
		sb_bench_destroy(b);
		return SB_EXIT_USAGE;
	}
	snprintf(dir, sizeof(dir), "%s/runs/%llu", b->dir, (unsigned long long)child);
	sb_bench_destroy(b);
	dp = opendir(dir);
	if (dp == NULL) {
		fprintf(stderr, "sbctl output: cannot read '%s': %s\n", dir, strerror(errno));
		return SB_EXIT_RUNTIME;
	}
	while ((d = readdir(dp)) != NULL) {
		struct stat st;
		size_t len = strlen(d->d_name);
		if (strncmp(d->d_name, "slurm-", 6) != 0 || len < 10 || len >= sizeof(v->name) ||
		    (strcmp(d->d_name + len - 4, ".out") && strcmp(d->d_name + len - 4, ".err")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (stat(path, &st) < 0)
			continue;
		struct entry *nv = realloc(v, (n + 1) * sizeof(*v));
		if (nv == NULL)
			break;
		v = nv;
		snprintf(v[n].name, sizeof(v[n].name), "%s", d->d_name);
		v[n].mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
		n++;
	}
	closedir(dp);
	if (n == 0)
		printf("no Slurm output yet in %s\n", dir);
	qsort(v, n, sizeof(*v), by_time);
	for (i = 0; i < n; i++) {
		FILE *f;
		snprintf(path, sizeof(path), "%s/%s", dir, v[i].name);
		printf("== %s\n", path);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		while ((r = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, r, stdout);
		fclose(f);
	}
	free(v);
	return fflush(stdout) == 0 ? SB_EXIT_OK : SB_EXIT_RUNTIME;
}
