#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/proc.h"
#include "submit/check.h"
#include "status/report_child.h"
#include "status/status_private.h"
#include "proto/json.h"
#include "proto/util.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool sb_check_is_failure(enum sb_class c)
{
	/* partial: exit 0, but a declared result or the metrics file missing
	 * (its reason names which): no evidence, as much as a failure */
	return c == SB_CLASS_FAILED || c == SB_CLASS_KILLED || c == SB_CLASS_INCOMPLETE ||
	       c == SB_CLASS_INVALID || c == SB_CLASS_INCONSISTENT || c == SB_CLASS_PARTIAL;
}

static bool ended(enum sb_class c)
{
	return c != SB_CLASS_PENDING && c != SB_CLASS_RUNNING && c != SB_CLASS_STALE;
}

static bool first_array_ended(const struct sb_status *st, const size_t *first, size_t nfirst)
{
	size_t i;

	for (i = 0; i < nfirst; i++)
		if (first[i] < st->n && !ended(st->children[first[i]].cls))
			return false;
	return true;
}

static int add_pending(struct sb_check *out, const char *reason)
{
	struct sb_check_pending *v;
	size_t i;

	for (i = 0; i < out->npending; i++)
		if (!strcmp(out->pending[i].reason, reason)) {
			out->pending[i].children++;
			return 0;
		}
	v = realloc(out->pending, (out->npending + 1) * sizeof(*v));
	if (v == NULL)
		return -1;
	out->pending = v;
	v[out->npending].children = 1;
	if ((v[out->npending].reason = strdup(reason)) == NULL)
		return -1;
	out->npending++;
	return 0;
}

static int report(const struct sb_status *st, struct sb_check *out)
{
	size_t c;

	memcpy(out->counts, st->counts, sizeof(out->counts));
	out->healthy = true;
	if (st->nwarnings && (out->warnings = calloc(st->nwarnings, sizeof(*out->warnings))) == NULL)
		return -1;
	for (c = 0; c < st->nwarnings; c++, out->nwarnings++)
		if ((out->warnings[c] = strdup(st->warnings[c])) == NULL)
			return -1;
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		const struct sb_attempt_status *a = ch->latest;

		if (ch->cls == SB_CLASS_PENDING) {
			const char *r = a && a->sched.has_row && a->sched.row.reason ? a->sched.row.reason : "";
			if (add_pending(out, r) < 0)
				return -1;
		}
		if (sb_check_is_failure(ch->cls)) {
			struct sb_check_failure *v = realloc(out->failures, (out->nfailures + 1) * sizeof(*v));
			if (v == NULL)
				return -1;
			out->failures = v;
			v += out->nfailures++;
			memset(v, 0, sizeof(*v));
			v->index = c;
			v->cls = ch->cls;
			v->stderr_tail = sb_child_stderr_tail(st->bench, c, SB_CHECK_TAIL_LINES, NULL);
			if ((v->reason = strdup(ch->reason ? ch->reason : "")) == NULL)
				return -1;
			out->healthy = false;
		}
	}
	return 0;
}

/* Sleeps seconds, in slices that ask the context's stop callback; -1 when
 * it asks to stop. */
static int nap(const struct sb_ctx *ctx, double seconds)
{
	while (seconds > 0) {
		double slice = fmin(seconds, 0.25);
		if (sb_ctx_should_stop(ctx))
			return -1;
		sb_sleep_s(slice);
		seconds -= slice;
	}
	return sb_ctx_should_stop(ctx) ? -1 : 0;
}

int sb_check_watch(const struct sb_ctx *ctx, struct sb_bench *b, const size_t *first, size_t nfirst,
		   const struct sb_check_opts *w, struct sb_status **out, double *waited_s,
		   bool *ended, struct sb_error *err)
{
	struct sb_status_opts o = { 0 };
	struct sb_status *st = NULL;
	struct sb_error last = { 0 };
	double t0 = now_s(), deadline = t0 + w->seconds, interval = w->interval;
	bool backoff = interval < 0;

	*out = NULL;
	*ended = false;
	if (backoff)
		interval = 1;
	else if (interval == 0)
		interval = fmin(10, fmax(1, w->seconds / 10));
	for (;;) {
		struct sb_status *next = NULL;
		double left;

		o.sched_timeout = fmax(1, deadline - now_s());
		if (sb_status_compute(ctx, b, &o, &next, &last) == 0) {
			sb_status_destroy(st);
			st = next;
			if (first_array_ended(st, first, nfirst)) {
				*ended = true;
				break;
			}
		} else if (last.code != SB_ERR_SCHEDULER) {
			break; /* not a scheduler that may answer at the next poll */
		}
		left = deadline - now_s();
		if (left <= 0)
			break;
		if (nap(ctx, fmin(interval, left)) < 0) {
			sb_status_destroy(st);
			*waited_s = now_s() - t0;
			return sb_error_set(err, SB_ERR_INTERRUPTED, "the wait was asked to stop");
		}
		if (backoff)
			interval = fmin(10, interval * 1.5);
	}
	*waited_s = now_s() - t0;
	if (st == NULL) {
		if (err)
			*err = last;
		return -1;
	}
	*out = st;
	return 0;
}

int sb_check_run(const struct sb_ctx *ctx, const char *dir, const size_t *first, size_t nfirst,
		 double seconds, double interval, struct sb_check *out, struct sb_error *err)
{
	struct sb_check_opts w = { .seconds = seconds, .interval = interval };
	struct sb_status *st = NULL;
	struct sb_bench *b;
	int rc;

	memset(out, 0, sizeof(*out));
	out->seconds = seconds;
	if ((b = sb_bench_open(dir, err)) == NULL)
		return -1;
	rc = sb_check_watch(ctx, b, first, nfirst, &w, &st, &out->waited_s, &out->ended_early, err);
	if (rc == 0 && (rc = report(st, out)) < 0) {
		sb_check_release(out);
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	sb_status_destroy(st);
	sb_bench_destroy(b);
	return rc;
}

void sb_check_json(struct sb_json *j, const struct sb_check *c)
{
	size_t i;

	sb_json_obj_begin(j);
	sb_json_key(j, "healthy");
	sb_json_bool(j, c->healthy);
	sb_json_key(j, "seconds");
	sb_json_double(j, c->seconds);
	sb_json_key(j, "waited_s");
	sb_json_double(j, round(c->waited_s * 1000) / 1000);
	sb_json_key(j, "ended_early");
	sb_json_bool(j, c->ended_early);
	sb_json_key(j, "counts");
	sb_status_json_counts(j, c->counts);
	sb_json_key(j, "pending");
	sb_json_arr_begin(j);
	for (i = 0; i < c->npending; i++) {
		sb_json_obj_begin(j);
		sb_json_key(j, "reason");
		sb_json_str(j, c->pending[i].reason);
		sb_json_key(j, "children");
		sb_json_uint(j, c->pending[i].children);
		sb_json_obj_end(j);
	}
	sb_json_arr_end(j);
	sb_json_key(j, "warnings");
	sb_json_arr_begin(j);
	for (i = 0; i < c->nwarnings; i++)
		sb_json_str(j, c->warnings[i]);
	sb_json_arr_end(j);
	sb_json_key(j, "failures");
	sb_json_arr_begin(j);
	for (i = 0; i < c->nfailures; i++) {
		const struct sb_check_failure *f = &c->failures[i];
		sb_json_obj_begin(j);
		sb_json_key(j, "index");
		sb_json_uint(j, f->index);
		sb_json_key(j, "class");
		sb_json_str(j, sb_class_name(f->cls));
		sb_json_key(j, "reason");
		sb_json_str(j, f->reason);
		sb_json_key(j, "stderr_tail");
		sb_json_str(j, f->stderr_tail);
		sb_json_obj_end(j);
	}
	sb_json_arr_end(j);
	sb_json_obj_end(j);
}

void sb_check_text(FILE *out, const struct sb_check *c)
{
	size_t i, k, shown = 0;

	fprintf(out, "check after %.0f s%s: %s\n  counts:", c->waited_s,
		c->ended_early ? " (every child of the first array ended)" : "",
		c->healthy ? "healthy, nothing failed or was killed" : "UNHEALTHY");
	for (k = 0; k < SB_CLASS_COUNT; k++)
		if (c->counts[k])
			fprintf(out, "%s %zu %s", shown++ ? "," : "", c->counts[k],
				sb_class_name((enum sb_class)k));
	fputc('\n', out);
	for (i = 0; i < c->nwarnings; i++)
		fprintf(out, "  warning: %s\n", c->warnings[i]);
	for (i = 0; i < c->npending; i++)
		fprintf(out, "  pending: %zu child%s (%s)\n", c->pending[i].children,
			c->pending[i].children == 1 ? "" : "ren",
			c->pending[i].reason[0] ? c->pending[i].reason : "no reason given");
	for (i = 0; i < c->nfailures; i++) {
		const struct sb_check_failure *f = &c->failures[i];
		fprintf(out, "  %s: child %zu: %s\n", sb_class_name(f->cls), f->index, f->reason);
		if (f->stderr_tail) {
			char *copy = strdup(f->stderr_tail), *save = NULL;
			for (char *line = copy ? strtok_r(copy, "\n", &save) : NULL; line;
			     line = strtok_r(NULL, "\n", &save))
				fprintf(out, "      | %.200s\n", line);
			free(copy);
		}
	}
}

void sb_check_release(struct sb_check *c)
{
	size_t i;

	for (i = 0; i < c->nfailures; i++) {
		free(c->failures[i].reason);
		free(c->failures[i].stderr_tail);
	}
	for (i = 0; i < c->npending; i++)
		free(c->pending[i].reason);
	for (i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->failures);
	free(c->pending);
	free(c->warnings);
	c->failures = NULL;
	c->pending = NULL;
	c->warnings = NULL;
	c->nfailures = c->npending = c->nwarnings = 0;
}
