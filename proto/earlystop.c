/* Early-stop rules shared by the spec loader and sbagent (proto/earlystop.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/earlystop.h"
#include "proto/mpcheck.h"

/* A number of the map, int or float, with its shortest text that reads
 * back; -1 otherwise. */
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
		for (n = 1; n <= 17; n++) {
			snprintf(text, size, "%.*g", n, *v);
			if (strtod(text, NULL) == *v)
				break;
		}
		return 0;
	default:
		return -1;
	}
}

int sb_early_stop_rules_decode(struct sb_early_stop_rules *es, const msgpack_object *o,
			       struct sb_error *err)
{
	uint32_t i;

	memset(es, 0, sizeof(*es));
	if (o == NULL || o->type == MSGPACK_OBJECT_NIL)
		return 0;
	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size > SB_EARLY_STOP_MAX_RULES)
		return sb_errorf(err, "early_stop of the task map is not a list of at most %d rules",
				 SB_EARLY_STOP_MAX_RULES);
	for (i = 0; i < o->via.array.size; i++) {
		const msgpack_object *r = &o->via.array.ptr[i];
		const msgpack_object *m = sb_mp_get(r, SB_ES_METRIC), *above = sb_mp_get(r, SB_ES_ABOVE);
		const msgpack_object *below = sb_mp_get(r, SB_ES_BELOW);
		struct sb_early_stop_rule *d = &es->v[i];
		char after_text[SB_EARLY_STOP_NUMBER_TEXT];

		if (r->type != MSGPACK_OBJECT_MAP || m == NULL || m->type != MSGPACK_OBJECT_STR ||
		    m->via.str.size == 0 || m->via.str.size > SB_EARLY_STOP_MAX_METRIC ||
		    memchr(m->via.str.ptr, 0, m->via.str.size) || (above == NULL) == (below == NULL) ||
		    mp_number(above ? above : below, &d->threshold, d->threshold_text,
			      sizeof(d->threshold_text)) < 0 ||
		    mp_number(sb_mp_get(r, SB_ES_AFTER), &d->after_s, after_text, sizeof(after_text)) < 0 ||
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

const char *sb_early_stop_rule_text(const struct sb_early_stop_rule *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s", r->above ? SB_ES_ABOVE : SB_ES_BELOW, r->threshold_text);
	return buf;
}
