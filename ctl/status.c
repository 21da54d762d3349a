#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>

#include "ctl/fsutil.h"
#include "proto/benchdir.h"
#include "proto/filehash.h"
#include "proto/mpcheck.h"
#include "ctl/index.h"
#include "ctl/proc.h"
#include "ctl/status.h"
#include "sbench/context.h"
#include "ctl/subm.h"
#include "proto/util.h"
#include "sbench/key.h"
#include "sbench/log.h"
#include "sbench/logview.h"

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

/* The string at key, whole, in *out (NULL when there is none); -1 when out
 * of memory. */
static int dup_str(const msgpack_object *map, const char *key, char **out)
{
	const msgpack_object *o = sb_mp_get(map, key);

	*out = NULL;
	if (o == NULL || o->type != MSGPACK_OBJECT_STR)
		return 0;
	*out = strndup(o->via.str.ptr, o->via.str.size);
	return *out ? 0 : -1;
}

/* Sets *field (when still unset) to a formatted text; -1 when out of memory. */
static int note(char **field, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int note(char **field, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*field)
		return 0;
	va_start(ap, fmt);
	n = vasprintf(field, fmt, ap);
	va_end(ap);
	if (n < 0)
		*field = NULL;
	return n < 0 ? -1 : 0;
}

/* The evidence strings of a log (sb_log_evidence owns none itself). */
static void log_evidence_release(struct sb_log_evidence *l)
{
	free(l->job_id);
	free(l->error);
	free(l->not_ok);
	free(l->changed);
	memset(l, 0, sizeof(*l));
	l->exit_code = -1;
}

/* Progress through the context's callback: only for long reads, and about
 * once per 1,000 steps. */
static void progress(const struct sb_status_cfg *o, const char *what, size_t done, size_t total)
{
	if (total < 1000 || (done % 997 != 0 && done != total))
		return;
	sb_ctx_progress(o->ctx, what, done, total);
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

/* Job ids in a total order: numerically for the digits sbatch prints. */
static int cmp_job_id(const char *x, const char *y)
{
	size_t a = strlen(x), b = strlen(y);

	return a != b ? (a > b) - (a < b) : strcmp(x, y);
}

/* A total order on records of one kind: time, then job id.  What status
 * picks from several records never depends on the order of the files in
 * submissions/ (the same evidence gives the same bytes). */
static int cmp_entry(const struct sb_subm_entry *x, const struct sb_subm_entry *y)
{
	int c;

	if (x->time_ns != y->time_ns)
		return (x->time_ns > y->time_ns) - (x->time_ns < y->time_ns);
	if ((c = cmp_job_id(x->job_id, y->job_id)) != 0)
		return c;
	if ((c = strcmp(x->state, y->state)) != 0)
		return c;
	if (x->end != y->end)
		return (x->end > y->end) - (x->end < y->end);
	return (x->exit_code > y->exit_code) - (x->exit_code < y->exit_code);
}

/* What sbctl recorded about submitting one chunk. */
struct chunk_subm {
	const struct sb_subm_entry *sub; /* the first SUBMITTED record, or NULL */
	int64_t submit_ns;               /* its intent's time (else its own) */
	int64_t intent_ns;               /* no SUBMITTED: an intent newer than any
	                                    submit_failed, or 0 */
	size_t njobs;                    /* distinct job ids submitted */
};

static void chunk_submission(const struct sb_subm *subm, int64_t attempt, int64_t chunk,
			     struct chunk_subm *cs)
{
	const struct sb_subm_entry *intent = NULL, *failed = NULL;
	size_t i, k;

	memset(cs, 0, sizeof(*cs));
	for (i = 0; i < subm->n; i++) {
		const struct sb_subm_entry *e = &subm->v[i];
		if (e->attempt != attempt || e->chunk != chunk)
			continue;
		if (e->type == SB_SUBM_SUBMITTED && (cs->sub == NULL || cmp_entry(e, cs->sub) < 0))
			cs->sub = e;
		else if (e->type == SB_SUBM_INTENT && (intent == NULL || cmp_entry(e, intent) > 0))
			intent = e;
		else if (e->type == SB_SUBM_SUBMIT_FAILED && (failed == NULL || cmp_entry(e, failed) > 0))
			failed = e;
	}
	for (i = 0; i < subm->n; i++) { /* distinct job ids */
		const struct sb_subm_entry *e = &subm->v[i];
		bool seen = false;
		if (e->type != SB_SUBM_SUBMITTED || e->attempt != attempt || e->chunk != chunk)
			continue;
		for (k = 0; k < i && !seen; k++)
			seen = subm->v[k].type == SB_SUBM_SUBMITTED && subm->v[k].attempt == attempt &&
			       subm->v[k].chunk == chunk && !strcmp(subm->v[k].job_id, e->job_id);
		cs->njobs += !seen;
	}
	if (cs->sub) {
		/* the intent that preceded it */
		const struct sb_subm_entry *before = NULL;
		for (i = 0; i < subm->n; i++) {
			const struct sb_subm_entry *e = &subm->v[i];
			if (e->type == SB_SUBM_INTENT && e->attempt == attempt && e->chunk == chunk &&
			    e->time_ns <= cs->sub->time_ns && (before == NULL || e->time_ns > before->time_ns))
				before = e;
		}
		cs->submit_ns = before ? before->time_ns : cs->sub->time_ns;
	} else if (intent && (failed == NULL || intent->time_ns > failed->time_ns)) {
		cs->intent_ns = intent->time_ns;
	}
}

/* Records a chunk submitted more than once: every array, in the total order. */
static int add_dup(struct sb_status *st, const struct sb_subm *subm, int64_t attempt, int64_t chunk,
		   const struct chunk_subm *cs, struct sb_error *err)
{
	const struct sb_subm_entry **v = calloc(cs->njobs, sizeof(*v));
	struct sb_status_dup *d;
	size_t i, k, n = 0, len = 1;
	char *text;

	if (v == NULL)
		return sb_errorf(err, "out of memory");
	for (i = 0; i < subm->n; i++) { /* one entry per job id: its first record */
		const struct sb_subm_entry *e = &subm->v[i];
		if (e->type != SB_SUBM_SUBMITTED || e->attempt != attempt || e->chunk != chunk)
			continue;
		for (k = 0; k < n && strcmp(v[k]->job_id, e->job_id); k++)
			;
		if (k < n) {
			if (cmp_entry(e, v[k]) < 0)
				v[k] = e;
			continue;
		}
		if (n < cs->njobs)
			v[n++] = e;
	}
	for (i = 1; i < n; i++) /* insertion sort: a handful */
		for (k = i; k > 0 && cmp_entry(v[k], v[k - 1]) < 0; k--) {
			const struct sb_subm_entry *t = v[k];
			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	for (i = 0; i < n; i++)
		len += strlen(v[i]->job_id) + 5;
	d = realloc(st->dups, (st->ndups + 1) * sizeof(*d));
	text = malloc(len);
	if (d == NULL || text == NULL) {
		free(v);
		free(text);
		if (d)
			st->dups = d;
		return sb_errorf(err, "out of memory");
	}
	st->dups = d;
	text[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strcat(text, i + 1 == n ? " and " : ", ");
		strcat(text, v[i]->job_id);
	}
	d = &st->dups[st->ndups++];
	d->attempt = attempt;
	d->chunk = chunk;
	d->job_ids = text;
	snprintf(d->chosen, sizeof(d->chosen), "%s", v[0]->job_id);
	free(v);
	return 0;
}

static int read_map(struct sb_status *st, const char *path, int64_t attempt, int64_t chunk,
		    const struct sb_subm *subm, struct sb_error *err)
{
	struct chunk_subm cs;
	const struct sb_subm_entry *sub;
	const char *dup = NULL;
	const msgpack_object *tasks;
	msgpack_unpacked u;
	char *data;
	size_t len;
	uint32_t t;
	int rc = -1;

	chunk_submission(subm, attempt, chunk, &cs);
	sub = cs.sub;
	if (sub && strlen(sub->job_id) >= SB_JOB_ID_MAX)
		return sb_errorf(err, "the job id recorded for chunk %" PRId64 " of attempt %" PRId64
				 " is longer than %d bytes", chunk, attempt, SB_JOB_ID_MAX - 1);
	if (cs.njobs > 1) {
		if (add_dup(st, subm, attempt, chunk, &cs, err) < 0)
			return -1;
		dup = st->dups[st->ndups - 1].job_ids;
	}
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
		a->duplicate = dup;
		a->sched.intent_ns = cs.intent_ns;
		if (sub) {
			snprintf(a->array_job, sizeof(a->array_job), "%s", sub->job_id);
			snprintf(a->job_id, sizeof(a->job_id), "%s_%u", sub->job_id, t);
			a->sched.submitted = true;
			a->sched.submit_ns = cs.submit_ns;
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
		if (sb_bdir_attempt(dir, sizeof(dir), st->bench->dir, attempt) < 0)
			return sb_errorf(err, "benchmark directory '%s': path too long", st->bench->dir);
		if (access(dir, F_OK) != 0)
			break;
		for (chunk = 0;; chunk++) {
			if (sb_bdir_chunk(path, sizeof(path), st->bench->dir, attempt, chunk, "map") < 0)
				return sb_errorf(err, "benchmark directory '%s': path too long", st->bench->dir);
			if (access(path, F_OK) != 0)
				break;
			if (read_map(st, path, attempt, chunk, subm, err) < 0)
				return -1;
		}
	}
	return 0;
}

/* ---- logs ---------------------------------------------------------------- */

struct log_choice {
	int64_t restart;
	bool own;             /* written by the job the scheduler names (raw id) */
	char *rel;            /* NULL: none found */
	size_t job_off, job_len; /* the job id in rel */
};

/* Whether candidate (restart, own, job, rel) is a better log for the run
 * than the one chosen so far: the latest restart; then one written by the
 * job the scheduler ran the run as (a chunk submitted twice has the logs of
 * two jobs); then the lowest job id; then the name.  A total order: the
 * choice never depends on the order of the directory entries. */
static bool better_log(const struct log_choice *lc, int64_t restart, bool own, const char *job,
		       size_t job_len, const char *rel)
{
	int c;

	if (lc->rel == NULL || restart != lc->restart)
		return lc->rel == NULL || restart > lc->restart;
	if (own != lc->own)
		return own;
	if (job_len != lc->job_len)
		return job_len < lc->job_len;
	c = memcmp(job, lc->rel + lc->job_off, job_len);
	return c ? c < 0 : strcmp(rel, lc->rel) < 0;
}

static int scan_logs(struct sb_status *st, struct log_choice **choices, struct sb_error *err)
{
	char events[PATH_MAX], shard[PATH_MAX + NAME_MAX + 2];
	struct dirent *d, *e;
	DIR *dp, *sp;

	if (snprintf(events, sizeof(events), "%s/events", st->bench->dir) >= (int)sizeof(events))
		return sb_errorf(err, "benchmark directory '%s': path too long", st->bench->dir);
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
			struct sb_attempt_status *a = NULL;
			struct sb_log_name ln;
			struct log_choice *lc;
			char rel[SB_LOG_REL_MAX];
			int64_t child, attempt, restart;
			const char *job;
			size_t i, job_len;
			bool own;

			if (sb_log_name_parse(e->d_name, &ln) < 0 || (uint64_t)ln.child >= st->n)
				continue;
			child = ln.child;
			attempt = ln.attempt;
			restart = ln.restart;
			job = ln.job;
			job_len = ln.job_len;
			for (i = 0; i < st->children[child].nattempts; i++)
				if (st->children[child].attempts[i].attempt == attempt)
					a = &st->children[child].attempts[i];
			if (a == NULL)
				continue; /* a log of no attempt sbctl made: not evidence */
			lc = &choices[child][a - st->children[child].attempts];
			/* both names are directory entries: no truncation (SB_LOG_REL_MAX) */
			snprintf(rel, sizeof(rel), "events/%s/%s", d->d_name, e->d_name);
			own = a->sched.row.raw_id != 0 && strtoull(job, NULL, 10) == a->sched.row.raw_id;
			if (!better_log(lc, restart, own, job, job_len, rel))
				continue;
			free(lc->rel);
			if ((lc->rel = strdup(rel)) == NULL) {
				closedir(sp);
				closedir(dp);
				return sb_errorf(err, "out of memory");
			}
			lc->restart = restart;
			lc->own = own;
			lc->job_off = strlen("events/") + strlen(d->d_name) + 1 + (size_t)(job - e->d_name);
			lc->job_len = job_len;
		}
		closedir(sp);
	}
	closedir(dp);
	return 0;
}

/* The metrics of a finish record, names whole; -1 when out of memory. */
static int copy_metrics(struct sb_attempt_status *a, const msgpack_object *m)
{
	uint32_t i;

	if (m == NULL || m->type != MSGPACK_OBJECT_MAP || m->via.map.size == 0)
		return 0;
	a->metrics = calloc(m->via.map.size, sizeof(*a->metrics));
	if (a->metrics == NULL)
		return -1;
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
		if (x->name == NULL)
			return -1;
		a->nmetrics++;
	}
	return 0;
}

/* Streams the SHA-256 of a file; -1 when it cannot be read. */
static int hash_file(const char *path, uint8_t out[SB_FILEHASH_LEN])
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), rc = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
		rc = sb_filehash_fd(fd, &sb, NULL, NULL, out, NULL) == 0 ? 0 : -1;
	close(fd);
	return rc;
}

/* Compares each hashed result of a verified exit-0 finish with the file now.
 * Paths are used whole, whatever their length (a spec may declare any
 * path); -1 only when out of memory. */
static int check_results(struct sb_status *st, struct sb_index *idx, int64_t child,
			 struct sb_attempt_status *a, const msgpack_object *results, bool rehash)
{
	struct sb_log_evidence *l = &a->log;
	uint32_t i;

	if (results == NULL || results->type != MSGPACK_OBJECT_ARRAY)
		return 0;
	for (i = 0; i < results->via.array.size; i++) {
		const msgpack_object *r = &results->via.array.ptr[i];
		const msgpack_object *missing = sb_mp_get(r, "missing"), *not_hashed = sb_mp_get(r, "not_hashed");
		const msgpack_object *sha_o = sb_mp_get(r, "sha256");
		char *path = NULL, *full = NULL, now_hex[65];
		uint8_t sha[32];
		struct stat sb;
		struct sb_index_file_stamp stamp;
		int cached = 0, rc = 0;

		if (dup_str(r, "path", &path) < 0)
			return -1;
		if (path == NULL && (path = strdup("")) == NULL)
			return -1;
		if (missing && missing->type == MSGPACK_OBJECT_BOOLEAN && missing->via.boolean) {
			rc = note(&l->not_ok, "result '%s' was missing at finish", path);
		} else if (not_hashed && not_hashed->type == MSGPACK_OBJECT_BOOLEAN && not_hashed->via.boolean) {
			rc = note(&l->not_ok, "result '%s' was not hashed (no time left before the kill)", path);
		} else if (sha_o == NULL || sha_o->type != MSGPACK_OBJECT_STR || sha_o->via.str.size != 64) {
			rc = note(&l->not_ok, "result '%s' could not be read at finish", path);
		} else if ((path[0] == '/' ? asprintf(&full, "%s", path)
			    : asprintf(&full, "%s/runs/%" PRId64 "/%s", st->bench->dir, child, path)) < 0) {
			full = NULL;
			rc = -1;
		} else if (lstat(full, &sb) < 0 || !S_ISREG(sb.st_mode)) {
			rc = note(&l->changed, "result '%s' is gone since the verified finish", path);
		} else {
			stamp = (struct sb_index_file_stamp){
				sb.st_size, (int64_t)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec,
				(int64_t)sb.st_ctim.tv_sec * 1000000000LL + sb.st_ctim.tv_nsec, (uint64_t)sb.st_ino,
			};
			if (!rehash && idx)
				cached = sb_index_get_hash(idx, full, &stamp, sha, NULL) == 1;
			if (!cached && hash_file(full, sha) < 0) {
				rc = note(&l->changed, "result '%s' cannot be read now", path);
			} else {
				if (!cached && idx)
					sb_index_put_hash(idx, full, &stamp, sha, NULL);
				sb_hex_encode(sha, 32, now_hex);
				if (memcmp(now_hex, sha_o->via.str.ptr, 64) != 0)
					rc = note(&l->changed, "result '%s' changed after the verified finish "
						  "(sha256 %.12s, not %.12s)", path, now_hex, sha_o->via.str.ptr);
			}
		}
		free(path);
		free(full);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int read_log(struct sb_status *st, struct sb_log_verifier *v, struct sb_index *idx,
		    int64_t child, struct sb_attempt_status *a, const char *rel, bool rehash,
		    struct sb_error *err)
{
	struct sb_run_ident want = { .bench = st->bench->digest, .child = child,
				     .attempt = a->attempt, .restart = -1, .pid = -1 };
	struct sb_log_head head;
	struct sb_log_expect ex = { .id = &want };
	char *path;
	struct sb_log_result *r;
	struct stat sb;
	uint64_t count;
	size_t i, nv;
	int have_head = 0, rc = 0;

	if (asprintf(&path, "%s/%s", st->bench->dir, rel) < 0)
		return sb_errorf(err, "out of memory");
	if (idx && sb_index_get_head(idx, st->bench->digest, rel, &count, head.tag, NULL) == 1) {
		head.count = count;
		ex.head = &head;
		have_head = 1;
	}
	r = sb_log_read_file(v, path, &ex, err);
	if (r == NULL) {
		free(path);
		return -1;
	}
	a->log.present = true;
	a->log.tail = sb_log_result_tail(r);
	if (stat(path, &sb) == 0)
		a->log.last_life_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
	free(path);
	nv = sb_log_result_verified(r);
	for (i = 0; rc == 0 && i < nv; i++) {
		const struct sb_log_record *rec = sb_log_result_record(r, i);
		if (rec->time_ns > a->log.last_life_ns)
			a->log.last_life_ns = rec->time_ns;
		if (!strcmp(rec->type, "start") && !a->log.has_start) {
			a->log.has_start = true;
			if (rec->id.job_id && (a->log.job_id = strdup(rec->id.job_id)) == NULL)
				rc = -1;
		} else if (!strcmp(rec->type, "finish") && !a->log.has_finish) {
			const msgpack_object *pl = &rec->payload, *mer = sb_mp_get(pl, "metrics_error");
			a->log.has_finish = true;
			a->log.finish_ns = rec->time_ns;
			a->log.exit_code = (int)get_int(pl, "exit_code", -1);
			a->log.signal = (int)get_int(pl, "signal", 0);
			if (dup_str(pl, "error", &a->log.error) < 0)
				rc = -1;
			if (rc == 0 && copy_metrics(a, sb_mp_get(pl, "metrics")) < 0)
				rc = -1;
			if (rc == 0 && mer && mer->type == MSGPACK_OBJECT_STR &&
			    note(&a->log.not_ok, "the metrics file could not be read: %.*s",
				 (int)mer->via.str.size, mer->via.str.ptr) < 0)
				rc = -1;
			if (rc == 0 && a->log.exit_code == 0 && !(a->log.error && a->log.error[0]))
				rc = check_results(st, idx, child, a, sb_mp_get(pl, "results"), rehash);
		}
	}
	/* remember the verified head: a later, shorter log is a rollback */
	if (rc == 0 && idx && (a->log.tail == SB_LOG_TAIL_OK || a->log.tail == SB_LOG_TAIL_TORN) &&
	    sb_log_result_head(r, &head) == 0 && (!have_head || head.count > count))
		sb_index_put_head(idx, st->bench->digest, rel, head.count, head.tag, NULL);
	sb_log_result_destroy(r);
	return rc < 0 ? sb_errorf(err, "out of memory reading log '%s'", rel) : 0;
}

static int read_logs(struct sb_status *st, const struct sb_key *key, struct sb_index *idx,
		     const struct sb_status_cfg *o, struct sb_error *err)
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
			total += choices[c][i].rel != NULL;
	for (c = 0; c < st->n; c++) {
		for (i = 0; i < st->children[c].nattempts; i++) {
			struct sb_attempt_status *a = &st->children[c].attempts[i];
			if (choices[c][i].rel == NULL)
				continue;
			a->log_restart = choices[c][i].restart;
			a->log_rel = choices[c][i].rel; /* a owns it from here on */
			choices[c][i].rel = NULL;
			if (read_log(st, v, idx, (int64_t)c, a, a->log_rel, o->rehash, err) < 0)
				goto out;
			progress(o, "reading logs", ++done, total);
		}
	}
	rc = 0;
out:
	sb_log_verifier_destroy(v);
	for (c = 0; c < st->n; c++)
		for (i = 0; choices[c] && i < st->children[c].nattempts; i++)
			free(choices[c][i].rel);
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
		     int timeout_ms, int squeue, struct sb_error *err)
{
	struct sb_proc_result r;
	int rc;

	if (sb_proc_run(argv, SCHED_OUTPUT_MAX, timeout_ms, &r, err) < 0)
		return sb_error_prefix(err, "cannot ask the scheduler (%s)", what);
	if (r.exit_code != 0 || r.truncated) {
		char line[300];
		snprintf(line, sizeof(line), "%s", r.err_len ? r.err : r.out);
		line[strcspn(line, "\n")] = '\0';
		if (r.timed_out)
			rc = sb_errorf(err, "%s failed: no answer within %.3g s", what, timeout_ms / 1000.0);
		else
			rc = sb_errorf(err, "%s failed: %s", what, r.truncated ? "output too large"
				       : line[0] ? line : "no message");
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

	log_evidence_release(&a->log);
	free(a->log_rel);
	a->log_rel = NULL;
	for (m = 0; m < a->nmetrics; m++)
		free(a->metrics[m].name);
	free(a->metrics);
	a->metrics = NULL;
	a->nmetrics = 0;
}

/* One squeue call, then one sacct call per SB_SACCT_IDS_PER_CALL arrays: a
 * job stays in squeue for MinJobAge after its end and is in accounting soon
 * after its submission, so one that moves between the two calls is seen by
 * one of them; sacct's row (the later answer) is preferred. */
static int ask_scheduler(struct sb_status *st, int timeout_ms, struct sb_error *err)
{
	size_t n, i, k, used, max = st->n * 4 + 100000;
	char **ids = job_ids(st, &n), start[32], *list;
	time_t since = (time_t)(st->bench->created_ns / 1000000000) - 86400;
	struct tm tm;
	int rc = 0;

	if (n == 0) {
		free(ids);
		return 0;
	}
	list = malloc(n * (SB_JOB_ID_MAX + 1) + 1);
	if (list == NULL) {
		free(ids);
		return sb_errorf(err, "out of memory");
	}
	for (k = 0, used = 0; k < n; k++)
		used += (size_t)sprintf(list + used, "%s%s", k ? "," : "", ids[k]);
	{
		char *argv[] = { "squeue", "-h", "-r", "-j", list, "-o", SB_SQUEUE_FORMAT, NULL };
		/* squeue fails for ids it no longer knows on real Slurm: not fatal */
		if (run_query(argv, "squeue", &st->queue, max, timeout_ms, 1, NULL) < 0)
			st->queue.n = 0;
		st->squeue_calls++;
	}
	localtime_r(&since, &tm);
	strftime(start, sizeof(start), "%Y-%m-%dT%H:%M:%S", &tm);
	for (i = 0; rc == 0 && i < n; i += SB_SACCT_IDS_PER_CALL) {
		for (k = i, used = 0; k < n && k < i + SB_SACCT_IDS_PER_CALL; k++)
			used += (size_t)sprintf(list + used, "%s%s", k > i ? "," : "", ids[k]);
		{
			char *argv[] = { "sacct", "-P", "-n", "-X", "-D", "-j", list, "-S", start,
					 "--format=" SB_SACCT_FORMAT, NULL };
			rc = run_query(argv, "sacct", &st->acct, max, timeout_ms, 0, err);
			st->sacct_calls++;
		}
	}
	free(list);
	free(ids);
	return rc;
}

/* Gives each submitted attempt its row: sacct's (its latest run), else
 * squeue's; squeue's pending reason where sacct has none. */
static void attach_rows(struct sb_status *st, const struct row_index *acct_ix,
			const struct row_index *queue_ix)
{
	size_t c, i;

	for (c = 0; c < st->n; c++) {
		for (i = 0; i < st->children[c].nattempts; i++) {
			struct sb_attempt_status *a = &st->children[c].attempts[i];
			const struct sb_sched_row *row, *q;
			int64_t earlier;

			a->sched_restart = -1;
			if (!a->job_id[0])
				continue;
			row = find_row(acct_ix, a->job_id, &a->sched_restart);
			if (row == NULL || row->state == SB_STATE_UNKNOWN)
				row = find_row(queue_ix, a->job_id, &earlier);
			if (row == NULL)
				continue;
			a->sched.row = *row;
			a->sched.has_row = true;
			/* sacct has no pending reason: squeue's, when it says the same */
			if ((row->reason == NULL || !row->reason[0]) && row->state == SB_STATE_PENDING &&
			    (q = find_row(queue_ix, a->job_id, &earlier)) != NULL && q->state == row->state)
				a->sched.row.reason = q->reason;
		}
	}
}

/* 1 when a submit (or rerun) of the benchmark holds its lock now: its
 * chunks without a job id are being submitted, not missing. */
int sb_status_submit_running(const char *dir)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char *path;
	int fd, rc;

	if (asprintf(&path, "%s/lock", dir) < 0)
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return 0;
	rc = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
	close(fd);
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

/* The latest outcome of each (child, attempt) in the total order of the
 * records, and the cancels: one pass over the submission records. */
static void gather_records(struct sb_status *st, const struct sb_subm *subm,
			   const size_t *first_attempt, const struct sb_subm_entry **outcomes,
			   const struct sb_subm_entry **cancels, size_t *ncancels)
{
	size_t i, k;

	*ncancels = 0;
	for (i = 0; i < subm->n; i++) {
		const struct sb_subm_entry *e = &subm->v[i];
		if (e->type == SB_SUBM_CANCEL)
			cancels[(*ncancels)++] = e;
		if (e->type != SB_SUBM_OUTCOME || e->child < 0 || (size_t)e->child >= st->n)
			continue;
		for (k = 0; k < st->children[e->child].nattempts; k++) {
			const struct sb_subm_entry **o = &outcomes[first_attempt[e->child] + k];
			if (st->children[e->child].attempts[k].attempt == e->attempt &&
			    (*o == NULL || cmp_entry(e, *o) > 0))
				*o = e;
		}
	}
}

/* Classifies one attempt from the evidence gathered. */
static void classify_attempt(struct sb_status *st, struct sb_attempt_status *a,
			     const struct sb_subm_entry *out, const struct sb_subm_entry **cancels,
			     size_t ncancels, const struct sb_classify_params *p)
{
	size_t k;

	a->sched.consulted = st->consulted;
	a->sched.submitting = st->submitting;
	for (k = 0; k < ncancels; k++)
		if (cancels[k]->attempt == a->attempt &&
		    (cancels[k]->chunk < 0 || cancels[k]->chunk == a->chunk))
			a->sched.cancel_recorded = true;
	if (a->sched.has_row && a->log.present && a->sched_restart > a->log_restart)
		forget_earlier_run(a);
	if (!a->sched.has_row && out)
		apply_outcome(a, out);
	sb_classify(&a->log, &a->sched, p, &a->verdict);
	if (a->duplicate) {
		char *was = strdup(a->verdict.reason);
		sb_verdict_set_reason(&a->verdict, "%s%schunk %" PRId64 " of attempt %" PRId64 " was "
				      "submitted more than once (arrays %s): classified by array %s",
				      was ? was : "", was && was[0] ? "; " : "", a->chunk, a->attempt,
				      a->duplicate, a->array_job);
		free(was);
	}
}

/* The lines of sb_status_warning: the chunks submitted more than once, the
 * outcomes that could not be recorded.  -1 when out of memory. */
static int make_warnings(struct sb_status *st)
{
	size_t i, n = st->ndups + (st->outcome_error != NULL);

	st->warnings = calloc(n + 1, sizeof(*st->warnings));
	if (st->warnings == NULL)
		return -1;
	for (i = 0; i < st->ndups; i++)
		if (asprintf(&st->warnings[st->nwarnings++], "chunk %" PRId64 " of attempt %" PRId64
			     " was submitted more than once (arrays %s); its children are classified "
			     "by array %s", st->dups[i].chunk, st->dups[i].attempt, st->dups[i].job_ids,
			     st->dups[i].chosen) < 0)
			return st->warnings[--st->nwarnings] = NULL, -1;
	if (st->outcome_error &&
	    asprintf(&st->warnings[st->nwarnings++], "the scheduler's final states could not be "
		     "recorded in submissions/ (%s); the classification is complete, a later status "
		     "records them", st->outcome_error) < 0)
		return st->warnings[--st->nwarnings] = NULL, -1;
	return 0;
}

int sb_status_gather(struct sb_bench *b, const struct sb_status_cfg *o,
		     struct sb_status *st, struct sb_error *err)
{
	struct sb_classify_params p;
	struct row_index acct_ix = { 0 }, queue_ix = { 0 };
	const struct sb_subm_entry **outcomes = NULL, **cancels = NULL;
	size_t *first_attempt = NULL, ncancels = 0;
	struct sb_subm subm = { 0 };
	struct sb_subm_writer *w = NULL;
	struct sb_index *idx = NULL;
	struct sb_error werr;
	struct sb_key key;
	size_t c, i;
	int rc = -1;

	/* st is zeroed by the caller (which may have set owns_bench) */
	st->bench = b;
	st->n = b->children;
	st->children = calloc(st->n ? st->n : 1, sizeof(*st->children));
	if (st->children == NULL)
		return sb_errorf(err, "out of memory");
	for (c = 0; c < st->n; c++)
		st->children[c].index = c;
	if (sb_bench_load_key(b, &key, err) < 0)
		return -1;
	/* 1. sbctl's own records: which jobs ran which chunks */
	st->submitting = sb_status_submit_running(b->dir) == 1;
	if (sb_subm_read(b, &key, &subm, err) < 0 || read_maps(st, &subm, err) < 0)
		goto out;
	/* 2. the scheduler */
	st->asked_ns = now_ns();
	if (!o->offline) {
		if (ask_scheduler(st, o->sched_timeout_ms > 0 ? o->sched_timeout_ms : SCHED_TIMEOUT_MS,
				  err) < 0) {
			st->sched_failed = true;
			if (err && err->code != SB_ERR_NOMEM)
				err->code = SB_ERR_SCHEDULER;
			goto out;
		}
		st->consulted = true;
		if (row_index_build(&acct_ix, &st->acct) < 0 || row_index_build(&queue_ix, &st->queue) < 0) {
			sb_errorf(err, "out of memory");
			goto out;
		}
		attach_rows(st, &acct_ix, &queue_ix);
	}
	/* 3. the logs, read after the scheduler answered: "now" is taken before
	 * them, so that the settle time since a job's End is never overstated */
	st->now_ns = now_ns();
	/* only a cache here: work without it */
	idx = o->ctx && sb_ctx_index(o->ctx) ? sb_index_open(sb_ctx_index(o->ctx), NULL, NULL) : NULL;
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
	gather_records(st, &subm, first_attempt, outcomes, cancels, &ncancels);
	p = (struct sb_classify_params){ .now_ns = st->now_ns, .asked_ns = st->asked_ns,
					 .heartbeat_s = sb_spec_heartbeat(b->spec), .settle_s = o->settle_s };
	for (c = 0; c < st->n; c++) {
		struct sb_child_status *ch = &st->children[c];
		for (i = 0; i < ch->nattempts; i++) {
			struct sb_attempt_status *a = &ch->attempts[i];
			const struct sb_subm_entry *out = outcomes[first_attempt[c] + i];
			bool from_sched = a->sched.has_row;
			classify_attempt(st, a, out, cancels, ncancels, &p);
			/* a full disk stops the recording, never the classification */
			if (from_sched && !out && o->record_outcomes && !st->outcome_error &&
			    sb_sched_state_terminal(a->sched.row.state) &&
			    a->verdict.cls != SB_CLASS_RUNNING && a->verdict.cls != SB_CLASS_PENDING &&
			    a->verdict.cls != SB_CLASS_STALE &&
			    record_outcome(st, &w, &key, (int64_t)c, a, &werr) < 0 &&
			    (st->outcome_error = strdup(werr.msg)) == NULL) {
				sb_errorf(err, "out of memory");
				goto out;
			}
		}
		ch->latest = ch->nattempts ? &ch->attempts[ch->nattempts - 1] : NULL;
		if (ch->latest) {
			ch->cls = ch->latest->verdict.cls;
			ch->reason = ch->latest->verdict.reason;
		} else if (st->submitting) {
			ch->cls = SB_CLASS_PENDING;
			ch->reason = "being submitted (a submit of this benchmark is running: no job id "
				     "recorded yet)";
		} else {
			ch->cls = SB_CLASS_MISSING;
			ch->reason = "never submitted";
		}
		st->counts[ch->cls]++;
	}
	rc = 0;
out:
	if (sb_subm_writer_close_all_or_nothing(w, &werr) < 0) {
		st->outcomes_recorded = 0;
		if (st->outcome_error == NULL)
			st->outcome_error = strdup(werr.msg);
	}
	if (rc == 0 && make_warnings(st) < 0)
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	/* evidence that cannot be read is a runtime failure, whatever the
	 * reader called it (a refused key file...) */
	if (rc < 0 && err && err->code != SB_ERR_NOMEM && err->code != SB_ERR_SCHEDULER)
		err->code = SB_ERR_RUNTIME;
	sb_index_close(idx);
	sb_subm_release(&subm);
	free(acct_ix.v);
	free(queue_ix.v);
	free(outcomes);
	free(cancels);
	free(first_attempt);
	sb_key_cleanse(&key);
	return rc;
}

int sb_status_run(const char *bench, const struct sb_status_cfg *o, struct sb_status *st,
		  struct sb_error *err)
{
	struct sb_bench *b;

	memset(st, 0, sizeof(*st));
	b = sb_bench_find(o->ctx, bench, err);
	if (b == NULL)
		return -2;
	st->bench = b;
	st->owns_bench = true;
	if (sb_bench_plan(b, err) < 0) /* SB_ERR_RUNTIME: its record does not plan */
		return -1;
	if (sb_status_gather(b, o, st, err) < 0)
		return -1;
	return 0;
}

void sb_status_release(struct sb_status *st)
{
	size_t c, i, m;

	if (st == NULL)
		return;
	for (c = 0; c < st->n && st->children; c++) {
		for (i = 0; i < st->children[c].nattempts; i++) {
			struct sb_attempt_status *a = &st->children[c].attempts[i];
			for (m = 0; m < a->nmetrics; m++)
				free(a->metrics[m].name);
			free(a->metrics);
			log_evidence_release(&a->log);
			sb_verdict_release(&a->verdict);
			free(a->log_rel);
		}
		free(st->children[c].attempts);
	}
	free(st->children);
	for (i = 0; i < st->ndups; i++)
		free(st->dups[i].job_ids);
	free(st->dups);
	free(st->outcome_error);
	sb_sched_rows_release(&st->acct);
	sb_sched_rows_release(&st->queue);
	for (i = 0; i < st->nwarnings; i++)
		free(st->warnings[i]);
	free(st->warnings);
	if (st->owns_bench)
		sb_bench_destroy(st->bench);
	memset(st, 0, sizeof(*st));
}
