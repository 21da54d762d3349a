/* A child's Slurm output files (sb_bench_output, include/sbench/bench.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl/bench.h"

struct entry {
	char *path;
	int64_t mtime_ns;
};

static int by_time(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->mtime_ns != y->mtime_ns)
		return (x->mtime_ns > y->mtime_ns) - (x->mtime_ns < y->mtime_ns);
	return strcmp(x->path, y->path);
}

/* slurm-<...>.out or slurm-<...>.err */
static int is_output(const char *name)
{
	size_t len = strlen(name);

	return strncmp(name, "slurm-", 6) == 0 && len >= 10 &&
	       (!strcmp(name + len - 4, ".out") || !strcmp(name + len - 4, ".err"));
}

/* The entries as one block: the pointers, NULL, then the strings. */
static char **pack(const struct entry *v, size_t n)
{
	size_t i, size = (n + 1) * sizeof(char *);
	char **out, *p;

	for (i = 0; i < n; i++)
		size += strlen(v[i].path) + 1;
	if ((out = malloc(size)) == NULL)
		return NULL;
	p = (char *)(out + n + 1);
	for (i = 0; i < n; i++) {
		size_t len = strlen(v[i].path) + 1;
		out[i] = memcpy(p, v[i].path, len);
		p += len;
	}
	out[n] = NULL;
	return out;
}

int sb_bench_output(const struct sb_bench *b, size_t child, char **run_dir, char ***files,
		    size_t *nfiles, struct sb_error *err)
{
	struct entry *v = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *d;
	char run[PATH_MAX], *dir;
	DIR *dp;
	int rc = -1;

	*files = NULL;
	if (run_dir)
		*run_dir = NULL;
	if (child >= b->children)
		return sb_error_set(err, SB_ERR_NOT_FOUND, "benchmark %s has children 0 to %zu, not %zu",
				    b->name, b->children - 1, child);
	if (sb_bdir_run(run, sizeof(run), b->dir, (int64_t)child) < 0)
		return sb_error_set(err, SB_ERR_RUNTIME, "benchmark directory path '%s' is too long",
				    b->dir);
	if ((dir = strdup(run)) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if ((dp = opendir(dir)) == NULL) {
		sb_error_set(err, SB_ERR_RUNTIME, "cannot read '%s': %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	while ((d = readdir(dp)) != NULL) {
		struct stat st;
		char *path;

		if (!is_output(d->d_name))
			continue;
		if (asprintf(&path, "%s/%s", dir, d->d_name) < 0)
			goto oom;
		if (stat(path, &st) < 0) {
			free(path);
			continue;
		}
		if (n == cap) {
			struct entry *nv = realloc(v, (cap ? 2 * cap : 8) * sizeof(*v));
			if (nv == NULL) {
				free(path);
				goto oom;
			}
			v = nv;
			cap = cap ? 2 * cap : 8;
		}
		v[n].path = path;
		v[n].mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
		n++;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), by_time);
	if ((*files = pack(v, n)) == NULL)
		goto oom;
	if (nfiles)
		*nfiles = n;
	if (run_dir) {
		*run_dir = dir;
		dir = NULL;
	}
	rc = 0;
	goto out;
oom:
	sb_error_set(err, SB_ERR_NOMEM, "out of memory");
out:
	closedir(dp);
	for (i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	free(dir);
	return rc;
}
