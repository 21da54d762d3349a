/* sb_logview_verify: the logs of a path read, verified and rendered
 * (include/sbench/logview.h, docs/sbctl-log.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench_private.h"
#include "log/logfiles.h"
#include "log/logview_private.h"
#include "base/parallel.h"
#include "sbench/key.h"
#include "sbench/logview.h"

/* What one call works with. */
struct check {
	const char *path;
	const struct sb_logview_opts *o;
	FILE *out;
	bool is_dir;
	char *benchdir;          /* canonical, or NULL outside a benchmark */
	struct sb_log_head head;
	struct sb_run_ident want;
	struct sb_log_expect expect;
	char digest[65];
	struct sb_key key;       /* loaded by make_verifier */
	bool has_key;
	struct sb_logfiles files;
	struct sb_logview_summary *sum;
};

static int code(struct sb_error *err, enum sb_error_code c)
{
	if (err != NULL)
		err->code = c;
	return -1;
}

#define NOTE(c, kind, ...) sb_logfiles_note((c)->o->note, (c)->o->note_arg, kind, __VA_ARGS__)

/* The path, the head and the child: what can be refused before reading. */
static int check_args(struct check *c, struct sb_error *err)
{
	struct stat st;

	if (c->path == NULL)
		return sb_error_set(err, SB_ERR_INPUT, "no path given");
	if (c->o->format != SB_FORMAT_TEXT && c->o->format != SB_FORMAT_JSON)
		return sb_error_set(err, SB_ERR_INPUT, "logs are rendered as text or JSON, not "
				    "format %d", (int)c->o->format);
	if (stat(c->path, &st) < 0)
		return sb_error_set(err, errno == ENOENT || errno == ENOTDIR ? SB_ERR_NOT_FOUND :
				    SB_ERR_INPUT, "cannot read '%s': %s", c->path, strerror(errno));
	c->is_dir = S_ISDIR(st.st_mode);
	if (c->o->head != NULL) {
		if (c->is_dir)
			return sb_error_set(err, SB_ERR_INPUT, "--head applies to one log file, "
					    "and '%s' is a directory", c->path);
		if (sb_log_head_parse(c->o->head, &c->head, err) < 0)
			return code(err, SB_ERR_INPUT);
		c->expect.head = &c->head;
	}
	if (c->o->has_child && !c->is_dir)
		return sb_error_set(err, SB_ERR_INPUT, "--child selects among the logs of a "
				    "benchmark directory, and '%s' is a file", c->path);
	return 0;
}

/* Every log of a benchmark must name it: a file spliced in from another
 * benchmark is then foreign.  With a child selected, the record must be
 * there, and the child one of its children. */
static int check_bench(struct check *c, struct sb_error *err)
{
	struct sb_error berr = { 0 };
	struct sb_bench *b = NULL;
	struct stat st;
	bool has_rec = false;
	char *rec;
	int rc = 0;

	if (c->benchdir != NULL) {
		if ((rec = sb_logfiles_join(c->benchdir, SB_BENCH_RECORD)) == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		has_rec = stat(rec, &st) == 0;
		free(rec);
	}
	/* a benchmark directory of someone else's, or writable by others, is
	 * refused as every command refuses it */
	if (has_rec && sb_bench_check_dir(c->benchdir, err) < 0) {
		if (err != NULL)
			err->code = SB_ERR_INPUT;
		return -1;
	}
	if (has_rec && (b = sb_bench_open(c->benchdir, &berr)) == NULL) {
		if (c->o->has_child) {
			if (err != NULL)
				*err = berr;
			return sb_error_prefix(err, "cannot select a child");
		}
		NOTE(c, SB_LOGVIEW_NOTE_WARNING, "%s; logs are checked without the "
		     "benchmark's digest", berr.msg);
	}
	if (b != NULL) {
		snprintf(c->digest, sizeof(c->digest), "%s", b->digest);
		c->want.bench = c->digest;
		c->expect.id = &c->want;
	}
	if (!c->o->has_child) {
		/* nothing more to check */
	} else if (b == NULL) {
		rc = sb_error_set(err, SB_ERR_INPUT, "--child needs a benchmark: '%s' is not in a "
				  "benchmark directory with a %s", c->path, SB_BENCH_RECORD);
	} else if (c->o->child < 0 || (uint64_t)c->o->child >= b->children) {
		if (b->children == 0)
			rc = sb_error_set(err, SB_ERR_NOT_FOUND, "benchmark %s has no children, so "
					  "no child %" PRId64, b->name, c->o->child);
		else
			rc = sb_error_set(err, SB_ERR_NOT_FOUND, "benchmark %s has children 0 to %zu, "
					  "not %" PRId64, b->name, b->children - 1, c->o->child);
	}
	sb_bench_destroy(b);
	return rc;
}

static int make_verifier(struct check *c, struct sb_error *err)
{
	char *keypath = NULL;
	const char *keyfile = c->o->key_path;
	struct sb_log_verifier *v;
	int rc;

	if (keyfile == NULL) {
		if (c->benchdir == NULL)
			return sb_error_set(err, SB_ERR_INPUT, "no key: '%s' is not in a benchmark "
					    "directory (none of it or its parents has benchmark.msgpack "
					    "or keys/); give --key KEYFILE", c->path);
		if ((keypath = sb_logfiles_join(c->benchdir, SB_BENCH_KEY)) == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		keyfile = keypath;
	}
	rc = sb_key_load(keyfile, &c->key, err);
	free(keypath);
	if (rc < 0)
		return code(err, SB_ERR_INPUT);
	c->has_key = true;
	/* one now, so that a verifier that cannot be made is this error; the
	 * readers make their own */
	v = sb_log_verifier_create(&c->key, err);
	if (v == NULL)
		return err != NULL && err->code == SB_ERR_NONE ? code(err, SB_ERR_RUNTIME) : -1;
	sb_log_verifier_destroy(v);
	return 0;
}

/* Inside events/ or submissions/, what is below the path; elsewhere in a
 * benchmark directory, both; outside one, every file below the path.  Paths
 * are kept as the caller spelled them. */
static int list_dir(struct check *c, struct sb_error *err)
{
	static const char *const logdirs[] = { "events", "submissions" };
	char *real = realpath(c->path, NULL), *base, *sub;
	bool inside = c->benchdir == NULL;
	struct stat st;
	size_t d, n;

	for (d = 0; !inside && d < 2; d++) {
		if ((sub = sb_logfiles_join(c->benchdir, logdirs[d])) == NULL)
			break;
		n = strlen(sub);
		inside = real && !strncmp(real, sub, n) && (real[n] == '/' || real[n] == '\0');
		free(sub);
	}
	if (inside) {
		free(real);
		sb_logfiles_walk(&c->files, c->path);
		return 0;
	}
	base = real && !strcmp(real, c->benchdir) ? strdup(c->path) : strdup(c->benchdir);
	free(real);
	if (base == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	for (d = 0; d < 2; d++) {
		if ((sub = sb_logfiles_join(base, logdirs[d])) == NULL) {
			free(base);
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		}
		if (stat(sub, &st) == 0)
			sb_logfiles_walk(&c->files, sub);
		free(sub);
	}
	free(base);
	if (c->files.n == 0 && c->out != NULL && c->o->format == SB_FORMAT_TEXT)
		fprintf(c->out, "no logs yet: '%s' has no records in events/ or submissions/\n",
			c->benchdir);
	return 0;
}

static int list_files(struct check *c, struct sb_error *err)
{
	char *p;

	c->files.note = c->o->note;
	c->files.note_arg = c->o->note_arg;
	if (!c->is_dir) {
		if ((p = strdup(c->path)) == NULL || sb_logfiles_add(&c->files, p) < 0)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return 0;
	}
	if (list_dir(c, err) < 0)
		return -1;
	if (c->o->has_child) {
		sb_logfiles_keep_child(&c->files, c->o->child);
		if (c->files.n == 0 && c->out != NULL && c->o->format == SB_FORMAT_TEXT)
			fprintf(c->out, "no logs yet: child %" PRId64 " has no log in '%s'\n",
				c->o->child, c->path);
	}
	sb_logfiles_sort(&c->files);
	return 0;
}

static int tail_rank(enum sb_log_tail t)
{
	return t == SB_LOG_TAIL_OK ? 0 : t == SB_LOG_TAIL_TORN ? 1 : 2;
}

/* What reading one file left for the calling thread to pass on, in order. */
struct file_done {
	char *io_error;          /* it could not be read: the message (no output) */
	char *problem;           /* the note of a tail that is not ok */
	size_t off, len;         /* its rendering in the worker's text */
	size_t records, verified;
	enum sb_log_tail tail;
	bool large;              /* left to the calling thread (LARGE_LOG) */
	bool nomem;              /* its note or text was lost to memory */
};

/* The files lo..hi-1 of a batch, on one thread: read, verified and rendered
 * into a text of its own, with its own verifier and buffer. */
struct file_worker {
	struct check *c;
	size_t lo, hi;
	struct file_done *done;  /* done[i] for file i of the listing */
	char *text;
	size_t text_len;
};

/* A file larger than this (a benchmark's log of reconciled outcomes has a
 * record per child) is read by the calling thread and rendered straight
 * to the output as its records are read: its text is never held. */
#define LARGE_LOG (1 << 20)

/* Reads, verifies and renders one file into out (NULL: not rendered),
 * record by record, and keeps in d what the calling thread passes on. */
static void one_file(struct check *c, struct sb_log_verifier *v, FILE *out, const char *path,
		     struct file_done *d)
{
	struct sb_error err = { 0 };
	struct sb_log_result *r = NULL;

	if (v == NULL)
		sb_error_set(&err, SB_ERR_NOMEM, "out of memory reading log '%s'", path);
	else
		r = sb_logview_read_file(out, c->o->format, path, c->is_dir, v, &c->expect, &err);
	if (r == NULL) {
		d->io_error = strdup(err.msg);
		d->nomem = d->io_error == NULL;
		return;
	}
	d->tail = sb_log_result_tail(r);
	if (d->tail != SB_LOG_TAIL_OK &&
	    asprintf(&d->problem, "%s: %s (%s)", path, sb_log_result_detail(r),
		     sb_log_tail_name(d->tail)) < 0) {
		d->problem = NULL;
		d->nomem = true;
	}
	d->records = sb_log_result_count(r);
	d->verified = sb_log_result_verified(r);
	sb_log_result_destroy(r);
}

/* One file on a worker: a large one is left to the calling thread. */
static void worker_file(struct check *c, struct sb_log_verifier *v, FILE *mem, const char *path,
			struct file_done *d)
{
	struct stat st;
	long off;

	if (stat(path, &st) == 0 && st.st_size > LARGE_LOG) {
		d->large = true;
		return;
	}
	off = mem ? ftell(mem) : 0;
	one_file(c, v, mem, path, d);
	if (mem != NULL && d->io_error == NULL) {
		d->off = off < 0 ? 0 : (size_t)off;
		d->len = (size_t)(ftell(mem) - off);
	}
}

static void *read_files(void *arg)
{
	struct file_worker *w = arg;
	struct sb_log_verifier *v = sb_log_verifier_create(&w->c->key, NULL);
	FILE *mem = w->c->out ? open_memstream(&w->text, &w->text_len) : NULL;
	size_t i;

	for (i = w->lo; i < w->hi; i++)
		worker_file(w->c, v, mem, w->c->files.v[i].path, &w->done[i]);
	if (mem != NULL && fclose(mem) != 0) {
		for (i = w->lo; i < w->hi; i++) /* the text is lost: say so per file */
			w->done[i].nomem = true;
	}
	sb_log_verifier_destroy(v);
	return NULL;
}

/* Passes one file on as a single reader would have: its text, its note,
 * its counts.  -1 when out of memory lost its text or note. */
static int pass_on(struct check *c, const char *text, const char *path, struct file_done *d)
{
	struct sb_log_verifier *v;

	if (d->large) {
		v = sb_log_verifier_create(&c->key, NULL);
		one_file(c, v, c->out, path, d);
		sb_log_verifier_destroy(v);
	}
	if (d->nomem)
		return -1;
	if (d->io_error != NULL) {
		NOTE(c, SB_LOGVIEW_NOTE_IO_ERROR, "%s", d->io_error);
		c->sum->io_errors++;
		return 0;
	}
	if (c->out != NULL && d->len > 0)
		fwrite(text + d->off, 1, d->len, c->out);
	if (d->problem != NULL)
		NOTE(c, SB_LOGVIEW_NOTE_PROBLEM, "%s", d->problem);
	c->sum->files++;
	c->sum->records += d->records;
	c->sum->verified += d->verified;
	if (tail_rank(d->tail) > tail_rank(c->sum->tail))
		c->sum->tail = d->tail; /* the first of the worst rank, in listing order */
	return 0;
}

/* Files read per batch: the rendered text of a batch is held until it is
 * written, so a batch bounds the memory whatever the number of files. */
#define BATCH 1024

/* Every listed file, in batches, each split among the threads in contiguous
 * ranges; the texts and notes are passed on from this thread in listing
 * order, so the output is that of one reader. */
static int read_all(struct check *c, struct sb_error *err)
{
	struct file_worker w[SB_PARALLEL_MAX];
	struct file_done *done = calloc(BATCH, sizeof(*done));
	size_t n, k, i, lo, hi, per;
	int rc = 0;

	if (done == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	n = c->o->threads ? c->o->threads : sb_parallel_io_threads(c->files.n, 64, SB_PARALLEL_MAX);
	if (n > SB_PARALLEL_MAX)
		n = SB_PARALLEL_MAX;
	if (n > c->files.n)
		n = c->files.n > 0 ? c->files.n : 1;
	for (lo = 0; rc == 0 && lo < c->files.n; lo = hi) {
		hi = c->files.n - lo > BATCH ? lo + BATCH : c->files.n;
		per = (hi - lo + n - 1) / n;
		for (k = 0; k < n; k++) {
			w[k] = (struct file_worker){ .c = c, .done = done - lo };
			w[k].lo = lo + k * per < hi ? lo + k * per : hi;
			w[k].hi = w[k].lo + per < hi ? w[k].lo + per : hi;
		}
		sb_parallel_run(read_files, w, sizeof(w[0]), n);
		for (k = 0; k < n; k++) {
			for (i = w[k].lo; i < w[k].hi; i++) {
				if (rc == 0 && pass_on(c, w[k].text, c->files.v[i].path, &done[i - lo]) < 0)
					rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory rendering the logs");
				free(done[i - lo].io_error);
				free(done[i - lo].problem);
			}
			free(w[k].text);
		}
		memset(done, 0, BATCH * sizeof(*done));
	}
	free(done);
	return rc;
}

int sb_logview_verify(const char *path, const struct sb_logview_opts *opts,
	FILE *out, struct sb_logview_summary *sum, struct sb_error *err)
{
	static const struct sb_logview_opts defaults;
	struct sb_logview_summary local;
	struct check c = {
		.path = path, .o = opts ? opts : &defaults, .out = out,
		.want = { .child = -1, .attempt = -1, .restart = -1, .pid = -1 },
		.sum = sum ? sum : &local,
	};
	int rc = -1;

	memset(c.sum, 0, sizeof(*c.sum));
	if (check_args(&c, err) < 0)
		return -1;
	c.benchdir = sb_logfiles_benchdir(path);
	if (check_bench(&c, err) < 0 || make_verifier(&c, err) < 0 || list_files(&c, err) < 0)
		goto out;
	if (read_all(&c, err) < 0)
		goto out;
	c.sum->io_errors += c.files.errors;
	if (c.is_dir && out != NULL)
		sb_logview_total(out, c.o->format, c.sum);
	if (out != NULL && (fflush(out) != 0 || ferror(out))) {
		sb_errorf(err, "cannot write the output: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	sb_logfiles_release(&c.files);
	if (c.has_key)
		sb_key_cleanse(&c.key);
	free(c.benchdir);
	return rc;
}

int sb_logview_verify_buffer(const char *path, const struct sb_logview_opts *opts,
	char **buf, size_t *len, struct sb_logview_summary *sum,
	struct sb_error *err)
{
	size_t n = 0;
	FILE *out;
	int rc;

	if (buf == NULL)
		return sb_error_set(err, SB_ERR_INPUT, "no buffer pointer given");
	*buf = NULL;
	if (len != NULL)
		*len = 0;
	out = open_memstream(buf, &n);
	if (out == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	rc = sb_logview_verify(path, opts, out, sum, err);
	if (fclose(out) != 0 && rc == 0)
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory rendering the logs");
	if (rc < 0) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	if (len != NULL)
		*len = n;
	return 0;
}

void sb_logview_free(char *buf)
{
	free(buf);
}
