#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/earlystop.h"
#include "proto/mpcheck.h"

/* A number of the map: int or float; -1 otherwise. */
static int mp_number(const msgpack_object *o, double *v, char *text, size_t size)
{
	int n;

	if (o == NULL)
		return -1;
	switch (o->type) {
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		*v = (double)o->via.u64;
		snprintf(text, size, "%" PRIu64, o->via.u64);
		return 0;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		*v = (double)o->via.i64;
		snprintf(text, size, "%" PRId64, o->via.i64);
		return 0;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		if (!isfinite(o->via.f64))
			return -1;
		*v = o->via.f64;
		for (n = 1; n <= 17; n++) { /* the shortest text that reads back */
			snprintf(text, size, "%.*g", n, *v);
			if (strtod(text, NULL) == *v)
				break;
		}
		return 0;
	default:
		return -1;
	}
}

int sb_agent_early_stop_load(struct sb_agent_early_stop *es, const msgpack_object *o,
			     struct sb_error *err)
{
	uint32_t i;

	memset(es, 0, sizeof(*es));
	if (o == NULL || o->type == MSGPACK_OBJECT_NIL)
		return 0;
	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size > SB_EARLY_MAX_RULES)
		return sb_errorf(err, "early_stop of the task map is not a list of at most %d rules",
				 SB_EARLY_MAX_RULES);
	for (i = 0; i < o->via.array.size; i++) {
		const msgpack_object *r = &o->via.array.ptr[i];
		const msgpack_object *m = sb_mp_get(r, "metric"), *above = sb_mp_get(r, "above");
		const msgpack_object *below = sb_mp_get(r, "below");
		struct sb_agent_early_rule *d = &es->rules[i];
		char after_text[40];

		if (r->type != MSGPACK_OBJECT_MAP || m == NULL || m->type != MSGPACK_OBJECT_STR ||
		    m->via.str.size == 0 || m->via.str.size > SB_EARLY_MAX_METRIC ||
		    memchr(m->via.str.ptr, 0, m->via.str.size) || (above == NULL) == (below == NULL) ||
		    mp_number(above ? above : below, &d->threshold, d->threshold_text,
			      sizeof(d->threshold_text)) < 0 ||
		    mp_number(sb_mp_get(r, "after"), &d->after_s, after_text, sizeof(after_text)) < 0 ||
		    d->after_s < 0)
			return sb_errorf(err, "early_stop rule %u of the task map is not {metric, "
					 "above or below, after}", i);
		memcpy(d->metric, m->via.str.ptr, m->via.str.size);
		d->metric[m->via.str.size] = '\0';
		d->above = above != NULL;
	}
	es->n = o->via.array.size;
	return 0;
}

static const struct sb_agent_metric *find_metric(const struct sb_agent_metrics *m, const char *name)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) { /* sorted by name, raw bytes */
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(m->v[mid].name, name);

		if (c == 0)
			return &m->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int sb_agent_early_stop_check(const struct sb_agent_early_stop *es,
			      const struct sb_agent_metrics *m, double elapsed_s,
			      struct sb_agent_early_hit *hit)
{
	size_t i;

	for (i = 0; i < es->n; i++) {
		const struct sb_agent_early_rule *r = &es->rules[i];
		const struct sb_agent_metric *v;
		double x;

		if (elapsed_s < r->after_s || (v = find_metric(m, r->metric)) == NULL)
			continue;
		x = v->is_float ? v->f : (double)v->i;
		if (!(r->above ? x > r->threshold : x < r->threshold))
			continue;
		memset(hit, 0, sizeof(*hit));
		hit->fired = 1;
		hit->index = i;
		hit->value = x;
		hit->value_is_int = !v->is_float;
		hit->value_i = v->i;
		hit->elapsed_s = elapsed_s;
		return 1;
	}
	return 0;
}

static int pk_cstr(msgpack_packer *pk, const char *s)
{
	size_t n = strlen(s);

	return msgpack_pack_str(pk, n) | msgpack_pack_str_body(pk, s, n);
}

int sb_agent_pack_early_stop(msgpack_packer *pk, const struct sb_agent_early_stop *es,
			     const struct sb_agent_early_hit *hit)
{
	const struct sb_agent_early_rule *r = &es->rules[hit->index];
	char rule[64];
	int rc = 0;

	snprintf(rule, sizeof(rule), "%s %s", r->above ? "above" : "below", r->threshold_text);
	rc |= msgpack_pack_map(pk, 6);
	rc |= pk_cstr(pk, "after_s");
	rc |= msgpack_pack_double(pk, hit->elapsed_s);
	rc |= pk_cstr(pk, "declared_after_s");
	rc |= msgpack_pack_double(pk, r->after_s);
	rc |= pk_cstr(pk, "index");
	rc |= msgpack_pack_uint64(pk, hit->index);
	rc |= pk_cstr(pk, "metric");
	rc |= pk_cstr(pk, r->metric);
	rc |= pk_cstr(pk, "rule");
	rc |= pk_cstr(pk, rule);
	rc |= pk_cstr(pk, "value");
	if (hit->value_is_int)
		rc |= msgpack_pack_int64(pk, hit->value_i);
	else
		rc |= msgpack_pack_double(pk, hit->value);
	return rc ? -1 : 0;
}
