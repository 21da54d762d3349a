#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/canon.h"
#include "proto/mpcheck.h"
#include "proto/recordkeys.h"
#include "bench/subm.h"
#include "bench/reuse_record.h"

static const char *const type_names[] = {
	[SB_SUBM_INTENT] = "intent",
	[SB_SUBM_SUBMITTED] = "submitted",
	[SB_SUBM_SUBMIT_FAILED] = "submit_failed",
	[SB_SUBM_CANCEL] = "cancel",
	[SB_SUBM_OUTCOME] = "outcome",
};
#define NTYPES (sizeof(type_names) / sizeof(type_names[0]))

/* The strings of an entry as a record keeps them: never NULL, cut short
 * at their limits; in buffers of the caller. */
struct entry_strs {
	char job_id[SB_SUBM_JOB_ID_MAX + 1];
	char job_name[SB_SUBM_JOB_NAME_MAX + 1];
	char state[SB_SUBM_STATE_MAX + 1];
	char error[SB_SUBM_ERROR_MAX + 1];
};

/* An entry with every field unknown, its strings empty ones of b. */
static void entry_init(struct sb_subm_entry *e, struct entry_strs *b)
{
	memset(e, 0, sizeof(*e));
	e->attempt = e->chunk = e->child = e->end = -1;
	e->exit_code = e->signal = -1;
	b->job_id[0] = b->job_name[0] = b->state[0] = b->error[0] = '\0';
	e->job_id = b->job_id;
	e->job_name = b->job_name;
	e->state = b->state;
	e->error = b->error;
}

static void normalize(const struct sb_subm_entry *e, struct entry_strs *b, struct sb_subm_entry *out)
{
	*out = *e;
	snprintf(b->job_id, sizeof(b->job_id), "%s", e->job_id ? e->job_id : "");
	snprintf(b->job_name, sizeof(b->job_name), "%s", e->job_name ? e->job_name : "");
	snprintf(b->state, sizeof(b->state), "%s", e->state ? e->state : "");
	snprintf(b->error, sizeof(b->error), "%s", e->error ? e->error : "");
	out->job_id = b->job_id;
	out->job_name = b->job_name;
	out->state = b->state;
	out->error = b->error;
}

/* A copy of str in s's arena ("" needs none), or NULL when out of memory. */
static const char *keep_str(struct sb_subm *s, const char *str)
{
	return str[0] ? sb_arena_strndup(&s->strings, str, strlen(str)) : "";
}

/* Adds a normalized entry, its strings copied into s. */
static int push(struct sb_subm *s, const struct sb_subm_entry *e, struct sb_error *err)
{
	struct sb_subm_entry *d;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct sb_subm_entry *v = realloc(s->v, cap * sizeof(*v));
		if (v == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		s->v = v;
		s->cap = cap;
	}
	d = &s->v[s->n];
	*d = *e;
	if ((d->job_id = keep_str(s, e->job_id)) == NULL || (d->job_name = keep_str(s, e->job_name)) == NULL || (d->state = keep_str(s, e->state)) == NULL ||
	    (d->error = keep_str(s, e->error)) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	s->n++;
	return 0;
}

static void copy_str(const msgpack_object *o, char *buf, size_t size)
{
	size_t n;

	if (o->type != MSGPACK_OBJECT_STR)
		return;
	n = o->via.str.size < size - 1 ? o->via.str.size : size - 1;
	memcpy(buf, o->via.str.ptr, n);
	buf[n] = '\0';
}

static int64_t as_int(const msgpack_object *o)
{
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX)
		return (int64_t)o->via.u64;
	return -1;
}

static int push_settings(struct sb_subm *s, const struct sb_subm_settings *x, struct sb_error *err)
{
	struct sb_subm_settings *v = realloc(s->settings, (s->nsettings + 1) * sizeof(*v));

	if (v == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	s->settings = v;
	s->settings[s->nsettings++] = *x;
	return 0;
}

static char *dup_str(const msgpack_object *o, bool *failed)
{
	char *d;

	if (o->type != MSGPACK_OBJECT_STR)
		return NULL;
	if ((d = strndup(o->via.str.ptr, o->via.str.size)) == NULL)
		*failed = true;
	return d;
}

/* A settings record into s; 0 when rec is none. */
static int decode_settings(const struct sb_log_record *rec, struct sb_subm *s, struct sb_error *err)
{
	const msgpack_object *p = &rec->payload;
	struct sb_subm_settings x = { .time_ns = rec->time_ns, .attempt = -1 };
	bool failed = false;
	uint32_t i, k;

	if (strcmp(rec->type, "settings") != 0 || p->type != MSGPACK_OBJECT_MAP)
		return 0;
	for (i = 0; i < p->via.map.size; i++) {
		const msgpack_object *key = &p->via.map.ptr[i].key, *v = &p->via.map.ptr[i].val;
		char name[32] = "";

		copy_str(key, name, sizeof(name));
		if (!strcmp(name, SB_SK_ATTEMPT_INDEX))
			x.attempt = as_int(v);
		else if (!strcmp(name, "array_throttle"))
			x.set.throttle = as_int(v) < 0 ? 0 : as_int(v);
		else if (!strcmp(name, "time_limit") && x.set.time == NULL)
			x.set.time = dup_str(v, &failed);
		else if (!strcmp(name, "extra") && v->type == MSGPACK_OBJECT_ARRAY && x.set.extra == NULL &&
			 v->via.array.size > 0) {
			x.set.extra = calloc(v->via.array.size, sizeof(*x.set.extra));
			failed |= x.set.extra == NULL;
			for (k = 0; x.set.extra && k < v->via.array.size; k++)
				if ((x.set.extra[x.set.nextra] = dup_str(&v->via.array.ptr[k], &failed)))
					x.set.nextra++;
		}
	}
	if (failed || x.attempt < 0 || push_settings(s, &x, NULL) < 0) {
		sb_settings_release(&x.set);
		return failed ? sb_error_set(err, SB_ERR_NOMEM, "out of memory") : 1;
	}
	return 1;
}

/* A reuse record into s; 0 when rec is none (or not a well-formed one:
 * then the child is simply not reused). */
static int decode_reuse(const struct sb_log_record *rec, struct sb_subm *s, struct sb_error *err)
{
	struct sb_reuse r, *v;

	if (strcmp(rec->type, "reuse") != 0 || rec->payload.type != MSGPACK_OBJECT_MAP)
		return 0;
	if (sb_reuse_decode(&rec->payload, rec->time_ns, &r) < 0)
		return 1;
	if ((v = realloc(s->reuses, (s->nreuses + 1) * sizeof(*v))) == NULL) {
		sb_reuse_release(&r);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	s->reuses = v;
	s->reuses[s->nreuses++] = r;
	return 1;
}

/* Sets the field named by key of e (its strings in b) from v. */
static void set_field(struct sb_subm_entry *e, struct entry_strs *b, const msgpack_object *k,
		      const msgpack_object *v)
{
	char key[32] = "";

	copy_str(k, key, sizeof(key));
	if (!strcmp(key, SB_SK_ATTEMPT_INDEX)) e->attempt = as_int(v);
	else if (!strcmp(key, SB_SK_CHUNK)) e->chunk = as_int(v);
	else if (!strcmp(key, SB_SK_CHILD_INDEX)) e->child = as_int(v);
	else if (!strcmp(key, "end")) e->end = as_int(v);
	else if (!strcmp(key, "start")) e->start = as_int(v) > 0 ? as_int(v) : 0;
	else if (!strcmp(key, "submit")) e->submit = as_int(v) > 0 ? as_int(v) : 0;
	else if (!strcmp(key, "exit_code")) e->exit_code = (int)as_int(v);
	else if (!strcmp(key, "signal")) e->signal = (int)as_int(v);
	else if (!strcmp(key, "recovered")) e->recovered = v->type == MSGPACK_OBJECT_BOOLEAN && v->via.boolean;
	else if (!strcmp(key, SB_SK_JOB)) copy_str(v, b->job_id, sizeof(b->job_id));
	else if (!strcmp(key, "job_name")) copy_str(v, b->job_name, sizeof(b->job_name));
	else if (!strcmp(key, SB_SK_STATE)) copy_str(v, b->state, sizeof(b->state));
	else if (!strcmp(key, SB_SK_ERROR)) copy_str(v, b->error, sizeof(b->error));
}

/* Fills e from a record, its strings in b; 0 when the record is not a
 * submissions record. */
static int decode(const struct sb_log_record *rec, struct sb_subm_entry *e, struct entry_strs *b)
{
	const msgpack_object *p = &rec->payload;
	size_t t;
	uint32_t i;

	entry_init(e, b);
	for (t = 0; t < NTYPES; t++)
		if (!strcmp(rec->type, type_names[t]))
			break;
	if (t == NTYPES || p->type != MSGPACK_OBJECT_MAP)
		return 0;
	e->type = (enum sb_subm_type)t;
	e->time_ns = rec->time_ns;
	for (i = 0; i < p->via.map.size; i++)
		set_field(e, b, &p->via.map.ptr[i].key, &p->via.map.ptr[i].val);
	return 1;
}

/* The outcomes of an `outcomes` record into s, each an entry of type
 * outcome at the record's time; 0 when rec is none.  A row shorter than
 * the fields leaves the rest unknown; anything else malformed is ignored,
 * as an unknown field of a record is. */
/* What reading takes of the records (sb_subm_read_outcomes). */
struct reading {
	struct sb_subm *out;
	const struct sb_subm_outcomes *outcomes; /* NULL: skip them */
};

/* One outcome entry to the reader's function (none: skipped). */
static int give_outcome(const struct reading *rd, const struct sb_subm_entry *e, struct sb_error *err)
{
	if (rd->outcomes == NULL || rd->outcomes->each == NULL)
		return 0;
	return rd->outcomes->each(rd->outcomes->arg, e, err);
}

static int decode_outcomes(const struct sb_log_record *rec, const struct reading *rd,
			   struct sb_error *err)
{
	const msgpack_object *p = &rec->payload, *fields = NULL, *rows = NULL;
	struct sb_subm_entry e;
	struct entry_strs b;
	uint32_t i, j;

	if (strcmp(rec->type, "outcomes") != 0)
		return 0;
	if (rd->outcomes == NULL)
		return 1;
	if (p->type == MSGPACK_OBJECT_MAP) {
		fields = sb_mp_get(p, "fields");
		rows = sb_mp_get(p, "outcomes");
	}
	if (fields == NULL || rows == NULL || fields->type != MSGPACK_OBJECT_ARRAY ||
	    rows->type != MSGPACK_OBJECT_ARRAY)
		return 1;
	for (i = 0; i < rows->via.array.size; i++) {
		const msgpack_object *row = &rows->via.array.ptr[i];
		if (row->type != MSGPACK_OBJECT_ARRAY)
			continue;
		entry_init(&e, &b);
		e.type = SB_SUBM_OUTCOME;
		e.time_ns = rec->time_ns;
		for (j = 0; j < row->via.array.size && j < fields->via.array.size; j++)
			set_field(&e, &b, &fields->via.array.ptr[j], &row->via.array.ptr[j]);
		if (give_outcome(rd, &e, err) < 0)
			return -1;
	}
	return 1;
}

static int cmp_int(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* A total order on the records' contents: time first, then every field,
 * so that the order never depends on the order of the files in the
 * directory, on their names or on qsort's instability (records equal in
 * every field are interchangeable). */
static int by_time(const void *a, const void *b)
{
	const struct sb_subm_entry *x = a, *y = b;
	int c;

	if ((c = cmp_int(x->time_ns, y->time_ns)) || (c = cmp_int(x->type, y->type)) ||
	    (c = cmp_int(x->attempt, y->attempt)) || (c = cmp_int(x->chunk, y->chunk)) ||
	    (c = cmp_int(x->child, y->child)) || (c = strcmp(x->job_id, y->job_id)) ||
	    (c = strcmp(x->job_name, y->job_name)) || (c = strcmp(x->state, y->state)) ||
	    (c = cmp_int(x->exit_code, y->exit_code)) || (c = cmp_int(x->signal, y->signal)) ||
	    (c = cmp_int(x->end, y->end)) || (c = cmp_int(x->recovered, y->recovered)))
		return c;
	return strcmp(x->error, y->error);
}

static int settings_by_time(const void *a, const void *b)
{
	const struct sb_subm_settings *x = a, *y = b;
	int c = cmp_int(x->time_ns, y->time_ns);

	return c ? c : cmp_int(x->attempt, y->attempt);
}

static int reuse_by_time(const void *a, const void *b)
{
	const struct sb_reuse *x = a, *y = b;
	int c = cmp_int(x->time_ns, y->time_ns);

	return c ? c : cmp_int(x->child, y->child);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One verified record into out (the records of a log that does not verify
 * are dropped with all of out by the caller). */
static int take_record(const struct sb_log_record *rec, void *arg, struct sb_error *err)
{
	const struct reading *rd = arg;
	bool only = rd->outcomes && rd->outcomes->only;
	struct sb_subm_entry e;
	struct entry_strs b;
	int got;

	if (!rec->verified)
		return 0;
	if ((got = decode_outcomes(rec, rd, err)) != 0)
		return got < 0 ? -1 : 0;
	if (!only && (decode_settings(rec, rd->out, err) < 0 || decode_reuse(rec, rd->out, err) < 0))
		return -1;
	if (!decode(rec, &e, &b))
		return 0;
	if (e.type == SB_SUBM_OUTCOME)
		return give_outcome(rd, &e, err);
	return only ? 0 : push(rd->out, &e, err);
}

/* Streams the log: a log of a million outcomes is never held decoded. */
static int read_one(const char *path, struct sb_log_verifier *v, const struct sb_log_expect *ex,
		    const struct reading *rd, struct sb_error *err)
{
	struct sb_log_result *r = sb_log_read_file_each(v, path, ex, take_record, (void *)rd, err);
	struct sb_subm *out = rd->out;
	enum sb_log_tail tail;

	if (r == NULL)
		return -1;
	tail = sb_log_result_tail(r);
	if (tail != SB_LOG_TAIL_OK && tail != SB_LOG_TAIL_TORN) {
		sb_errorf(err, "submission log '%s' does not verify: %s; sbctl will not act on it "
			  "(inspect it with 'sbctl log')", path, sb_log_result_detail(r));
		sb_log_result_destroy(r);
		return -1;
	}
	sb_log_result_destroy(r);
	out->files++;
	return 0;
}

int sb_subm_read(const struct sb_bench *b, const struct sb_key *key, struct sb_subm *out,
		 struct sb_error *err)
{
	return sb_subm_read_outcomes(b, key, NULL, out, err);
}

int sb_subm_read_outcomes(const struct sb_bench *b, const struct sb_key *key,
			  const struct sb_subm_outcomes *outcomes, struct sb_subm *out,
			  struct sb_error *err)
{
	struct reading rd = { .out = out, .outcomes = outcomes };
	struct sb_run_ident id = { .bench = b->digest, .child = -1, .attempt = -1, .restart = -1 };
	struct sb_log_expect ex = { .id = &id };
	struct sb_log_verifier *v;
	char dir[PATH_MAX], path[PATH_MAX + 256];
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *d;
	DIR *dp;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (sb_bench_path(b, "submissions", dir, sizeof(dir), err) < 0)
		return -1;
	dp = opendir(dir);
	if (dp == NULL && errno == ENOENT)
		/* the benchmark is there: a client's cached "no such file" for a
		 * directory another node made moments ago (docs/shared-storage.md) */
		return sb_errorf(err, "cannot read '%s': %s (on a shared file system this node may "
				 "not show a directory that another node made moments ago: nothing was "
				 "submitted; run the command again in a minute)", dir, strerror(ENOENT));
	if (dp == NULL)
		return sb_errorf(err, "cannot read '%s': %s", dir, strerror(errno));
	while ((d = readdir(dp)) != NULL) {
		size_t len = strlen(d->d_name);
		if (len < 5 || strcmp(d->d_name + len - 4, ".log") != 0)
			continue;
		if (n == cap) {
			char **nv = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*nv));
			if (nv == NULL) {
				rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
				break;
			}
			names = nv;
		}
		if ((names[n] = strdup(d->d_name)) == NULL) {
			rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			break;
		}
		n++;
	}
	closedir(dp);
	if (rc == 0 && n > 0) {
		qsort(names, n, sizeof(*names), by_name);
		v = sb_log_verifier_create(key, err);
		if (v == NULL)
			rc = -1;
		for (i = 0; rc == 0 && i < n; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
			rc = read_one(path, v, &ex, &rd, err);
		}
		sb_log_verifier_destroy(v);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc < 0) {
		sb_subm_release(out);
		return -1;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), by_time);
	if (out->n > 0 && out->n < out->cap) {
		struct sb_subm_entry *fit = realloc(out->v, out->n * sizeof(*fit));
		if (fit != NULL) {
			out->v = fit;
			out->cap = out->n;
		}
	}
	if (out->nsettings > 1)
		qsort(out->settings, out->nsettings, sizeof(*out->settings), settings_by_time);
	if (out->nreuses > 1)
		qsort(out->reuses, out->nreuses, sizeof(*out->reuses), reuse_by_time);
	return 0;
}

void sb_subm_release(struct sb_subm *s)
{
	if (s == NULL)
		return;
	free(s->v);
	for (size_t i = 0; i < s->nsettings; i++)
		sb_settings_release(&s->settings[i].set);
	free(s->settings);
	for (size_t i = 0; i < s->nreuses; i++)
		sb_reuse_release(&s->reuses[i]);
	free(s->reuses);
	sb_arena_release(&s->strings);
	memset(s, 0, sizeof(*s));
}

const struct sb_reuse *sb_subm_reuse_of(const struct sb_subm *s, int64_t child)
{
	for (size_t i = s->nreuses; i-- > 0;)
		if (s->reuses[i].child == child)
			return &s->reuses[i];
	return NULL;
}


const struct sb_attempt_settings *sb_subm_settings_of(const struct sb_subm *s, int64_t attempt)
{
	const struct sb_attempt_settings *base = NULL;

	for (size_t i = s->nsettings; i-- > 0;) {
		if (s->settings[i].attempt == attempt)
			return &s->settings[i].set;
		if (s->settings[i].attempt == 0 && base == NULL)
			base = &s->settings[i].set;
	}
	return base;
}

bool sb_subm_any_accepted(const struct sb_subm *s, int64_t attempt)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct sb_subm_entry *e = &s->v[i], *f;
		if (attempt >= 0 && e->attempt != attempt)
			continue;
		if (e->type == SB_SUBM_SUBMITTED)
			return true;
		if (e->type != SB_SUBM_INTENT)
			continue;
		f = sb_subm_find(s, SB_SUBM_SUBMIT_FAILED, e->attempt, e->chunk);
		if (f == NULL || f->time_ns < e->time_ns)
			return true;
	}
	return false;
}

const struct sb_subm_entry *sb_subm_find(const struct sb_subm *s, enum sb_subm_type type,
					 int64_t attempt, int64_t chunk)
{
	size_t i;

	for (i = s->n; i-- > 0;)
		if (s->v[i].type == type && s->v[i].attempt == attempt && s->v[i].chunk == chunk)
			return &s->v[i];
	return NULL;
}

/* Job ids in numeric order (digits: shorter is smaller), else bytes. */
static int by_job_id(const void *a, const void *b)
{
	const char *x = a, *y = b;
	size_t lx = strlen(x), ly = strlen(y);

	if (lx != ly && strspn(x, "0123456789") == lx && strspn(y, "0123456789") == ly)
		return lx < ly ? -1 : 1;
	return strcmp(x, y);
}

static int by_attempt_chunk(const void *a, const void *b)
{
	const struct sb_subm_dup *x = a, *y = b;
	int c = cmp_int(x->attempt, y->attempt);

	return c ? c : cmp_int(x->chunk, y->chunk);
}

/* The dup of (attempt, chunk) in d[0..n), or NULL. */
static struct sb_subm_dup *dup_of(struct sb_subm_dup *d, size_t n, int64_t attempt, int64_t chunk)
{
	for (size_t i = 0; i < n; i++)
		if (d[i].attempt == attempt && d[i].chunk == chunk)
			return &d[i];
	return NULL;
}

static int dup_add_id(struct sb_subm_dup *d, const char *job_id, struct sb_error *err)
{
	char (*v)[64];

	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->job_ids[i], job_id))
			return 0;
	v = realloc(d->job_ids, (d->n + 1) * sizeof(*v));
	if (v == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	d->job_ids = v;
	snprintf(d->job_ids[d->n++], sizeof(*v), "%s", job_id);
	return 0;
}

int sb_subm_duplicates(const struct sb_subm *s, struct sb_subm_dup **out, size_t *nout,
		       struct sb_error *err)
{
	struct sb_subm_dup *d = NULL, *x;
	size_t n = 0, keep = 0, i;

	*out = NULL;
	*nout = 0;
	for (i = 0; i < s->n; i++) {
		const struct sb_subm_entry *e = &s->v[i];
		if (e->type != SB_SUBM_SUBMITTED || e->job_id[0] == '\0')
			continue;
		if ((x = dup_of(d, n, e->attempt, e->chunk)) == NULL) {
			x = realloc(d, (n + 1) * sizeof(*d));
			if (x == NULL)
				goto oom;
			d = x;
			x = &d[n++];
			*x = (struct sb_subm_dup){ .attempt = e->attempt, .chunk = e->chunk };
		}
		if (dup_add_id(x, e->job_id, err) < 0)
			goto fail;
	}
	for (i = 0; i < n; i++) {
		if (d[i].n < 2) {
			free(d[i].job_ids);
			continue;
		}
		qsort(d[i].job_ids, d[i].n, sizeof(*d[i].job_ids), by_job_id);
		d[keep++] = d[i];
	}
	if (keep == 0) {
		free(d);
		return 0;
	}
	qsort(d, keep, sizeof(*d), by_attempt_chunk);
	*out = d;
	*nout = keep;
	return 0;
oom:
	sb_error_set(err, SB_ERR_NOMEM, "out of memory");
fail:
	sb_subm_dups_release(d, n);
	return -1;
}

void sb_subm_dups_release(struct sb_subm_dup *d, size_t n)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		free(d[i].job_ids);
	free(d);
}

/* ---- writing ----------------------------------------------------------- */

struct sb_subm_writer {
	const struct sb_bench *b;
	const struct sb_key *key;
	struct sb_log_writer *w;
	bool batch;
	bool failed;             /* an append failed */
	char host[256];
	char path[PATH_MAX];     /* the log it created, "" before */
};

struct sb_subm_writer *sb_subm_writer_create(const struct sb_bench *b, const struct sb_key *key,
					     struct sb_error *err)
{
	struct sb_subm_writer *w = calloc(1, sizeof(*w));

	if (w == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	w->b = b;
	w->key = key;
	if (gethostname(w->host, sizeof(w->host) - 1) < 0)
		snprintf(w->host, sizeof(w->host), "unknown");
	w->host[strcspn(w->host, ".")] = '\0';
	return w;
}

static int open_log(struct sb_subm_writer *w, struct sb_error *err)
{
	struct sb_run_ident id = {
		.bench = w->b->digest, .child = -1, .attempt = -1, .restart = -1,
		.host = w->host, .pid = (int64_t)getpid(),
	};
	struct timespec ts;
	char path[PATH_MAX], rel[128];

	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(rel, sizeof(rel), "submissions/%lld.%09ld-%.64s-%ld.log", (long long)ts.tv_sec,
		 ts.tv_nsec, w->host, (long)getpid());
	if (sb_bench_path(w->b, rel, path, sizeof(path), err) < 0)
		return -1;
	w->w = sb_log_writer_create(path, w->key, &id, err);
	if (w->w)
		memcpy(w->path, path, sizeof(w->path));
	if (w->w && w->batch)
		sb_log_writer_set_batch(w->w, true);
	return w->w ? 0 : -1;
}

static void encode(const struct sb_subm_entry *e, struct sb_canon *c)
{
	size_t n = (e->attempt >= 0) + (e->chunk >= 0) + (e->child >= 0) + (e->end >= 0) +
		   (e->error[0] != 0) + (e->exit_code >= 0) + (e->job_id[0] != 0) +
		   (e->job_name[0] != 0) + (e->type == SB_SUBM_SUBMITTED) + (e->signal >= 0) +
		   (e->state[0] != 0) + (e->start > 0) + (e->submit > 0);

	/* keys in byte order; none equal to an envelope key (attempt, child,
	 * job_id), so that the JSON view of a record shows them all */
	sb_canon_map(c, n);
	if (e->attempt >= 0) { sb_canon_cstr(c, SB_SK_ATTEMPT_INDEX); sb_canon_int(c, e->attempt); }
	if (e->child >= 0) { sb_canon_cstr(c, SB_SK_CHILD_INDEX); sb_canon_int(c, e->child); }
	if (e->chunk >= 0) { sb_canon_cstr(c, SB_SK_CHUNK); sb_canon_int(c, e->chunk); }
	if (e->end >= 0) { sb_canon_cstr(c, "end"); sb_canon_int(c, e->end); }
	if (e->error[0]) { sb_canon_cstr(c, SB_SK_ERROR); sb_canon_cstr(c, e->error); }
	if (e->exit_code >= 0) { sb_canon_cstr(c, "exit_code"); sb_canon_int(c, e->exit_code); }
	if (e->job_id[0]) { sb_canon_cstr(c, SB_SK_JOB); sb_canon_cstr(c, e->job_id); }
	if (e->job_name[0]) { sb_canon_cstr(c, "job_name"); sb_canon_cstr(c, e->job_name); }
	if (e->type == SB_SUBM_SUBMITTED) { sb_canon_cstr(c, "recovered"); sb_canon_bool(c, e->recovered); }
	if (e->signal >= 0) { sb_canon_cstr(c, "signal"); sb_canon_int(c, e->signal); }
	if (e->start > 0) { sb_canon_cstr(c, "start"); sb_canon_int(c, e->start); }
	if (e->state[0]) { sb_canon_cstr(c, SB_SK_STATE); sb_canon_cstr(c, e->state); }
	if (e->submit > 0) { sb_canon_cstr(c, "submit"); sb_canon_int(c, e->submit); }
}

int sb_subm_append(struct sb_subm_writer *w, const struct sb_subm_entry *e, struct sb_subm *s,
		   struct sb_error *err)
{
	struct sb_canon c;
	struct sb_subm_entry copy;
	struct entry_strs b;
	struct timespec ts;
	int rc;

	if (w->w == NULL && open_log(w, err) < 0) {
		w->failed = true;
		return -1;
	}
	normalize(e, &b, &copy);
	sb_canon_init(&c, 1 << 16);
	encode(&copy, &c);
	rc = c.failed ? sb_errorf(err, "submission record too large")
		      : sb_log_writer_append(w->w, type_names[e->type], c.buf, c.len, err);
	sb_canon_release(&c);
	w->failed |= rc < 0;
	if (rc < 0 || s == NULL)
		return rc;
	clock_gettime(CLOCK_REALTIME, &ts);
	copy.time_ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	return push(s, &copy, err);
}

/* The columns of an `outcomes` record's rows, in this order. */
static const char *const outcome_fields[] = {
	SB_SK_ATTEMPT_INDEX, SB_SK_CHILD_INDEX, SB_SK_JOB, SB_SK_STATE, "exit_code", "signal", "end", "start", "submit",
};

static void int_or_nil(struct sb_canon *c, int64_t v, int64_t least)
{
	if (v >= least)
		sb_canon_int(c, v);
	else
		sb_canon_nil(c);
}

int sb_subm_append_outcomes(struct sb_subm_writer *w, const struct sb_subm_entry *e, size_t n,
			    struct sb_error *err)
{
	const size_t nf = sizeof(outcome_fields) / sizeof(outcome_fields[0]);
	struct sb_canon c;
	size_t i;
	int rc;

	if (n == 0 || n > SB_SUBM_OUTCOMES_PER_RECORD)
		return sb_errorf(err, "an outcomes record holds 1 to %d outcomes, not %zu",
				 SB_SUBM_OUTCOMES_PER_RECORD, n);
	if (w->w == NULL && open_log(w, err) < 0) {
		w->failed = true;
		return -1;
	}
	sb_canon_init(&c, SB_LOG_BODY_MAX / 2);
	sb_canon_map(&c, 2);
	sb_canon_cstr(&c, "fields");
	sb_canon_array(&c, nf);
	for (i = 0; i < nf; i++)
		sb_canon_cstr(&c, outcome_fields[i]);
	sb_canon_cstr(&c, "outcomes");
	sb_canon_array(&c, n);
	for (i = 0; i < n; i++) {
		const char *job = e[i].job_id ? e[i].job_id : "";

		sb_canon_array(&c, nf);
		sb_canon_int(&c, e[i].attempt);
		sb_canon_int(&c, e[i].child);
		/* cut where an entry's job id always is (SB_SUBM_JOB_ID_MAX) */
		sb_canon_str(&c, job, strnlen(job, SB_SUBM_JOB_ID_MAX));
		sb_canon_cstr(&c, e[i].state ? e[i].state : "");
		int_or_nil(&c, e[i].exit_code, 0);
		int_or_nil(&c, e[i].signal, 0);
		int_or_nil(&c, e[i].end, 0);
		int_or_nil(&c, e[i].start, 1);
		int_or_nil(&c, e[i].submit, 1);
	}
	rc = c.failed ? sb_errorf(err, "outcomes record too large")
		      : sb_log_writer_append(w->w, "outcomes", c.buf, c.len, err);
	sb_canon_release(&c);
	w->failed |= rc < 0;
	return rc;
}

int sb_subm_append_settings(struct sb_subm_writer *w, int64_t attempt,
			    const struct sb_attempt_settings *set, struct sb_subm *s,
			    struct sb_error *err)
{
	struct sb_subm_settings x = { .attempt = attempt };
	struct sb_canon c;
	struct timespec ts;
	int rc;

	if (w->w == NULL && open_log(w, err) < 0) {
		w->failed = true;
		return -1;
	}
	sb_canon_init(&c, 1 << 20);
	sb_canon_map(&c, 3 + (set->time != NULL));
	sb_canon_cstr(&c, "array_throttle");
	sb_canon_int(&c, set->throttle);
	sb_canon_cstr(&c, SB_SK_ATTEMPT_INDEX);
	sb_canon_int(&c, attempt);
	sb_canon_cstr(&c, "extra");
	sb_canon_array(&c, set->nextra);
	for (size_t i = 0; i < set->nextra; i++)
		sb_canon_cstr(&c, set->extra[i]);
	if (set->time) {
		/* not "time": the JSON view of a record has the envelope's time */
		sb_canon_cstr(&c, "time_limit");
		sb_canon_cstr(&c, set->time);
	}
	rc = c.failed ? sb_errorf(err, "settings record too large")
		      : sb_log_writer_append(w->w, "settings", c.buf, c.len, err);
	sb_canon_release(&c);
	w->failed |= rc < 0;
	if (rc < 0 || s == NULL)
		return rc;
	clock_gettime(CLOCK_REALTIME, &ts);
	x.time_ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	if (sb_settings_copy(set, &x.set, err) < 0)
		return -1;
	if (push_settings(s, &x, err) < 0) {
		sb_settings_release(&x.set);
		return -1;
	}
	return 0;
}

int sb_subm_append_reuse(struct sb_subm_writer *w, const struct sb_reuse *r, struct sb_error *err)
{
	struct sb_canon c;
	int rc;

	if (w->w == NULL && open_log(w, err) < 0) {
		w->failed = true;
		return -1;
	}
	sb_canon_init(&c, 1 << 24);
	sb_reuse_encode(r, &c);
	rc = c.failed ? sb_errorf(err, "reuse record too large")
		      : sb_log_writer_append(w->w, "reuse", c.buf, c.len, err);
	sb_canon_release(&c);
	w->failed |= rc < 0;
	return rc;
}

void sb_subm_writer_set_batch(struct sb_subm_writer *w)
{
	w->batch = true;
	if (w->w)
		sb_log_writer_set_batch(w->w, true);
}

int sb_subm_writer_close(struct sb_subm_writer *w, struct sb_error *err)
{
	int rc = 0;

	if (w == NULL)
		return 0;
	if (w->w)
		rc = sb_log_writer_close(w->w, err);
	free(w);
	return rc;
}

int sb_subm_writer_close_all_or_nothing(struct sb_subm_writer *w, struct sb_error *err)
{
	struct sb_error why;
	bool failed;
	char path[PATH_MAX];
	int rc;

	if (w == NULL)
		return 0;
	failed = w->failed;
	memcpy(path, w->path, sizeof(path));
	rc = sb_subm_writer_close(w, failed ? NULL : &why);
	if (!failed && rc == 0)
		return 0;
	if (path[0] && unlink(path) < 0 && errno != ENOENT)
		return sb_errorf(err, "cannot remove the partial submission log '%s': %s", path,
				 strerror(errno));
	if (!failed)
		return sb_errorf(err, "%s", why.msg);
	return -1;
}

int sb_subm_read_own(const struct sb_bench *b, struct sb_subm *out, struct sb_error *err)
{
	struct sb_key key;
	int rc;

	if (sb_bench_load_key(b, &key, err) < 0)
		return -1;
	rc = sb_subm_read(b, &key, out, err);
	sb_key_cleanse(&key);
	return rc;
}
