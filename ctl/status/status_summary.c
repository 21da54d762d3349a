/* A status made from a summary of each child (status/status_private.h):
 * what sbctl verify analyses again, from the bundle alone. */
#include <stdlib.h>
#include <string.h>

#include "status/status_private.h"
#include "status/status_types.h"

struct sb_status *sb_status_from_summary(struct sb_bench *b, const struct sb_summary_child *v,
					 size_t n, struct sb_error *err)
{
	struct sb_status *st = calloc(1, sizeof(*st));
	size_t c;

	if (st == NULL)
		goto nomem;
	st->bench = b;
	st->n = n;
	st->children = calloc(n ? n : 1, sizeof(*st->children));
	if (st->children == NULL)
		goto nomem;
	for (c = 0; c < n; c++) {
		struct sb_child_status *ch = &st->children[c];
		const struct sb_summary_child *s = &v[c];

		ch->index = c;
		ch->cls = s->cls;
		ch->reason = sb_intern(&st->texts, s->reason ? s->reason : "");
		if (ch->reason == NULL)
			goto nomem;
		st->counts[s->cls]++;
		if (s->run) {
			struct sb_attempt_status *a = sb_arena_alloc(&st->strings, sizeof(*a));
			if (a == NULL)
				goto nomem;
			memset(a, 0, sizeof(*a));
			a->log.exit_code = -1;
			a->log.has_usage = s->has_usage;
			a->log.wall_s = s->wall_s;
			a->log.cpu_s = s->cpu_s;
			a->log.max_rss_kb = s->max_rss_kb;
			a->verdict.cls = s->cls;
			a->verdict.reason = ch->reason;
			if (s->nmetrics) {
				a->metrics = sb_arena_alloc(&st->strings, s->nmetrics * sizeof(*a->metrics));
				if (a->metrics == NULL)
					goto nomem;
				for (size_t k = 0; k < s->nmetrics; k++) {
					a->metrics[k] = s->metrics[k];
					a->metrics[k].name = sb_arena_strndup(&st->strings, s->metrics[k].name,
									      strlen(s->metrics[k].name));
					if (a->metrics[k].name == NULL)
						goto nomem;
				}
				a->nmetrics = s->nmetrics;
			}
			ch->attempts = ch->latest = a;
			ch->nattempts = 1;
		}
		if (s->runs > 0) {
			struct sb_chain *chn;
			if (sb_grow((void **)&st->chains, &st->chains_cap, st->nchains + 1,
				    sizeof(*st->chains)) < 0)
				goto nomem;
			chn = &st->chains[st->nchains];
			memset(chn, 0, sizeof(*chn));
			chn->child = c;
			chn->n = s->runs;
			chn->v = calloc(s->runs, sizeof(*chn->v));
			if (chn->v == NULL)
				goto nomem;
			st->nchains++;
		}
	}
	return st;
nomem:
	if (st) {
		st->bench = NULL;
		sb_status_release(st);
		free(st);
	}
	sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	return NULL;
}
