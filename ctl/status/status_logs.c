/* The logs stage of sbctl status (ctl/status/status_stages.h): each attempt's
 * log in events/, verified, its start and finish, and the results its
 * finish hashed compared with the files now. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/finish.h"
#include "bench/index_private.h"
#include "log/logfiles.h"
#include "plan/plan_inputs.h"
#include "base/parallel.h"
#include "bench/resulthash.h"
#include "status/spans.h"
#include "status/status_stages.h"
#include "proto/benchdir.h"
#include "proto/filehash.h"
#include "proto/inputs.h"
#include "proto/util.h"
#include "sbench/context.h"
#include "sbench/log.h"
#include "sbench/logview.h"
#include "proto/recordkeys.h"

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

/* The notes of l, made at the first one; NULL when out of memory. */
static struct sb_log_notes *notes_of(struct sb_log_evidence *l)
{
	if (l->notes == NULL)
		l->notes = calloc(1, sizeof(*l->notes));
	return l->notes;
}

/* Sets a note of l, the field of struct sb_log_notes at offset field (when
 * still unset), to a formatted text; -1 when out of memory. */
static int note(struct sb_log_evidence *l, size_t field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int note(struct sb_log_evidence *l, size_t field, const char *fmt, ...)
{
	struct sb_log_notes *ns = notes_of(l);
	va_list ap;
	char **slot;
	int n;

	if (ns == NULL)
		return -1;
	slot = (char **)((char *)ns + field);
	if (*slot)
		return 0;
	va_start(ap, fmt);
	n = vasprintf(slot, fmt, ap);
	va_end(ap);
	if (n < 0)
		*slot = NULL;
	return n < 0 ? -1 : 0;
}

/* Gives text (malloc'd, may be NULL: none) to a note of l as note() does. */
static int take_note(struct sb_log_evidence *l, size_t field, char *text)
{
	struct sb_log_notes *ns;

	if (text == NULL)
		return 0;
	if ((ns = notes_of(l)) == NULL) {
		free(text);
		return -1;
	}
	free(*(char **)((char *)ns + field));
	*(char **)((char *)ns + field) = text;
	return 0;
}

#define NOTE(f) offsetof(struct sb_log_notes, f)

static const char *hex12(const uint8_t *sha, char out[65])
{
	sb_hex_encode(sha, 32, out);
	out[12] = '\0';
	return out;
}

/* The input files the start record hashed against their digests at submit
 * (the record's table): a note naming the first that differs, and how many
 * more do.  -1 when out of memory. */
static int check_inputs(const struct sb_inputs *table, const msgpack_object *o,
			struct sb_log_evidence *l)
{
	char first[SB_INPUTS_MAX_PATH + 400], hex[2][65];
	size_t bad = 0;
	uint32_t i;

	if (o == NULL)
		return 0;
	if (o->type != MSGPACK_OBJECT_MAP)
		return note(l, NOTE(inputs), "the start record's inputs are not a map");
	for (i = 0; i < o->via.map.size; i++) {
		const msgpack_object *k = &o->via.map.ptr[i].key, *v = &o->via.map.ptr[i].val;
		const struct sb_input_file *f = NULL;
		char rel[SB_INPUTS_MAX_PATH];
		int kl = k->type == MSGPACK_OBJECT_STR && k->via.str.size < sizeof(rel) ?
			(int)k->via.str.size : -1;
		if (kl >= 0) {
			if (kl > 0)
				memcpy(rel, k->via.str.ptr, (size_t)kl);
			rel[kl] = '\0';
			f = table ? sb_inputs_find(table, rel) : NULL;
		}
		if (f && v->type == MSGPACK_OBJECT_BIN && v->via.bin.size == 32 &&
		    !memcmp(v->via.bin.ptr, f->sha, 32))
			continue;
		if (bad++ > 0)
			continue;
		if (kl < 0)
			snprintf(first, sizeof(first), "the start record names an input that is not a path");
		else if (f == NULL)
			snprintf(first, sizeof(first), "input '%s' was not an input at submit", rel);
		else if (v->type == MSGPACK_OBJECT_STR)
			snprintf(first, sizeof(first), "input '%s' changed after submit: when the job "
				 "started it was %.*s (sha256 %s at submit)", rel,
				 (int)(v->via.str.size < 200 ? v->via.str.size : 200), v->via.str.ptr,
				 hex12(f->sha, hex[0]));
		else if (v->type == MSGPACK_OBJECT_BIN && v->via.bin.size == 32)
			snprintf(first, sizeof(first), "input '%s' changed after submit: sha256 %s at "
				 "submit, %s when the job started", rel, hex12(f->sha, hex[0]),
				 hex12((const uint8_t *)v->via.bin.ptr, hex[1]));
		else
			snprintf(first, sizeof(first), "input '%s' has no digest in the start record", rel);
	}
	if (bad == 0)
		return 0;
	if (bad == 1)
		return note(l, NOTE(inputs), "%s", first);
	return note(l, NOTE(inputs), "%s (and %zu more input%s)", first, bad - 1, bad > 2 ? "s" : "");
}

/* Progress through the context's callback: only for long reads, and about
 * once per 1,000 steps. */
static void progress(const struct sb_status_cfg *o, const char *what, size_t done, size_t total)
{
	if (total < 1000 || (done % 997 != 0 && done != total))
		return;
	sb_ctx_progress(o->ctx, what, done, total);
}

const char *sb_status_log_rel(const struct sb_attempt_status *a, size_t child,
			      char buf[SB_LOG_REL_MAX])
{
	char job[24];

	if (!a->log_by_job)
		return a->log_rel;
	snprintf(job, sizeof(job), "%" PRIu64, a->log_job);
	/* it was read under this name: it fits */
	if (sb_bdir_log(buf, SB_LOG_REL_MAX, NULL, (int64_t)child, a->attempt, job, a->log_restart) < 0)
		buf[0] = '\0';
	return buf;
}

static bool has_log(const struct sb_attempt_status *a)
{
	return a->log_by_job || a->log_rel != NULL;
}

/* A log name and what it says of the run. */
struct log_cand {
	const char *rel;
	int64_t restart;
	const char *job;      /* in rel */
	size_t job_len;
	bool own;             /* written by the job the scheduler names (raw id) */
};

/* Whether candidate x is a better log for the run than y: the latest
 * restart; then one written by the job the scheduler ran the run as (a
 * chunk submitted twice has the logs of two jobs); then the lowest job id;
 * then the name.  A total order: the choice never depends on the order of
 * the directory entries. */
static bool better_log(const struct log_cand *x, const struct log_cand *y)
{
	int c;

	if (x->restart != y->restart)
		return x->restart > y->restart;
	if (x->own != y->own)
		return x->own;
	if (x->job_len != y->job_len)
		return x->job_len < y->job_len;
	c = memcmp(x->job, y->job, x->job_len);
	return c ? c < 0 : strcmp(x->rel, y->rel) < 0;
}

/* The candidate of a log name rel ("events/<shard>/<name>") of attempt a. */
static int log_cand(const struct sb_attempt_status *a, const char *rel, struct log_cand *lc)
{
	const char *base = strrchr(rel, '/');
	struct sb_log_name ln;

	if (sb_log_name_parse(base ? base + 1 : rel, &ln) < 0)
		return -1;
	lc->rel = rel;
	lc->restart = ln.restart;
	lc->job = ln.job;
	lc->job_len = ln.job_len;
	lc->own = a->sched.row.raw_id != 0 && strtoull(ln.job, NULL, 10) == a->sched.row.raw_id;
	return 0;
}

/* Takes the log rel for attempt a of child: by its job's number when its
 * name is the one sb_bdir_log gives (nothing kept but the number: a
 * million children's names would be 35 MB), else a copy. */
static int take_log(struct sb_status *st, struct sb_attempt_status *a, size_t child,
		    const struct log_cand *lc)
{
	char canon[SB_LOG_REL_MAX], digits[24];
	uint64_t job = 0;
	size_t k;

	for (k = 0; k < lc->job_len && k < 20 && lc->job[k] >= '0' && lc->job[k] <= '9'; k++)
		job = 10 * job + (uint64_t)(lc->job[k] - '0');
	a->log_restart = (int32_t)lc->restart;
	if (k == lc->job_len && k > 0 && k <= 19 && (lc->job[0] != '0' || k == 1)) {
		snprintf(digits, sizeof(digits), "%" PRIu64, job);
		if (sb_bdir_log(canon, sizeof(canon), NULL, (int64_t)child, a->attempt, digits,
				lc->restart) >= 0 && !strcmp(canon, lc->rel)) {
			a->log_by_job = true;
			a->log_job = job;
			return 0;
		}
	}
	a->log_by_job = false;
	a->log_rel = sb_arena_strndup(&st->strings, lc->rel, strlen(lc->rel));
	return a->log_rel ? 0 : -1;
}

/* Every attempt's log: the best of the names in events/ (better_log),
 * straight into the attempts. */
static int scan_logs(struct sb_status *st, struct sb_error *err)
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
			struct sb_child_status *ch;
			struct sb_log_name ln;
			struct log_cand cand, cur;
			char rel[SB_LOG_REL_MAX], buf[SB_LOG_REL_MAX];
			size_t i;

			if (sb_log_name_parse(e->d_name, &ln) < 0 || (uint64_t)ln.child >= st->n)
				continue;
			ch = &st->children[ln.child];
			for (i = 0; i < ch->nattempts; i++)
				if (ch->attempts[i].attempt == ln.attempt)
					a = &ch->attempts[i];
			if (a == NULL)
				continue; /* a log of no attempt sbctl made: not evidence */
			/* both names are directory entries: no truncation (SB_LOG_REL_MAX) */
			snprintf(rel, sizeof(rel), "events/%s/%s", d->d_name, e->d_name);
			/* a restart count beyond 32 bits is no agent's */
			if (log_cand(a, rel, &cand) < 0 || cand.restart > INT32_MAX)
				continue;
			if (has_log(a) && log_cand(a, sb_status_log_rel(a, (size_t)ln.child, buf), &cur) == 0 &&
			    !better_log(&cand, &cur))
				continue;
			/* a better one found later leaves this copy in the arena:
			 * a run has few logs */
			if (take_log(st, a, (size_t)ln.child, &cand) < 0) {
				closedir(sp);
				closedir(dp);
				return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			}
		}
		closedir(sp);
	}
	closedir(dp);
	return 0;
}

static double mp_num(const msgpack_object *o, bool *ok)
{
	*ok = true;
	if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
		return (double)o->via.u64;
	if (o && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		return (double)o->via.i64;
	if (o && (o->type == MSGPACK_OBJECT_FLOAT64 || o->type == MSGPACK_OBJECT_FLOAT32))
		return o->via.f64;
	*ok = false;
	return 0;
}

/* wall_s, max_rss_kb and user_s + sys_s of a verified finish record's
 * payload into log (has_usage: all four there). */
static void usage_from_finish(const msgpack_object *pl, struct sb_log_evidence *log)
{
	bool w, r, u, s;
	double wall = mp_num(sb_mp_get(pl, SB_RK_WALL_S), &w);
	double rss = mp_num(sb_mp_get(pl, SB_RK_MAX_RSS_KB), &r);
	double user = mp_num(sb_mp_get(pl, SB_RK_USER_S), &u);
	double sys = mp_num(sb_mp_get(pl, SB_RK_SYS_S), &s);

	log->has_usage = w && r && u && s;
	if (!log->has_usage)
		return;
	log->wall_s = wall;
	log->max_rss_kb = (int64_t)rss;
	log->cpu_s = user + sys;
}

/* The metrics of a finish record into the thread's store: the array in
 * its arena, each name interned (a million children share a few names);
 * -1 when out of memory. */
static int copy_metrics(struct sb_attempt_status *a, const msgpack_object *m,
			struct sb_status_store *store)
{
	char small[128], *name;
	uint32_t i;

	if (m == NULL || m->type != MSGPACK_OBJECT_MAP || m->via.map.size == 0)
		return 0;
	a->metrics = sb_arena_alloc(&store->arena, m->via.map.size * sizeof(*a->metrics));
	if (a->metrics == NULL)
		return -1;
	for (i = 0; i < m->via.map.size; i++) {
		const msgpack_object *k = &m->via.map.ptr[i].key, *v = &m->via.map.ptr[i].val;
		struct sb_metric *x = &a->metrics[a->nmetrics];
		size_t len;

		if (k->type != MSGPACK_OBJECT_STR || !sb_metric_value(v, x))
			continue;
		len = k->via.str.size; /* a name of any length, whole */
		name = len < sizeof(small) ? small : malloc(len + 1);
		if (name == NULL)
			return -1;
		memcpy(name, k->via.str.ptr, len);
		name[len] = '\0';
		x->name = (char *)sb_intern(&store->names, name);
		if (name != small)
			free(name);
		if (x->name == NULL)
			return -1;
		a->nmetrics++;
	}
	return 0;
}

/* Compares each hashed result of a verified exit-0 finish with the file now.
 * Paths are used whole, whatever their length (a spec may declare any
 * path).  -1 with err when out of memory or a result cannot be read (an
 * I/O error is no evidence either way: status fails rather than give a
 * verdict). */
static int check_results(struct sb_status *st, struct sb_index *idx, int64_t child,
			 struct sb_attempt_status *a, const msgpack_object *results, bool rehash,
			 struct sb_error *err)
{
	struct sb_log_evidence *l = &a->log;
	char run[PATH_MAX + 32]; /* "<dir>/runs/<child>": a directory path and 26 bytes */
	uint32_t i;

	if (results == NULL || results->type != MSGPACK_OBJECT_ARRAY)
		return 0;
	if (sb_bdir_run(run, sizeof(run), st->bench->dir, child) < 0)
		return sb_errorf(err, "benchmark directory path '%s' is too long", st->bench->dir);
	for (i = 0; i < results->via.array.size; i++) {
		const msgpack_object *r = &results->via.array.ptr[i];
		const msgpack_object *missing = sb_mp_get(r, SB_RK_MISSING), *not_hashed = sb_mp_get(r, SB_RK_NOT_HASHED);
		const msgpack_object *sha_o = sb_mp_get(r, SB_RK_SHA256);
		char *path = NULL, *full = NULL, now_hex[65];
		int got, rc = 0;

		if (dup_str(r, SB_RK_PATH, &path) < 0 || (path == NULL && (path = strdup("")) == NULL))
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		if (missing && missing->type == MSGPACK_OBJECT_BOOLEAN && missing->via.boolean) {
			rc = note(l, NOTE(not_ok), "result '%s' was missing at finish", path);
		} else if (not_hashed && not_hashed->type == MSGPACK_OBJECT_BOOLEAN && not_hashed->via.boolean) {
			rc = note(l, NOTE(not_ok), "result '%s' was not hashed (no time left before the kill)", path);
		} else if (sha_o == NULL || sha_o->type != MSGPACK_OBJECT_STR || sha_o->via.str.size != 64) {
			rc = note(l, NOTE(not_ok), "result '%s' could not be read at finish", path);
		} else if ((path[0] == '/' ? asprintf(&full, "%s", path)
			    : asprintf(&full, "%s/%s", run, path)) < 0) {
			full = NULL;
			rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		} else if ((got = sb_result_hash(full, idx, rehash, now_hex, err)) < 0) {
			rc = -1;
		} else if (got == 1) {
			rc = note(l, NOTE(changed), "result '%s' is gone since the verified finish", path);
		} else if (memcmp(now_hex, sha_o->via.str.ptr, 64) != 0) {
			rc = note(l, NOTE(changed), "result '%s' changed after the verified finish "
				  "(sha256 %.12s, not %.12s)", path, now_hex, sha_o->via.str.ptr);
		}
		if (rc < 0 && err && err->msg[0] == '\0')
			sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		free(path);
		free(full);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Reads, verifies and takes in the log rel (below the benchmark directory,
 * open as dirfd) of attempt a, with the verifier v and the buffer buf of
 * the calling thread. */
static int read_log(struct sb_status *st, struct sb_log_verifier *v, struct sb_logbuf *buf,
		    struct sb_status_store *store, int dirfd, struct sb_index *idx, int64_t child,
		    struct sb_attempt_status *a, const char *rel, bool rehash, struct sb_error *err)
{
	struct sb_run_ident want = { .bench = st->bench->digest, .child = child,
				     .attempt = a->attempt, .restart = -1, .pid = -1 };
	struct sb_log_head head;
	struct sb_log_expect ex = { .id = &want };
	struct sb_log_result *r;
	struct sb_error why = { 0 };
	struct stat sb;
	uint64_t count;
	size_t i, nv;
	int have_head = 0, rc = 0;

	if (idx && sb_index_get_head(idx, st->bench->dir, rel, &count, head.tag, NULL) == 1) {
		head.count = count;
		ex.head = &head;
		have_head = 1;
	}
	/* the open is relative to the directory (no walk of its whole path),
	 * and its fstat gives the mtime: no second stat */
	if (sb_logbuf_read_at(buf, dirfd, rel, st->bench->dir, &sb, err) < 0)
		return -1;
	r = sb_log_read_buffer(v, buf->data, buf->len, &ex, err);
	if (r == NULL)
		return -1;
	a->log.present = true;
	a->log.tail = sb_log_result_tail(r);
	a->log.last_life_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
	nv = sb_log_result_verified(r);
	for (i = 0; rc == 0 && i < nv; i++) {
		const struct sb_log_record *rec = sb_log_result_record(r, i);
		if (rec->time_ns > a->log.last_life_ns)
			a->log.last_life_ns = rec->time_ns;
		if (!strcmp(rec->type, SB_RT_START) && !a->log.has_start) {
			a->log.has_start = true;
			a->log.start_ns = rec->time_ns;
			if (rec->id.job_id && sb_log_evidence_set_job_id(&a->log, rec->id.job_id) < 0)
				rc = -1;
			if (rc == 0 && check_inputs(st->bench->inputs, sb_mp_get(&rec->payload, SB_RK_INPUTS),
						    &a->log) < 0)
				rc = -1;
		} else if (!strcmp(rec->type, SB_RT_FINISH) && !a->log.has_finish) {
			const msgpack_object *pl = &rec->payload, *mer = sb_mp_get(pl, SB_RK_METRICS_ERROR);
			a->log.has_finish = true;
			a->log.finish_ns = rec->time_ns;
			usage_from_finish(pl, &a->log);
			a->log.exit_code = (int)sb_status_mp_int(pl, SB_RK_EXIT_CODE, -1);
			a->log.signal = (int)sb_status_mp_int(pl, SB_RK_SIGNAL, 0);
			char *error = NULL, *early = NULL, *intr = NULL;
			if (dup_str(pl, SB_RK_ERROR, &error) < 0 || take_note(&a->log, NOTE(error), error) < 0 ||
			    sb_early_stop_reason(sb_mp_get(pl, SB_RK_EARLY_STOP), &early) < 0 ||
			    take_note(&a->log, NOTE(early_stop), early) < 0 ||
			    sb_interrupted_reason(pl, &intr) < 0 || take_note(&a->log, NOTE(interrupted), intr) < 0)
				rc = -1;
			if (rc == 0 && copy_metrics(a, sb_mp_get(pl, SB_RK_METRICS), store) < 0)
				rc = -1;
			if (rc == 0 && mer && mer->type == MSGPACK_OBJECT_STR &&
			    note(&a->log, NOTE(not_ok), "the metrics file could not be read: %.*s",
				 (int)mer->via.str.size, mer->via.str.ptr) < 0)
				rc = -1;
			if (rc == 0 && a->log.exit_code == 0 &&
			    !(SB_LOG_NOTE(&a->log, error) && SB_LOG_NOTE(&a->log, error)[0]))
				rc = check_results(st, idx, child, a, sb_mp_get(pl, SB_RK_RESULTS), rehash, &why);
		}
	}
	/* remember the verified head: a later, shorter log is a rollback */
	if (rc == 0 && idx && (a->log.tail == SB_LOG_TAIL_OK || a->log.tail == SB_LOG_TAIL_TORN) &&
	    sb_log_result_head(r, &head) == 0 && (!have_head || head.count > count))
		sb_index_put_head(idx, st->bench->dir, rel, head.count, head.tag, NULL);
	sb_log_result_destroy(r);
	if (rc < 0 && why.msg[0])
		return sb_errorf(err, "%s", why.msg);
	return rc < 0 ? sb_error_set(err, SB_ERR_NOMEM, "out of memory reading log '%s'", rel) : 0;
}

/* The reading of the logs of children lo..hi-1, on one thread: its own
 * verifier and buffer; the attempts of those children are its alone.  The
 * index is shared (its lock).  Worker 0 runs in the calling thread and is
 * the one that reports progress, of every worker's count. */
struct log_worker {
	struct sb_status *st;
	const struct sb_key *key;
	struct sb_index *idx;
	const struct sb_status_cfg *o;
	struct sb_status_store *store; /* this thread's */
	int dirfd;                /* the benchmark directory */
	size_t lo, hi;
	size_t total;             /* logs of every worker */
	atomic_size_t *done;      /* logs read by every worker */
	bool reports;             /* worker 0 */
	int rc;
	struct sb_error err;      /* when rc < 0: this range's first error */
};

static void *read_range(void *arg)
{
	struct log_worker *w = arg;
	struct sb_logbuf buf = { 0 };
	struct sb_log_verifier *v = sb_log_verifier_create(w->key, &w->err);
	char rel[SB_LOG_REL_MAX];
	size_t c, i, shown = 0;

	w->rc = v ? 0 : -1;
	for (c = w->lo; w->rc == 0 && c < w->hi; c++) {
		for (i = 0; w->rc == 0 && i < w->st->children[c].nattempts; i++) {
			struct sb_attempt_status *a = &w->st->children[c].attempts[i];
			size_t d;

			if (!has_log(a))
				continue;
			w->rc = read_log(w->st, v, &buf, w->store, w->dirfd, w->idx, (int64_t)c, a,
					 sb_status_log_rel(a, c, rel), w->o->rehash, &w->err);
			d = atomic_fetch_add(w->done, 1) + 1;
			/* about once per 1,000 logs of all workers, from the calling thread */
			if (w->reports && w->total >= 1000 && d / 997 != shown / 997 && d != w->total) {
				sb_ctx_progress(w->o->ctx, "reading logs", d, w->total);
				shown = d;
			}
		}
	}
	sb_logbuf_release(&buf);
	sb_log_verifier_destroy(v);
	return NULL;
}

/* The threads to read on: the context's number (SB_THREADS), else one per
 * core but at least SB_PARALLEL_IO_MIN (a reader waits on the file system
 * as much as it computes), fewer for a small benchmark (a thread is worth
 * it from about 256 logs), and one when the index cannot be shared. */
static size_t reader_threads(const struct sb_status_cfg *o, const struct sb_index *idx, size_t logs)
{
	unsigned want = sb_ctx_threads(o->ctx);
	size_t n;

	if (idx && !sb_index_shareable())
		return 1;
	if (want == 0)
		return sb_parallel_io_threads(logs, 256, SB_PARALLEL_MAX);
	n = want < logs ? want : logs;
	return n > SB_PARALLEL_MAX ? SB_PARALLEL_MAX : n > 0 ? n : 1;
}

/* Every attempt's chosen log, read on a few threads, each given a
 * contiguous range of children with about as many logs as the others.
 * What each attempt gets is what a single reader gives it, and the error is
 * the first in child order (the lowest range's first): the same output
 * whatever the number of threads. */
static int read_logs(struct sb_status *st, const struct sb_key *key, struct sb_index *idx,
		     const struct sb_status_cfg *o, struct sb_error *err)
{
	struct log_worker w[SB_PARALLEL_MAX];
	atomic_size_t done = 0;
	size_t c, i, k, n, total = 0, seen = 0;
	int dirfd = -1, rc = -1;

	if (scan_logs(st, err) < 0)
		return -1;
	for (c = 0; c < st->n; c++)
		for (i = 0; i < st->children[c].nattempts; i++)
			total += has_log(&st->children[c].attempts[i]);
	if (total == 0) {
		rc = 0;
		goto out;
	}
	dirfd = open(st->bench->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		sb_errorf(err, "cannot read '%s': %s", st->bench->dir, strerror(errno));
		goto out;
	}
	n = reader_threads(o, idx, total);
	for (k = 0, c = 0; k < n; k++) {
		w[k] = (struct log_worker){ .st = st, .key = key, .idx = idx, .o = o,
					    .store = &st->stores[k], .dirfd = dirfd, .lo = c, .total = total, .done = &done,
					    .reports = k == 0 };
		/* up to the child where the first (k + 1) * total / n logs end */
		for (; c < st->n && (k == n - 1 || seen < (k + 1) * total / n); c++)
			for (i = 0; i < st->children[c].nattempts; i++)
				seen += has_log(&st->children[c].attempts[i]);
		w[k].hi = c;
	}
	sb_parallel_run(read_range, w, sizeof(w[0]), n);
	rc = 0;
	for (k = 0; k < n && rc == 0; k++) {
		if (w[k].rc < 0) {
			if (err)
				*err = w[k].err;
			rc = -1;
		}
	}
	if (rc == 0)
		progress(o, "reading logs", total, total);
out:
	if (dirfd >= 0)
		close(dirfd);
	return rc;
}

int sb_status_read_logs(struct sb_status *st, const struct sb_key *key,
			const struct sb_status_cfg *o, struct sb_error *err)
{
	struct sb_index *idx;
	int rc;

	/* read after the scheduler answered: "now" is taken before them, so
	 * that the settle time since a job's End is never overstated */
	st->now_ns = sb_status_now_ns();
	/* only a cache here: work without it */
	idx = o->ctx && sb_ctx_index(o->ctx) ? sb_index_open(sb_ctx_index(o->ctx), NULL, NULL) : NULL;
	/* the heads and hashes recorded while reading, in one transaction */
	if (sb_index_begin(idx, NULL) < 0) { /* another sbctl holds it: go on without */
		sb_index_close(idx);
		idx = NULL;
	}
	rc = read_logs(st, key, idx, o, err);
	sb_index_commit(idx, NULL); /* a cache: a failed commit loses nothing */
	sb_index_close(idx);
	return rc;
}
