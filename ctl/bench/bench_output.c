/* A child's Slurm output files (sb_bench_output, include/sbench/bench.h).
 *
 * Slurm writes a chunk's stdout and stderr into its chunk directory,
 * jobs/a<attempt>/c<k>/slurm-<array job id>_<task id>.{out,err}
 * (docs/benchmark-dir.md, "Slurm output").  So a child's files are found
 * from, for each attempt, the chunk and task id its task maps give it (a
 * binary search over the chunks: sbctl lays children out in ascending
 * order), and the array job ids whose files are in that chunk's directory.
 * What is learnt is kept in the benchmark (b->outputs), so that many
 * look-ups (a report's or a check's stderr tails) read each task map and
 * list each chunk directory at most once: an attempt's maps never change
 * once it is in place, and a chunk directory is listed again only when its mtime moved
 * (a new array job's files) or is too recent to tell (list_chunk).
 *
 * Benchmark directories of an earlier sbctl had, in c<k>/, one symlink per
 * task id to the child's run directory, where Slurm's files then were: for
 * such a chunk, the child's run directory is searched instead. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_private.h"
#include "bench/jobs.h"
#include "bench/output_cache.h"
#include "bench/reuse_record.h"
#include "bench/subm.h"

#define LISTING_SETTLED_S 2

/* The chunks of attempt into *at (their paths: an attempt without any map
 * has no chunk). */
static int count_chunks(const struct sb_bench *b, int64_t attempt, struct out_attempt *at,
			struct sb_error *err)
{
	char adir[PATH_MAX], path[PATH_MAX];

	memset(at, 0, sizeof(*at));
	if (sb_bdir_attempt(adir, sizeof(adir), b->dir, attempt) < 0)
		return sb_error_set(err, SB_ERR_RUNTIME, "benchmark directory path '%s' is too long", b->dir);
	for (size_t k = 0;; k++) {
		struct out_chunk *v;

		if (sb_bdir_chunk_file(path, sizeof(path), adir, (int64_t)k, "map") < 0)
			return sb_error_set(err, SB_ERR_RUNTIME, "path '%s' is too long", adir);
		if (access(path, F_OK) != 0)
			return 0;
		if ((v = realloc(at->chunks, (k + 1) * sizeof(*v))) == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		at->chunks = v;
		memset(&v[k], 0, sizeof(v[k]));
		at->nchunks = k + 1;
		if ((v[k].map = strdup(path)) == NULL ||
		    sb_bdir_chunk_output(path, sizeof(path), adir, (int64_t)k) < 0 ||
		    (v[k].dir = strdup(path)) == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
}

/* Reads chunk k's map (once). */
static int load_chunk(struct out_attempt *at, size_t k, struct sb_error *err)
{
	struct out_chunk *c = &at->chunks[k];

	if (c->loaded)
		return 0;
	if (sb_jobs_map_children(c->map, &c->children, &c->n, err) < 0) {
		if (err)
			err->code = SB_ERR_RUNTIME;
		return -1;
	}
	c->loaded = c->ascending = true;
	for (size_t t = 1; t < c->n; t++)
		if (c->children[t] <= c->children[t - 1])
			c->ascending = false;
	/* sbctl lays an attempt's children out in ascending order, across
	 * chunks too; anything else is looked up chunk by chunk */
	if (!c->ascending || (k > 0 && at->chunks[k - 1].loaded &&
			      at->chunks[k - 1].children[at->chunks[k - 1].n - 1] >= c->children[0]) ||
	    (k + 1 < at->nchunks && at->chunks[k + 1].loaded &&
	     at->chunks[k + 1].children[0] <= c->children[c->n - 1]))
		at->unordered = true;
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* The chunk *k and task *t of child in attempt at: 1, or 0 when it is not
 * in the attempt.  A binary search over the chunks reads about log2(chunks)
 * maps for the first look-up of a large attempt. */
static int find_task(struct out_attempt *at, size_t child, size_t *k, size_t *t,
		     struct sb_error *err)
{
	size_t lo = 0, hi = at->nchunks;

	while (!at->unordered && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct out_chunk *c = &at->chunks[mid];
		const size_t *hit;

		if (load_chunk(at, mid, err) < 0)
			return -1;
		if (at->unordered)
			break;
		if (child < c->children[0]) {
			hi = mid;
		} else if (child > c->children[c->n - 1]) {
			lo = mid + 1;
		} else {
			hit = bsearch(&child, c->children, c->n, sizeof(child), cmp_size);
			if (hit == NULL)
				return 0;
			*k = mid;
			*t = (size_t)(hit - c->children);
			return 1;
		}
	}
	if (!at->unordered)
		return 0;
	for (size_t j = 0; j < at->nchunks; j++) {
		if (load_chunk(at, j, err) < 0)
			return -1;
		for (size_t i = 0; i < at->chunks[j].n; i++)
			if (at->chunks[j].children[i] == child) {
				*k = j;
				*t = i;
				return 1;
			}
	}
	return 0;
}

/* The attempts that are in place now and were not seen before (jobs/a<N>
 * appears whole, renamed into place; one without a task map yet, from an
 * sbctl that wrote in place, is looked at again next time). */
static int load_new_attempts(const struct sb_bench *b, struct sb_output_cache *c, struct sb_error *err)
{
	char adir[PATH_MAX];

	for (;;) {
		struct out_attempt *v;

		if (sb_bdir_attempt(adir, sizeof(adir), b->dir, (int64_t)c->nattempts) < 0 ||
		    access(adir, F_OK) != 0)
			return 0;
		if ((v = realloc(c->attempts, (c->nattempts + 1) * sizeof(*v))) == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		c->attempts = v;
		if (count_chunks(b, (int64_t)c->nattempts, &v[c->nattempts], err) < 0) {
			sb_output_attempt_free(&v[c->nattempts]);
			return -1;
		}
		if (v[c->nattempts].nchunks == 0) {
			sb_output_attempt_free(&v[c->nattempts]);
			return 0;
		}
		c->nattempts++;
	}
}

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* "slurm-<A>_<t>.out|err": A into job[size]; 0, or -1 when name is not one. */
static int parse_output_name(const char *name, char *job, size_t size)
{
	size_t len = strlen(name), jl;
	const char *us;

	/* the shortest is "slurm-1_0.out": 13 bytes */
	if (strncmp(name, "slurm-", 6) != 0 || len < 13 ||
	    (strcmp(name + len - 4, ".out") != 0 && strcmp(name + len - 4, ".err") != 0))
		return -1;
	us = strchr(name + 6, '_');
	if (us == NULL || (jl = (size_t)(us - (name + 6))) == 0 || jl >= size)
		return -1;
	memcpy(job, name + 6, jl);
	job[jl] = '\0';
	return all_digits(job) ? 0 : -1;
}

/* Lists c->dir again unless its mtime is the one it had when listed. */
static int list_chunk(struct out_chunk *c, struct sb_error *err)
{
	struct stat st;
	struct dirent *d;
	DIR *dp;

	if (stat(c->dir, &st) < 0) {
		if (errno == ENOENT)
			return 0; /* no output yet, or a benchmark of an sbctl that had none */
		return sb_error_set(err, SB_ERR_RUNTIME, "cannot read '%s': %s", c->dir, strerror(errno));
	}
	if (c->listed && st.st_mtim.tv_sec == c->mtime.tv_sec && st.st_mtim.tv_nsec == c->mtime.tv_nsec)
		return 0;
	if ((dp = opendir(c->dir)) == NULL)
		return sb_error_set(err, SB_ERR_RUNTIME, "cannot read '%s': %s", c->dir, strerror(errno));
	sb_output_chunk_forget_jobs(c);
	c->legacy = false;
	while ((d = readdir(dp)) != NULL) {
		char job[32];
		size_t i;

		if (all_digits(d->d_name)) {
			c->legacy = true;
			continue;
		}
		if (parse_output_name(d->d_name, job, sizeof(job)) < 0)
			continue;
		for (i = 0; i < c->njobs && strcmp(c->jobs[i], job) != 0; i++)
			;
		if (i < c->njobs)
			continue;
		char **v = realloc(c->jobs, (c->njobs + 1) * sizeof(*v));
		if (v == NULL || (v[c->njobs] = strdup(job)) == NULL) {
			if (v)
				c->jobs = v;
			closedir(dp);
			c->listed = false;
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		}
		c->jobs = v;
		c->njobs++;
	}
	closedir(dp);
	/* a directory's mtime has the granularity of the kernel's clock tick:
	 * a file created in the same tick as the listing leaves it as it was.
	 * So a listing counts as lasting only once the directory is older
	 * than a few seconds (more than the clock skew of a shared
	 * filesystem's server, usually); until then it is listed each time */
	c->listed = st.st_mtim.tv_sec + LISTING_SETTLED_S < time(NULL);
	c->mtime = st.st_mtim;
	return 0;
}

struct entry {
	char *path;
	int64_t mtime_ns;
};

struct entries {
	struct entry *v;
	size_t n, cap;
};

/* Adds path (malloc'd, taken) when it is there. */
static int add_file(struct entries *e, char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
		free(path);
		return 0;
	}
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 8;
		struct entry *v = realloc(e->v, cap * sizeof(*v));
		if (v == NULL) {
			free(path);
			return -1;
		}
		e->v = v;
		e->cap = cap;
	}
	e->v[e->n].path = path;
	e->v[e->n].mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	e->n++;
	return 0;
}

/* The files of task in chunk c: slurm-<A>_<task>.out and .err for each
 * array job id A seen in c's directory. */
static int add_chunk_files(struct entries *e, const struct out_chunk *c, size_t task)
{
	static const char *const ext[] = { "out", "err" };
	char *path;

	for (size_t j = 0; j < c->njobs; j++)
		for (size_t x = 0; x < 2; x++) {
			if (asprintf(&path, "%s/slurm-%s_%zu.%s", c->dir, c->jobs[j], task, ext[x]) < 0 ||
			    add_file(e, path) < 0)
				return -1;
		}
	return 0;
}

/* An earlier sbctl's layout: slurm-*.out and slurm-*.err in the run dir. */
static int add_run_dir_files(struct entries *e, const char *run)
{
	struct dirent *d;
	DIR *dp = opendir(run);
	int rc = 0;

	if (dp == NULL)
		return 0; /* not made yet (the job makes it), or gone: no output there */
	while (rc == 0 && (d = readdir(dp)) != NULL) {
		char job[32], *path;

		if (parse_output_name(d->d_name, job, sizeof(job)) < 0)
			continue;
		rc = asprintf(&path, "%s/%s", run, d->d_name) < 0 ? -1 : add_file(e, path);
	}
	closedir(dp);
	return rc;
}

static int by_time(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->mtime_ns != y->mtime_ns)
		return (x->mtime_ns > y->mtime_ns) - (x->mtime_ns < y->mtime_ns);
	return strcmp(x->path, y->path);
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

/* The child's files over every attempt into e. */
static int collect(struct sb_bench *b, size_t child, const char *run, struct entries *e,
		   struct sb_error *err)
{
	struct sb_output_cache *c = b->outputs;
	bool legacy = false;

	if (c == NULL && (c = b->outputs = calloc(1, sizeof(*c))) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (load_new_attempts(b, c, err) < 0)
		return -1;
	for (size_t a = 0; a < c->nattempts; a++) {
		struct out_attempt *at = &c->attempts[a];
		struct out_chunk *ch;
		size_t k, t;
		int found = find_task(at, child, &k, &t, err);

		if (found < 0)
			return -1;
		if (found == 0)
			continue;
		ch = &at->chunks[k];
		if (list_chunk(ch, err) < 0)
			return -1;
		legacy |= ch->legacy;
		if (add_chunk_files(e, ch, t) < 0)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	if (legacy && add_run_dir_files(e, run) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	return 0;
}

/* Whether child is not a child of b (SB_ERR_NOT_FOUND in err then). */
static bool no_such_child(const struct sb_bench *b, size_t child, struct sb_error *err)
{
	if (child < b->children)
		return false;
	sb_error_set(err, SB_ERR_NOT_FOUND, "benchmark %s has children 0 to %zu, not %zu", b->name,
		     b->children - 1, child);
	return true;
}

int sb_bench_output(const struct sb_bench *b, size_t child, char **run_dir, char ***files,
		    size_t *nfiles, struct sb_error *err)
{
	struct entries e = { 0 };
	char run[PATH_MAX];
	int rc = -1;

	*files = NULL;
	if (run_dir)
		*run_dir = NULL;
	if (no_such_child(b, child, err))
		return -1;
	if (sb_bdir_run(run, sizeof(run), b->dir, (int64_t)child) < 0)
		return sb_error_set(err, SB_ERR_RUNTIME, "benchmark directory path '%s' is too long",
				    b->dir);
	/* the cache is b's own (one object is used by one thread at a time) */
	if (collect((struct sb_bench *)b, child, run, &e, err) < 0)
		goto out;
	if (e.n > 1)
		qsort(e.v, e.n, sizeof(*e.v), by_time);
	if ((*files = pack(e.v, e.n)) == NULL || (run_dir && (*run_dir = strdup(run)) == NULL)) {
		free(*files);
		*files = NULL;
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (nfiles)
		*nfiles = e.n;
	rc = 0;
out:
	for (size_t i = 0; i < e.n; i++)
		free(e.v[i].path);
	free(e.v);
	return rc;
}

int sb_bench_reused_from(const struct sb_bench *b, size_t child, char **source_dir,
			 size_t *source_child, struct sb_error *err)
{
	struct sb_subm subm = { 0 };
	size_t i;
	int rc;

	*source_dir = NULL;
	if (no_such_child(b, child, err))
		return -1;
	if (sb_subm_read_own(b, &subm, err) < 0)
		return -1;
	rc = 0;
	for (i = subm.nreuses; i-- > 0;) /* by time: the latest first */
		if (subm.reuses[i].child == (int64_t)child) {
			if ((*source_dir = strdup(subm.reuses[i].source_dir)) == NULL) {
				rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
				break;
			}
			*source_child = (size_t)subm.reuses[i].source_index;
			rc = 1;
			break;
		}
	sb_subm_release(&subm);
	return rc;
}
