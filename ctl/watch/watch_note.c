/* What a watch knows of each child, from the records it has shown: its
 * attempt, its latest heartbeat's usage, progress and metrics, and whether
 * it finished (sb_watch_view_note, watch/watch_private.h); the details only
 * while it runs.  The live view (watch/watch_view.c) draws from it. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch/watch_private.h"
#include "proto/mpcheck.h"
#include "proto/util.h"
#include "proto/recordkeys.h"

static const msgpack_object *payload_get(const struct sb_log_record *rec, const char *key)
{
	const msgpack_object *p = &rec->payload;
	size_t i, n = strlen(key);

	if (p->type != MSGPACK_OBJECT_MAP)
		return NULL;
	for (i = 0; i < p->via.map.size; i++) {
		const msgpack_object *k = &p->via.map.ptr[i].key;

		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
		    !memcmp(k->via.str.ptr, key, n))
			return &p->via.map.ptr[i].val;
	}
	return NULL;
}

static bool num(const msgpack_object *o, double *v)
{
	if (o == NULL)
		return false;
	switch (o->type) {
	case MSGPACK_OBJECT_POSITIVE_INTEGER: *v = (double)o->via.u64; return true;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER: *v = (double)o->via.i64; return true;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64: *v = o->via.f64; return true;
	default: return false;
	}
}

/* The progress a heartbeat reports: "progress" in [0, 1], in its payload or
 * in its metrics; -1 when none. */
static double progress_of(const struct sb_log_record *rec)
{
	const msgpack_object *m = payload_get(rec, SB_RK_METRICS);
	double v;
	size_t i;

	if (num(payload_get(rec, "progress"), &v) && v >= 0 && v <= 1)
		return v;
	if (m == NULL || m->type != MSGPACK_OBJECT_MAP)
		return -1;
	for (i = 0; i < m->via.map.size; i++) {
		const msgpack_object *k = &m->via.map.ptr[i].key;

		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == 8 &&
		    !memcmp(k->via.str.ptr, "progress", 8) && num(&m->via.map.ptr[i].val, &v) &&
		    v >= 0 && v <= 1)
			return v;
	}
	return -1;
}

/* "name=value ..." of a metrics map, as many as fit in buf (names with
 * control characters are left out: they would rewrite the terminal). */
static void metrics_text(const msgpack_object *m, char *buf, size_t size)
{
	char t[SB_DOUBLE_TEXT_MAX];
	size_t i, len = 0, j;
	double v;

	buf[0] = '\0';
	for (i = 0; m && m->type == MSGPACK_OBJECT_MAP && i < m->via.map.size; i++) {
		const msgpack_object *k = &m->via.map.ptr[i].key;
		bool clean = k->type == MSGPACK_OBJECT_STR && k->via.str.size < 40;
		int n;

		for (j = 0; clean && j < k->via.str.size; j++)
			clean = (unsigned char)k->via.str.ptr[j] >= 0x20 && k->via.str.ptr[j] != 0x7f;
		if (!clean || !num(&m->via.map.ptr[i].val, &v))
			continue;
		n = snprintf(buf + len, size - len, "%s%.*s=%s", len ? " " : "",
			(int)k->via.str.size, k->via.str.ptr, sb_fmt_double_short(v, t));
		if (n < 0 || (size_t)n >= size - len) {
			buf[len] = '\0'; /* the ones that fit */
			return;
		}
		len += (size_t)n;
	}
}

/* The run of child c: its details while it runs, made when absent; NULL
 * out of memory. */
static struct sb_watch_run *run_of(struct sb_watch *w, struct sb_watch_child *c)
{
	struct sb_watch_run *r;

	if (c->run != 0)
		return &w->runs[c->run - 1];
	if (w->free_run != 0) {
		c->run = w->free_run;
		r = &w->runs[c->run - 1];
		w->free_run = r->next_free;
	} else {
		if (w->nruns == w->runs_cap) {
			size_t cap = w->runs_cap ? 2 * w->runs_cap : 64;
			struct sb_watch_run *v;

			if (cap > UINT32_MAX - 1)
				return NULL;
			v = realloc(w->runs, cap * sizeof(*v));
			if (v == NULL)
				return NULL;
			w->runs = v;
			w->runs_cap = cap;
		}
		r = &w->runs[w->nruns++];
		c->run = (uint32_t)w->nruns;
	}
	memset(r, 0, sizeof(*r));
	r->progress = -1;
	return r;
}

static void run_drop(struct sb_watch *w, struct sb_watch_child *c)
{
	if (c->run == 0)
		return;
	w->runs[c->run - 1].next_free = w->free_run;
	w->free_run = c->run;
	c->run = 0;
}

int sb_watch_view_note(struct sb_watch *w, const struct sb_log_record *rec)
{
	struct sb_watch_child *c;
	struct sb_watch_run *r;
	double v;

	if (rec->id.child < 0 || (uint64_t)rec->id.child >= w->nchildren || rec->type == NULL)
		return 0;
	c = &w->children[rec->id.child];
	if (rec->id.attempt < c->attempt)
		return 0; /* an older attempt's record, read late */
	if (rec->id.attempt > c->attempt || !c->started) {
		run_drop(w, c);
		c->finished = false;
		c->attempt = rec->id.attempt;
	}
	c->started = true;
	if (c->finished)
		return 0; /* the view shows running children only */
	if (!strcmp(rec->type, SB_RT_FINISH)) {
		c->finished = true;
		run_drop(w, c);
		return 0;
	}
	r = run_of(w, c);
	if (r == NULL)
		return -1;
	if (rec->time_ns > r->last_ns)
		r->last_ns = rec->time_ns;
	if (!strcmp(rec->type, SB_RT_HEARTBEAT)) {
		if (num(payload_get(rec, SB_RK_ELAPSED_S), &v) && v >= r->elapsed_s)
			r->elapsed_s = v;
		if (num(payload_get(rec, SB_RK_MAX_RSS_KB), &v))
			r->max_rss_kb = (int64_t)v;
		if (num(payload_get(rec, SB_RK_USER_S), &v))
			r->user_s = v;
		if (num(payload_get(rec, SB_RK_SYS_S), &v))
			r->sys_s = v;
		r->progress = progress_of(rec);
		metrics_text(payload_get(rec, SB_RK_METRICS), r->metrics, sizeof(r->metrics));
	}
	return 0;
}
