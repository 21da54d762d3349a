#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>
#include <openssl/evp.h>

#include "ctl/fsutil.h"
#include "proto/mpcheck.h"
#include "ctl/index.h"
#include "ctl/proc.h"
#include "ctl/status.h"
#include "ctl/subm.h"
#include "proto/util.h"
#include "sbench/key.h"
#include "sbench/log.h"

#define MAP_MAX ((size_t)1 << 30)
#define SCHED_OUTPUT_MAX ((size_t)64 << 20)
#define SCHED_TIMEOUT_MS 120000

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t get_int(const msgpack_object *map, const char *key, int64_t dflt)
{
	const msgpack_object *o = sb_mp_get(map, key);

	if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX)
		return (int64_t)o->via.u64;
	if (o && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		return o->via.i64;
	return dflt;
}

static void get_str(const msgpack_object *map, const char *key, char *buf, size_t size)
{
	const msgpack_object *o = sb_mp_get(map, key);
	size_t n;

	buf[0] = '\0';
	if (o == NULL || o->type != MSGPACK_OBJECT_STR)
		return;
	n = o->via.str.size < size - 1 ? o->via.str.size : size - 1;
	memcpy(buf, o->via.str.ptr, n);
	buf[n] = '\0';
}

static void progress(const struct sb_status_opts *o, const char *what, size_t done, size_t total)
{
	if (o->progress == NULL || total < 1000 || (done % 997 != 0 && done != total))
		return;
	fprintf(o->progress, "\r%s: %zu/%zu", what, done, total);
	if (done == total)
		fputs("\r\033[K", o->progress);
	fflush(o->progress);
}

/* ---- attempts from the task maps -------------------------------------- */

static struct sb_attempt_status *add_attempt(struct sb_child_status *c, int64_t attempt)
{
	struct sb_attempt_status *v, *a;
	size_t i;

	for (i = 0; i < c->nattempts; i++)
		if (c->attempts[i].attempt == attempt)
			return &c->attempts[i];
	v = realloc(c->attempts, (c->nattempts + 1) * sizeof(*v));
	if (v == NULL)
		return NULL;
	c->attempts = v;
	/* keep them sorted by attempt */
	for (i = c->nattempts; i > 0 && v[i - 1].attempt > attempt; i--)
		v[i] = v[i - 1];
	a = &v[i];
	memset(a, 0, sizeof(*a));
	a->attempt = attempt;
	a->log.exit_code = -1;
	c->nattempts++;
	return a;
}

static int read_map(struct sb_status *st, const char *path, int64_t attempt, int64_t chunk,
		    const struct sb_subm *subm, struct sb_error *err)
{
	const struct sb_subm_entry *sub = sb_subm_find(subm, SB_SUBM_SUBMITTED, attempt, chunk);
	const struct sb_subm_entry *intent = sb_subm_find(subm, SB_SUBM_INTENT, attempt, chunk);
	const msgpack_object *tasks;
	msgpack_unpacked u;
	char *data;
	size_t len;
	uint32_t t;
	int rc = -1;

	if (sb_fs_read_file(path, MAP_MAX, &data, &len, err) < 0)
		return -1;
	msgpack_unpacked_init(&u);
	if (sb_mp_unpack_one(data, len, &u) < 0 ||
	    (tasks = sb_mp_get(&u.data, "tasks")) == NULL || tasks->type != MSGPACK_OBJECT_ARRAY) {
		sb_errorf(err, "task map '%s' cannot be decoded", path);
		goto out;
	}
	for (t = 0; t < tasks->via.array.size; t++) {
		int64_t child = get_int(&tasks->via.array.ptr[t], "child", -1);
		struct sb_attempt_status *a;

		if (child < 0 || (size_t)child >= st->n) {
			sb_errorf(err, "task map '%s': task %u names no child of this benchmark", path, t);
			goto out;
		}
		a = add_attempt(&st->children[child], attempt);
		if (a == NULL) {
			sb_errorf(err, "out of memory");
			goto out;
		}
		a->chunk = chunk;
		a->task = t;
		if (sub) {
			snprintf(a->array_job, sizeof(a->array_job), "%.31s", sub->job_id);
			snprintf(a->job_id, sizeof(a->job_id), "%.31s_%u", sub->job_id, t);
			a->sched.submitted = true;
			a->sched.submit_ns = intent ? intent->time_ns : sub->time_ns;
		}
	}
	rc = 0;
out:
	msgpack_unpacked_destroy(&u);
	free(data);
	return rc;
}

/* Every jobs/a<N>/chunk-<k>.map, in order. */
static int read_maps(struct sb_status *st, const struct sb_subm *subm, struct sb_error *err)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	int64_t attempt, chunk;

	for (attempt = 0;; attempt++) {
		snprintf(dir, sizeof(dir), "%s/jobs/a%" PRId64, st->bench->dir, attempt);
		if (access(dir, F_OK) != 0)
			break;
		for (chunk = 0;; chunk++) {
			snprintf(path, sizeof(path), "%s/chunk-%" PRId64 ".map", dir, chunk);
			if (access(path, F_OK) != 0)
				break;
			if (read_map(st, path, attempt, chunk, subm, err) < 0)
				return -1;
		}
	}
	return 0;
}

/* ---- logs ---------------------------------------------------------------- */

/* Parses "<child>.a<attempt>.j<job>.r<restart>.log". */
static int parse_log_name(const char *name, int64_t *child, int64_t *attempt, int64_t *restart)
{
	long long c, a, r;
	char job[32];
	int used = 0;

	if (sscanf(name, "%lld.a%lld.j%31[0-9a-z].r%lld.log%n", &c, &a, job, &r, &used) != 4 ||
	    name[used] != '\0' || c < 0 || a < 0 || r < 0)
		return -1;
	*child = c;
	*attempt = a;
	*restart = r;
	return 0;
}

struct log_choice {
	int64_t restart;
	char rel[256];
};

static int scan_logs(struct sb_status *st, struct log_choice **choices, struct sb_error *err)
{
	char events[PATH_MAX], shard[PATH_MAX + 300];
	struct dirent *d, *e;
	DIR *dp, *sp;

	snprintf(events, sizeof(events), "%s/events", st->bench->dir);
	dp = opendir(events);
	if (dp == NULL)
		return errno == ENOENT ? 0 : sb_errorf(err, "cannot read '%s': %s", events, strerror(errno));
	while ((d = readdir(dp)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(shard, sizeof(shard), "%s/%s", events, d->d_name);
		sp = opendir(shard);
		if (sp == NULL)
			continue;
		while ((e = readdir(sp)) != NULL) {
			int64_t child, attempt, restart;
			struct sb_attempt_status *a = NULL;
			size_t i;

			if (parse_log_name(e->d_name, &child, &attempt, &restart) < 0 ||
			    (size_t)child >= st->n)
				continue;
			for (i = 0; i < st->children[child].nattempts; i++)
				if (st->children[child].attempts[i].attempt == attempt)
					a = &st->children[child].attempts[i];
			if (a == NULL)
				continue; /* a log of no attempt sbctl made: not evidence */
			i = (size_t)(a - st->children[child].attempts);
			{
				struct log_choice *lc = &choices[child][i];
				if (lc->rel[0] && lc->restart >= restart)
					continue;
				lc->restart = restart;
				snprintf(lc->rel, sizeof(lc->rel), "events/%.32s/%.200s", d->d_name, e->d_name);
			}
		}
		closedir(sp);
	}
	closedir(dp);
	return 0;
}

static void copy_metrics(struct sb_attempt_status *a, const msgpack_object *m)
{
	uint32_t i;

	if (m == NULL || m->type != MSGPACK_OBJECT_MAP || m->via.map.size == 0)
		return;
	a->metrics = calloc(m->via.map.size, sizeof(*a->metrics));
	if (a->metrics == NULL)
		return;
	for (i = 0; i < m->via.map.size; i++) {
		const msgpack_object *k = &m->via.map.ptr[i].key, *v = &m->via.map.ptr[i].val;
		struct sb_metric *x = &a->metrics[a->nmetrics];

		if (k->type != MSGPACK_OBJECT_STR)
			continue;
		if (v->type == MSGPACK_OBJECT_FLOAT64 || v->type == MSGPACK_OBJECT_FLOAT32) {
			x->value = v->via.f64;
		} else if (v->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
			x->is_int = v->via.u64 <= INT64_MAX;
			x->i = (int64_t)v->via.u64;
			x->value = (double)v->via.u64;
		} else if (v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
			x->is_int = true;
			x->i = v->via.i64;
			x->value = (double)v->via.i64;
		} else {
			continue;
		}
		x->name = strndup(k->via.str.ptr, k->via.str.size);
		if (x->name)
			a->nmetrics++;
	}
}

/* Streams the SHA-256 of a file; -1 when it cannot be read. */
static int hash_file(const char *path, uint8_t out[32])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char buf[1 << 16];
	unsigned int len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), rc = -1;

	if (fd < 0 || ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		goto out;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		EVP_DigestUpdate(ctx, buf, (size_t)n);
	if (n == 0 && EVP_DigestFinal_ex(ctx, out, &len) == 1 && len == 32)
		rc = 0;
out:
	if (fd >= 0)
		close(fd);
	EVP_MD_CTX_free(ctx);
	return rc;
}

/* Compares each hashed result of a verified exit-0 finish with the file now. */
static void check_results(struct sb_status *st, struct sb_index *idx, int64_t child,
			  struct sb_attempt_status *a, const msgpack_object *results, bool rehash)
{
	uint32_t i;

	if (results == NULL || results->type != MSGPACK_OBJECT_ARRAY)
		return;
	for (i = 0; i < results->via.array.size; i++) {
		const msgpack_object *r = &results->via.array.ptr[i];
		const msgpack_object *missing = sb_mp_get(r, "missing"), *not_hashed = sb_mp_get(r, "not_hashed");
		char path[256], sha_hex[80], full[PATH_MAX], now_hex[65];
		uint8_t sha[32];
		struct stat sb;
		struct sb_index_file_stamp stamp;
		int cached = 0;

		get_str(r, "path", path, sizeof(path));
		get_str(r, "sha256", sha_hex, sizeof(sha_hex));
		if (missing && missing->type == MSGPACK_OBJECT_BOOLEAN && missing->via.boolean) {
			if (!a->log.not_ok[0])
				snprintf(a->log.not_ok, sizeof(a->log.not_ok), "result '%.200s' was missing at finish", path);
			continue;
		}
		if (not_hashed && not_hashed->type == MSGPACK_OBJECT_BOOLEAN && not_hashed->via.boolean) {
			if (!a->log.not_ok[0])
				snprintf(a->log.not_ok, sizeof(a->log.not_ok), "result '%.200s' was not hashed "
					 "(no time left before the kill)", path);
			continue;
		}
		if (strlen(sha_hex) != 64) {
			if (!a->log.not_ok[0])
				snprintf(a->log.not_ok, sizeof(a->log.not_ok), "result '%.200s' could not be read at finish", path);
			continue;
		}
		if (path[0] == '/')
			snprintf(full, sizeof(full), "%s", path);
		else
			snprintf(full, sizeof(full), "%s/runs/%" PRId64 "/%s", st->bench->dir, child, path);
		if (lstat(full, &sb) < 0 || !S_ISREG(sb.st_mode)) {
			if (!a->log.changed[0])
				snprintf(a->log.changed, sizeof(a->log.changed), "result '%.200s' is gone since "
					 "the verified finish", path);
			continue;
		}
		stamp = (struct sb_index_file_stamp){
			sb.st_size, (int64_t)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec,
			(int64_t)sb.st_ctim.tv_sec * 1000000000LL + sb.st_ctim.tv_nsec, (uint64_t)sb.st_ino,
		};
		if (!rehash && idx)
			cached = sb_index_get_hash(idx, full, &stamp, sha, NULL) == 1;
		if (!cached) {
			if (hash_file(full, sha) < 0) {
				if (!a->log.changed[0])
					snprintf(a->log.changed, sizeof(a->log.changed), "result '%.200s' cannot be "
						 "read now", path);
				continue;
			}
			if (idx)
				sb_index_put_hash(idx, full, &stamp, sha, NULL);
		}
		sb_hex_encode(sha, 32, now_hex);
		if (strcmp(now_hex, sha_hex) != 0 && !a->log.changed[0])
			snprintf(a->log.changed, sizeof(a->log.changed), "result '%.150s' changed after the "
				 "verified finish (sha256 %.12s, not %.12s)", path, now_hex, sha_hex);
	}
}

static int read_log(struct sb_status *st, struct sb_log_verifier *v, struct sb_index *idx,
		    int64_t child, struct sb_attempt_status *a, const char *rel, bool rehash,
		    struct sb_error *err)
{
	struct sb_run_ident want = { .bench = st->bench->digest, .child = child,
				     .attempt = a->attempt, .restart = -1, .pid = -1 };
	struct sb_log_head head;
	struct sb_log_expect ex = { .id = &want };
	char path[PATH_MAX];
	struct sb_log_result *r;
	struct stat sb;
	uint64_t count;
	size_t i, nv;
	int have_head = 0;

	snprintf(path, sizeof(path), "%s/%s", st->bench->dir, rel);
	snprintf(a->log_rel, sizeof(a->log_rel), "%s", rel);
	if (idx && sb_index_get_head(idx, st->bench->digest, rel, &count, head.tag, NULL) == 1) {
		head.count = count;
		ex.head = &head;
		have_head = 1;
	}
	r = sb_log_read_file(v, path, &ex, err);
	if (r == NULL)
		return -1;
	a->log.present = true;
	a->log.tail = sb_log_result_tail(r);
	if (stat(path, &sb) == 0)
		a->log.last_life_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
	nv = sb_log_result_verified(r);
	for (i = 0; i < nv; i++) {
		const struct sb_log_record *rec = sb_log_result_record(r, i);
		if (rec->time_ns > a->log.last_life_ns)
			a->log.last_life_ns = rec->time_ns;
		if (!strcmp(rec->type, "start")) {
			a->log.has_start = true;
			snprintf(a->log.job_id, sizeof(a->log.job_id), "%s", rec->id.job_id ? rec->id.job_id : "");
		} else if (!strcmp(rec->type, "finish") && !a->log.has_finish) {
			const msgpack_object *pl = &rec->payload, *mer = sb_mp_get(pl, "metrics_error");
			a->log.has_finish = true;
			a->log.finish_ns = rec->time_ns;
			a->log.exit_code = (int)get_int(pl, "exit_code", -1);
			a->log.signal = (int)get_int(pl, "signal", 0);
			get_str(pl, "error", a->log.error, sizeof(a->log.error));
			copy_metrics(a, sb_mp_get(pl, "metrics"));
			if (mer && mer->type == MSGPACK_OBJECT_STR)
				snprintf(a->log.not_ok, sizeof(a->log.not_ok), "the metrics file could not be "
					 "read: %.*s", (int)(mer->via.str.size < 200 ? mer->via.str.size : 200),
					 mer->via.str.ptr);
			if (a->log.exit_code == 0 && !a->log.error[0])
				check_results(st, idx, child, a, sb_mp_get(pl, "results"), rehash);
		}
	}
	/* remember the verified head: a later, shorter log is a rollback */
	if (idx && (a->log.tail == SB_LOG_TAIL_OK || a->log.tail == SB_LOG_TAIL_TORN) &&
	    sb_log_result_head(r, &head) == 0 && (!have_head || head.count > count))
		sb_index_put_head(idx, st->bench->digest, rel, head.count, head.tag, NULL);
	sb_log_result_destroy(r);
	return 0;
}

static int read_logs(struct sb_status *st, const struct sb_key *key, struct sb_index *idx,
		     const struct sb_status_opts *o, struct sb_error *err)
{
	struct log_choice **choices = calloc(st->n, sizeof(*choices));
	struct sb_log_verifier *v = NULL;
	size_t c, i, done = 0, total = 0;
	int rc = -1;

	if (choices == NULL)
		return sb_errorf(err, "out of memory");
	for (c = 0; c < st->n; c++) {
		choices[c] = calloc(st->children[c].nattempts + 1, sizeof(**choices));
		if (choices[c] == NULL) {
			sb_errorf(err, "out of memory");
			goto out;
		}
	}
	if (scan_logs(st, choices, err) < 0 || (v = sb_log_verifier_create(key, err)) == NULL)
		goto out;
	for (c = 0; c < st->n; c++)
		for (i = 0; i < st->children[c].nattempts; i++)
			total += choices[c][i].rel[0] != 0;
	for (c = 0; c < st->n; c++) {
		for (i = 0; i < st->children[c].nattempts; i++) {
			if (!choices[c][i].rel[0])
				continue;
			st->children[c].attempts[i].log_restart = choices[c][i].restart;
			if (read_log(st, v, idx, (int64_t)c, &st->children[c].attempts[i],
				     choices[c][i].rel, o->rehash, err) < 0)
				goto out;
			progress(o, "reading logs", ++done, total);
		}
	}
	rc = 0;
out:
	sb_log_verifier_destroy(v);
	for (c = 0; c < st->n; c++)
		free(choices[c]);
	free(choices);
	return rc;
}

/* ---- the scheduler ------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The distinct array job ids of every submitted attempt, sorted. */
static char **job_ids(const struct sb_status *st, size_t *n)
{
	char **v = NULL;
	size_t c, i, cap = 0, k = 0;

	for (c = 0; c < st->n; c++) {
		for (i = 0; i < st->children[c].nattempts; i++) {
			const char *id = st->children[c].attempts[i].array_job;
			if (!id[0] || (k > 0 && !strcmp(v[k - 1], id)))
				continue;
			if (k == cap) {
				char **nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*nv));
				if (nv == NULL)
					goto fail;
				v = nv;
			}
			v[k++] = (char *)id;
		}
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_str);
	for (i = 0, c = 0; i < k; i++)
		if (c == 0 || strcmp(v[c - 1], v[i]))
			v[c++] = v[i];
	*n = c;
	return v;
fail:
	free(v);
	*n = 0;
	return NULL;
}

static int run_query(char **argv, const char *what, struct sb_sched_rows *rows, size_t max,
		     int squeue, struct sb_error *err)
{
	struct sb_proc_result r;
	int rc;

	if (sb_proc_run(argv, SCHED_OUTPUT_MAX, SCHED_TIMEOUT_MS, &r, err) < 0)
		return sb_error_prefix(err, "cannot ask the scheduler (%s; use --offline to classify "
				       "from the logs alone)", what);
	if (r.exit_code != 0 || r.truncated) {
		char line[300];
		snprintf(line, sizeof(line), "%s", r.err_len ? r.err : r.out);
		line[strcspn(line, "\n")] = '\0';
		rc = sb_errorf(err, "%s failed: %s (use --offline to classify from the logs alone)",
			       what, r.timed_out ? "no answer within 120 s" : r.truncated ?
			       "output too large" : line[0] ? line : "no message");
		sb_proc_result_release(&r);
		return rc;
	}
	rc = squeue ? sb_squeue_parse(r.out, rows, max, err) : sb_sacct_parse(r.out, rows, max, err);
	sb_proc_result_release(&r);
	return rc;
}

/* The rows sorted by JobID text, ties in the order printed: sacct prints one
 * row per task, so a lookup per child must not scan them all (that is
 * quadratic: minutes for 100,000 children). */
struct row_index {
	const struct sb_sched_row **v;
	size_t n;
};

static int cmp_row(const void *a, const void *b)
{
	const struct sb_sched_row *x = *(const struct sb_sched_row *const *)a;
	const struct sb_sched_row *y = *(const struct sb_sched_row *const *)b;
	int c = strcmp(x->job_id, y->job_id);

	return c ? c : (x > y) - (x < y);
}

static int row_index_build(struct row_index *ix, const struct sb_sched_rows *rows)
{
	size_t i;

	ix->n = 0;
	ix->v = malloc((rows->n ? rows->n : 1) * sizeof(*ix->v));
	if (ix->v == NULL)
		return -1;
	for (i = 0; i < rows->n; i++)
		ix->v[i] = &rows->v[i];
	ix->n = rows->n;
	qsort(ix->v, ix->n, sizeof(*ix->v), cmp_row);
	return 0;
}

/* A row for a JobID text ("123_4"): the last one printed (sacct -D prints a
 * job's requeued runs first, one row each), and in *earlier the number of
 * rows before it: the restart count of the run the row describes.  A row
 * expanded from a collapsed pending range ("123_[2-7%8]", raw id 0) counts
 * only when the task has no row of its own: real accounting keeps a stale
 * range for seconds after tasks of it have started. */
static const struct sb_sched_row *find_row(const struct row_index *ix, const char *job_id,
					   int64_t *earlier)
{
	const struct sb_sched_row *own = NULL, *range = NULL;
	size_t lo = 0, hi = ix->n;
	int64_t nown = 0;

	while (lo < hi) { /* the first row whose JobID is not below job_id */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(ix->v[mid]->job_id, job_id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ix->n && !strcmp(ix->v[lo]->job_id, job_id); lo++) {
		if (ix->v[lo]->raw_id != 0) {
			own = ix->v[lo];
			nown++;
		} else {
			range = ix->v[lo];
		}
	}
	*earlier = own ? nown - 1 : range ? 0 : -1;
	return own ? own : range;
}

/* The log read belongs to an earlier run of a requeued job than the one
 * the scheduler describes: it is not evidence about the latest run. */
static void forget_earlier_run(struct sb_attempt_status *a)
{
	size_t m;

	memset(&a->log, 0, sizeof(a->log));
	a->log.exit_code = -1;
	a->log_rel[0] = '\0';
	for (m = 0; m < a->nmetrics; m++)
		free(a->metrics[m].name);
	free(a->metrics);
	a->metrics = NULL;
	a->nmetrics = 0;
}

static int ask_scheduler(struct sb_status *st, struct sb_sched_rows *acct, struct sb_sched_rows *queue,
			 struct sb_error *err)
{
	size_t n, i, max = st->n * 4 + 100000;
	char **ids = job_ids(st, &n), start[32], list[SB_SACCT_IDS_PER_CALL * 24];
	time_t since = (time_t)(st->bench->created_ns / 1000000000) - 86400;
	struct tm tm;
	int rc = 0;

	if (n == 0) {
		free(ids);
		return 0;
	}
	localtime_r(&since, &tm);
	strftime(start, sizeof(start), "%Y-%m-%dT%H:%M:%S", &tm);
	for (i = 0; rc == 0 && i < n; i += SB_SACCT_IDS_PER_CALL) {
		size_t k, used = 0;
		for (k = i; k < n && k < i + SB_SACCT_IDS_PER_CALL; k++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", k > i ? "," : "", ids[k]);
		{
			char *argv[] = { "sacct", "-P", "-n", "-X", "-D", "-j", list, "-S", start,
					 "--format=" SB_SACCT_FORMAT, NULL };
			rc = run_query(argv, "sacct", acct, max, 0, err);
			st->sacct_calls++;
		}
	}
	if (rc == 0) {
		/* jobs accounting does not show yet: one squeue call */
		size_t k, used = 0;
		char *qlist = malloc(n * 24 + 1);
		if (qlist == NULL) {
			free(ids);
			return sb_errorf(err, "out of memory");
		}
		qlist[0] = '\0';
		for (k = 0; k < n; k++)
			used += (size_t)snprintf(qlist + used, n * 24 + 1 - used, "%s%s", k ? "," : "", ids[k]);
		{
			char *argv[] = { "squeue", "-h", "-r", "-j", qlist, "-o", SB_SQUEUE_FORMAT, NULL };
			struct sb_error qerr;
			/* squeue fails for ids it no longer knows on real Slurm: not fatal */
			if (run_query(argv, "squeue", queue, max, 1, &qerr) < 0)
				queue->n = 0;
			st->squeue_calls++;
		}
		free(qlist);
	}
	free(ids);
	return rc;
}

/* ---- outcomes, cancels, classification ---------------------------------- */

static void apply_outcome(struct sb_attempt_status *a, const struct sb_subm_entry *e)
{
	struct sb_sched_row *r = &a->sched.row;

	memset(r, 0, sizeof(*r));
	snprintf(r->job_id, sizeof(r->job_id), "%s", e->job_id);
	r->state = sb_sched_state_parse(e->state, &r->cancelled_by);
	r->exit_code = e->exit_code;
	r->exit_signal = e->signal;
	r->end = e->end;
	r->start = r->submit = -1;
	a->sched.has_row = true;
	a->sched.from_outcome = true;
}

const char *sb_status_sched_state(const struct sb_attempt_status *a, char *buf, size_t size)
{
	const struct sb_sched_row *r = &a->sched.row;

	if (!a->sched.has_row || r->state == SB_STATE_UNKNOWN)
		return NULL;
	if (r->state == SB_STATE_CANCELLED && r->cancelled_by >= 0)
		snprintf(buf, size, "CANCELLED by %ld", r->cancelled_by);
	else
		snprintf(buf, size, "%s", sb_sched_state_name(r->state));
	return buf;
}

static int record_outcome(struct sb_status *st, struct sb_subm_writer **w, const struct sb_key *key,
			  int64_t child, const struct sb_attempt_status *a, struct sb_error *err)
{
	struct sb_subm_entry e;
	char state[64];

	if (*w == NULL) {
		if ((*w = sb_subm_writer_create(st->bench, key, err)) == NULL)
			return -1;
		sb_subm_writer_set_batch(*w);
	}
	memset(&e, 0, sizeof(e));
	e.type = SB_SUBM_OUTCOME;
	e.attempt = a->attempt;
	e.chunk = -1;
	e.child = child;
	snprintf(e.job_id, sizeof(e.job_id), "%s", a->sched.row.job_id);
	snprintf(e.state, sizeof(e.state), "%s", sb_status_sched_state(a, state, sizeof(state)));
	e.exit_code = a->sched.row.exit_code;
	e.signal = a->sched.row.exit_signal;
	e.end = a->sched.row.end;
	if (sb_subm_append(*w, &e, NULL, err) < 0)
		return -1;
	st->outcomes_recorded++;
	return 0;
}

int sb_status_compute(struct sb_bench *b, const struct sb_status_opts *o,
		      struct sb_status *st, struct sb_error *err)
{
	struct sb_classify_params p;
	struct sb_sched_rows acct = { 0 }, queue = { 0 };
	struct row_index acct_ix = { 0 }, queue_ix = { 0 };
	const struct sb_subm_entry **outcomes = NULL, **cancels = NULL;
	size_t *first_attempt = NULL, ncancels = 0;
	struct sb_subm subm = { 0 };
	struct sb_subm_writer *w = NULL;
	struct sb_index *idx;
	struct sb_key key;
	size_t c, i;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	st->bench = b;
	st->now_ns = now_ns();
	st->n = b->children;
	st->children = calloc(st->n ? st->n : 1, sizeof(*st->children));
	if (st->children == NULL)
		return sb_errorf(err, "out of memory");
	for (c = 0; c < st->n; c++)
		st->children[c].index = c;
	if (sb_bench_load_key(b, &key, err) < 0)
		return -1;
	idx = sb_index_open(NULL, NULL, NULL); /* only a cache here: work without it */
	if (sb_subm_read(b, &key, &subm, err) < 0 || read_maps(st, &subm, err) < 0)
		goto out;
	/* the heads and hashes recorded while reading, in one transaction */
	if (sb_index_begin(idx, NULL) < 0) { /* another sbctl holds it: go on without */
		sb_index_close(idx);
		idx = NULL;
	}
	rc = read_logs(st, &key, idx, o, err);
	sb_index_commit(idx, NULL); /* a cache: a failed commit loses nothing */
	if (rc < 0)
		goto out;
	rc = -1;
	if (!o->offline) {
		if (ask_scheduler(st, &acct, &queue, err) < 0)
			goto out;
		st->consulted = true;
		if (row_index_build(&acct_ix, &acct) < 0 || row_index_build(&queue_ix, &queue) < 0) {
			sb_errorf(err, "out of memory");
			goto out;
		}
	}
	/* the latest outcome of each (child, attempt), and the cancels, in one
	 * pass over the submission records (not one pass per child) */
	first_attempt = calloc(st->n + 1, sizeof(*first_attempt));
	cancels = calloc(subm.n + 1, sizeof(*cancels));
	if (first_attempt == NULL || cancels == NULL) {
		sb_errorf(err, "out of memory");
		goto out;
	}
	for (c = 0; c < st->n; c++)
		first_attempt[c + 1] = first_attempt[c] + st->children[c].nattempts;
	outcomes = calloc(first_attempt[st->n] + 1, sizeof(*outcomes));
	if (outcomes == NULL) {
		sb_errorf(err, "out of memory");
		goto out;
	}
	for (i = 0; i < subm.n; i++) {
		const struct sb_subm_entry *e = &subm.v[i];
		if (e->type == SB_SUBM_CANCEL)
			cancels[ncancels++] = e;
		if (e->type != SB_SUBM_OUTCOME || e->child < 0 || (size_t)e->child >= st->n)
			continue;
		for (size_t k = 0; k < st->children[e->child].nattempts; k++)
			if (st->children[e->child].attempts[k].attempt == e->attempt)
				outcomes[first_attempt[e->child] + k] = e; /* the last one wins */
	}
	p = (struct sb_classify_params){ st->now_ns, sb_spec_heartbeat(b->spec), o->settle_s };
	for (c = 0; c < st->n; c++) {
		struct sb_child_status *ch = &st->children[c];
		for (i = 0; i < ch->nattempts; i++) {
			struct sb_attempt_status *a = &ch->attempts[i];
			const struct sb_sched_row *row = NULL;
			const struct sb_subm_entry *out = outcomes[first_attempt[c] + i];
			size_t k;

			a->sched.consulted = st->consulted;
			for (k = 0; k < ncancels; k++)
				if (cancels[k]->attempt == a->attempt &&
				    (cancels[k]->chunk < 0 || cancels[k]->chunk == a->chunk))
					a->sched.cancel_recorded = true;
			a->sched_restart = -1;
			if (st->consulted && a->job_id[0]) {
				int64_t earlier;
				row = find_row(&acct_ix, a->job_id, &a->sched_restart);
				if (row == NULL || row->state == SB_STATE_UNKNOWN)
					row = find_row(&queue_ix, a->job_id, &earlier);
			}
			if (row && a->log.present && a->sched_restart > a->log_restart)
				forget_earlier_run(a);
			if (row) {
				a->sched.row = *row;
				a->sched.has_row = true;
				/* sacct has no pending reason: squeue's, when it says the same */
				if (!row->reason[0] && row->state == SB_STATE_PENDING) {
					int64_t earlier;
					const struct sb_sched_row *q = find_row(&queue_ix, a->job_id, &earlier);
					if (q && q->state == row->state)
						snprintf(a->sched.row.reason, sizeof(a->sched.row.reason), "%s",
							 q->reason);
				}
			} else if (out) {
				apply_outcome(a, out);
			}
			sb_classify(&a->log, &a->sched, &p, &a->verdict);
			if (row && !out && o->record_outcomes && sb_sched_state_terminal(row->state) &&
			    a->verdict.cls != SB_CLASS_RUNNING && a->verdict.cls != SB_CLASS_PENDING &&
			    a->verdict.cls != SB_CLASS_STALE && record_outcome(st, &w, &key, (int64_t)c, a, err) < 0)
				goto out;
		}
		ch->latest = ch->nattempts ? &ch->attempts[ch->nattempts - 1] : NULL;
		if (ch->latest) {
			ch->cls = ch->latest->verdict.cls;
			ch->reason = ch->latest->verdict.reason;
		} else {
			ch->cls = SB_CLASS_MISSING;
			ch->reason = "never submitted";
		}
		st->counts[ch->cls]++;
	}
	rc = 0;
out:
	if (sb_subm_writer_close(w, rc == 0 ? err : NULL) < 0)
		rc = -1;
	sb_index_close(idx);
	sb_subm_release(&subm);
	free(acct_ix.v);
	free(queue_ix.v);
	free(outcomes);
	free(cancels);
	free(first_attempt);
	sb_sched_rows_release(&acct);
	sb_sched_rows_release(&queue);
	sb_key_cleanse(&key);
	return rc;
}

int sb_status_run(const char *bench, const struct sb_status_opts *o, struct sb_status *st,
		  struct sb_error *err)
{
	struct sb_bench *b;

	memset(st, 0, sizeof(*st));
	b = sb_bench_find(bench, err);
	if (b == NULL)
		return -2;
	if (sb_bench_plan(b, err) < 0) {
		sb_bench_destroy(b);
		return -1;
	}
	return sb_status_compute(b, o, st, err);
}

void sb_status_release(struct sb_status *st)
{
	size_t c, i, m;

	if (st == NULL)
		return;
	for (c = 0; c < st->n && st->children; c++) {
		for (i = 0; i < st->children[c].nattempts; i++) {
			for (m = 0; m < st->children[c].attempts[i].nmetrics; m++)
				free(st->children[c].attempts[i].metrics[m].name);
			free(st->children[c].attempts[i].metrics);
		}
		free(st->children[c].attempts);
	}
	free(st->children);
	sb_bench_destroy(st->bench);
	memset(st, 0, sizeof(*st));
}
