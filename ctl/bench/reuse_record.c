/* The reuse record (bench/reuse_record.h): its payload, encoded and
 * decoded, and its lifetime. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_private.h"
#include "bench/reuse_record.h"
#include "proto/mpcheck.h"
#include "proto/util.h"
#include "proto/recordkeys.h"

void sb_reuse_release(struct sb_reuse *r)
{
	if (r == NULL)
		return;
	free(r->source_dir);
	free(r->source_job);
	free(r->source_log);
	for (size_t i = 0; i < r->nresults; i++)
		free(r->results[i].path);
	free(r->results);
	for (size_t i = 0; i < r->nmetrics; i++)
		free(r->metrics[i].name);
	free(r->metrics);
	memset(r, 0, sizeof(*r));
}

void sb_reuses_release(struct sb_reuses *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->n; i++)
		sb_reuse_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void sb_reuse_encode(const struct sb_reuse *r, struct sb_canon *c)
{
	/* keys in byte order; none is an envelope key (attempt, child, job_id) */
	sb_canon_map(c, 11);
	sb_canon_cstr(c, "child_index");
	sb_canon_int(c, r->child);
	sb_canon_cstr(c, SB_RK_EXIT_CODE);
	sb_canon_int(c, r->exit_code);
	sb_canon_cstr(c, SB_RK_METRICS);
	sb_canon_map(c, r->nmetrics);
	for (size_t i = 0; i < r->nmetrics; i++) {
		sb_canon_cstr(c, r->metrics[i].name);
		if (r->metrics[i].is_int)
			sb_canon_int(c, r->metrics[i].i);
		else
			sb_canon_double(c, r->metrics[i].value);
	}
	sb_canon_cstr(c, SB_RK_RESULTS);
	sb_canon_array(c, r->nresults);
	for (size_t i = 0; i < r->nresults; i++) {
		sb_canon_map(c, 2);
		sb_canon_key_cstr(c, SB_RK_PATH, r->results[i].path);
		sb_canon_key_cstr(c, SB_RK_SHA256, r->results[i].sha256);
	}
	sb_canon_cstr(c, "source_attempt");
	sb_canon_int(c, r->source_attempt);
	sb_canon_key_cstr(c, "source_digest", r->source_digest);
	sb_canon_key_cstr(c, "source_dir", r->source_dir);
	sb_canon_key_cstr(c, "source_head", r->source_head);
	sb_canon_cstr(c, "source_index");
	sb_canon_int(c, r->source_index);
	sb_canon_key_cstr(c, "source_job", r->source_job);
	sb_canon_key_cstr(c, "source_log", r->source_log);
}

static char *get_str(const msgpack_object *map, const char *key, bool *failed)
{
	const msgpack_object *o = sb_mp_get(map, key);
	char *s;

	if (o == NULL || o->type != MSGPACK_OBJECT_STR || memchr(o->via.str.ptr, 0, o->via.str.size))
		return NULL;
	if ((s = strndup(o->via.str.ptr, o->via.str.size)) == NULL)
		*failed = true;
	return s;
}

static int64_t get_int(const msgpack_object *map, const char *key)
{
	const msgpack_object *o = sb_mp_get(map, key);

	if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX)
		return (int64_t)o->via.u64;
	return -1;
}

/* Copies a fixed-size text; false when it does not fit exactly. */
static bool copy_fixed(const msgpack_object *map, const char *key, char *buf, size_t size)
{
	const msgpack_object *o = sb_mp_get(map, key);

	if (o == NULL || o->type != MSGPACK_OBJECT_STR || o->via.str.size >= size)
		return false;
	memcpy(buf, o->via.str.ptr, o->via.str.size);
	buf[o->via.str.size] = '\0';
	return true;
}

int sb_reuse_decode(const msgpack_object *p, int64_t time_ns, struct sb_reuse *r)
{
	const msgpack_object *res = sb_mp_get(p, SB_RK_RESULTS), *met = sb_mp_get(p, SB_RK_METRICS);
	bool failed = false;
	uint32_t i;

	memset(r, 0, sizeof(*r));
	r->time_ns = time_ns;
	r->child = get_int(p, "child_index");
	r->source_index = get_int(p, "source_index");
	r->source_attempt = get_int(p, "source_attempt");
	r->exit_code = (int)get_int(p, "exit_code");
	r->source_dir = get_str(p, "source_dir", &failed);
	r->source_log = get_str(p, "source_log", &failed);
	r->source_job = get_str(p, "source_job", &failed);
	if (!copy_fixed(p, "source_digest", r->source_digest, sizeof(r->source_digest)) ||
	    !copy_fixed(p, "source_head", r->source_head, sizeof(r->source_head)) ||
	    r->child < 0 || r->source_index < 0 || r->source_dir == NULL || r->source_dir[0] != '/' ||
	    res == NULL || res->type != MSGPACK_OBJECT_ARRAY || met == NULL ||
	    met->type != MSGPACK_OBJECT_MAP)
		goto fail;
	if (res->via.array.size && (r->results = calloc(res->via.array.size, sizeof(*r->results))) == NULL)
		goto fail;
	for (i = 0; i < res->via.array.size; i++, r->nresults++) {
		struct sb_reuse_result *x = &r->results[i];
		if ((x->path = get_str(&res->via.array.ptr[i], SB_RK_PATH, &failed)) == NULL ||
		    !copy_fixed(&res->via.array.ptr[i], SB_RK_SHA256, x->sha256, sizeof(x->sha256)))
			goto fail;
	}
	if (met->via.map.size && (r->metrics = calloc(met->via.map.size, sizeof(*r->metrics))) == NULL)
		goto fail;
	for (i = 0; i < met->via.map.size; i++) {
		const msgpack_object *k = &met->via.map.ptr[i].key, *v = &met->via.map.ptr[i].val;
		struct sb_metric *m = &r->metrics[r->nmetrics];
		if (k->type != MSGPACK_OBJECT_STR)
			goto fail;
		/* an integer beyond int64 is no metric sbctl recorded */
		if (!sb_metric_value(v, m) ||
		    (v->type == MSGPACK_OBJECT_POSITIVE_INTEGER && !m->is_int))
			goto fail;
		if ((m->name = strndup(k->via.str.ptr, k->via.str.size)) == NULL)
			goto fail;
		r->nmetrics++;
	}
	if (failed)
		goto fail;
	return 0;
fail:
	sb_reuse_release(r);
	return -1;
}

int sb_reuse_take_results(struct sb_reuse *r, const msgpack_object *finish)
{
	const msgpack_object *res = sb_mp_get(finish, SB_RK_RESULTS);

	if (res == NULL || res->type != MSGPACK_OBJECT_ARRAY)
		return 0;
	if (res->via.array.size && (r->results = calloc(res->via.array.size, sizeof(*r->results))) == NULL)
		return -1;
	for (uint32_t k = 0; k < res->via.array.size; k++, r->nresults++) {
		bool failed = false;
		struct sb_reuse_result *x = &r->results[k];
		if ((x->path = get_str(&res->via.array.ptr[k], SB_RK_PATH, &failed)) == NULL ||
		    !copy_fixed(&res->via.array.ptr[k], SB_RK_SHA256, x->sha256, sizeof(x->sha256)))
			return -1;
	}
	return 0;
}

int sb_reuse_source_head(const char *dir, const char *digest, int64_t index, int64_t attempt,
			 const char *log, char head[SB_LOG_HEAD_TEXT_MAX], enum sb_log_tail *tail,
			 struct sb_log_result **keep, char **why)
{
	struct sb_run_ident want = { .bench = digest, .child = index, .attempt = attempt,
				     .restart = -1, .pid = -1 };
	struct sb_log_expect ex = { .id = &want };
	struct sb_error err = { 0 };
	struct sb_log_verifier *v = NULL;
	struct sb_log_result *r = NULL;
	struct sb_log_head h;
	char *key_path = NULL, *path = NULL;
	struct sb_key key;
	int rc = -1;

	*why = NULL;
	if (asprintf(&key_path, "%s/%s", dir, SB_BENCH_KEY) < 0 || asprintf(&path, "%s/%s", dir, log) < 0) {
		free(key_path);
		return -1;
	}
	if (sb_key_load(key_path, &key, &err) < 0) {
		if (asprintf(why, "the source's key cannot be used: %s", err.msg) < 0)
			*why = NULL;
		goto out;
	}
	v = sb_log_verifier_create(&key, &err);
	sb_key_cleanse(&key);
	if (v == NULL || (r = sb_log_read_file(v, path, &ex, &err)) == NULL) {
		if (asprintf(why, "the source log cannot be read: %s", err.msg) < 0)
			*why = NULL;
		goto out;
	}
	*tail = sb_log_result_tail(r);
	if (sb_log_result_head(r, &h) < 0) {
		if (asprintf(why, "the source log '%s' has no verified record", path) < 0)
			*why = NULL;
		goto out;
	}
	sb_log_head_format(&h, head);
	rc = 0;
out:
	if (rc == 0 && keep)
		*keep = r;
	else
		sb_log_result_destroy(r);
	sb_log_verifier_destroy(v);
	free(key_path);
	free(path);
	return rc;
}
