#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/earlystop.h"
#include "proto/mpcheck.h"
#include "proto/recordkeys.h"

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

int sb_agent_early_stop_check(const struct sb_early_stop_rules *es,
			      const struct sb_agent_metrics *m, double elapsed_s,
			      struct sb_agent_early_hit *hit)
{
	size_t i;

	for (i = 0; i < es->n; i++) {
		const struct sb_early_stop_rule *r = &es->v[i];
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

int sb_agent_pack_early_stop(msgpack_packer *pk, const struct sb_early_stop_rules *es,
			     const struct sb_agent_early_hit *hit)
{
	const struct sb_early_stop_rule *r = &es->v[hit->index];
	char rule[64];
	int rc = 0;

	sb_early_stop_rule_text(r, rule, sizeof(rule));
	rc |= msgpack_pack_map(pk, 6 + (hit->at_finish != 0));
	rc |= pk_cstr(pk, SB_RK_AFTER_S);
	rc |= msgpack_pack_double(pk, hit->elapsed_s);
	if (hit->at_finish) {
		rc |= pk_cstr(pk, SB_RK_AT_FINISH);
		rc |= msgpack_pack_true(pk);
	}
	rc |= pk_cstr(pk, SB_RK_DECLARED_AFTER_S);
	rc |= msgpack_pack_double(pk, r->after_s);
	rc |= pk_cstr(pk, SB_RK_INDEX);
	rc |= msgpack_pack_uint64(pk, hit->index);
	rc |= pk_cstr(pk, SB_RK_METRIC);
	rc |= pk_cstr(pk, r->metric);
	rc |= pk_cstr(pk, SB_RK_RULE);
	rc |= pk_cstr(pk, rule);
	rc |= pk_cstr(pk, SB_RK_VALUE);
	if (hit->value_is_int)
		rc |= msgpack_pack_int64(pk, hit->value_i);
	else
		rc |= msgpack_pack_double(pk, hit->value);
	return rc ? -1 : 0;
}
