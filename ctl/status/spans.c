#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "status/spans.h"
#include "status/status_stages.h"
#include "status/status_types.h"
#include "proto/json.h"
#include "proto/util.h"
#include "sbench/lane.h"

#define NS 1000000000LL

const char *const sb_resource_names[SB_RESOURCE_COUNT] = { "wall_s", "max_rss_kb", "cpu_s" };

static bool over(enum sb_class c)
{
	return c != SB_CLASS_PENDING && c != SB_CLASS_RUNNING && c != SB_CLASS_STALE;
}

/* A child whose job ran more than once (stage 4b): it started with its
 * first run, waited in the queue before that one, and ran for its runs'
 * times added (the requeue waits in between are neither). */
static void restarted_span(const struct sb_status *st, size_t c, struct sb_span *out)
{
	const struct sb_chain *ch = sb_status_chain(st, c);

	if (ch == NULL || ch->n < 2 || ch->v[0].started_ns <= 0)
		return;
	out->started = ch->v[0].started_ns;
	out->queue_s = out->submitted >= 0 ? (double)(out->started - out->submitted) / NS : NAN;
	out->run_s = ch->run_time_s;
}

void sb_span_of(const struct sb_status *st, size_t c, const struct sb_attempt_status *a,
		struct sb_span *out)
{
	const struct sb_sched_row *r;
	int64_t now = st->now_ns ? st->now_ns : sb_status_now_ns();
	bool row, done;

	out->submitted = out->started = out->ended = -1;
	out->queue_s = out->run_s = NAN;
	out->has_usage = false;
	if (a == NULL)
		return;
	r = &a->sched.row;
	row = a->sched.has_row;
	done = over(a->verdict.cls);
	if (row && r->submit >= 0)
		out->submitted = r->submit * NS;
	else if (a->sched.submit_ns > 0)
		out->submitted = a->sched.submit_ns;
	if (row && r->start > 0 && r->state != SB_STATE_PENDING)
		out->started = r->start * NS;
	else if (a->log.has_start && a->log.start_ns > 0)
		out->started = a->log.start_ns;
	if (row && r->end > 0 && sb_sched_state_terminal(r->state))
		out->ended = r->end * NS;
	else if (a->log.has_finish && a->log.finish_ns > 0)
		out->ended = a->log.finish_ns;
	else if (row && r->end > 0 && done)
		out->ended = r->end * NS;
	if (out->submitted >= 0 && out->started >= 0)
		out->queue_s = (double)(out->started - out->submitted) / NS;
	else if (out->submitted >= 0 && !done)
		out->queue_s = (double)(now - out->submitted) / NS; /* still waiting */
	if (out->started >= 0 && out->ended >= 0)
		out->run_s = (double)(out->ended - out->started) / NS;
	else if (out->started >= 0 && !done)
		out->run_s = (double)(now - out->started) / NS;     /* still running */
	if (c < st->n && a == st->children[c].latest)
		restarted_span(st, c, out);
	if (out->queue_s < 0)
		out->queue_s = 0; /* clocks of two machines, whole seconds of sacct */
	if (out->run_s < 0)
		out->run_s = 0;
	if (a->log.has_finish && a->log.has_usage) {
		out->has_usage = true;
		out->wall_s = a->log.wall_s;
		out->cpu_s = a->log.cpu_s;
		out->max_rss_kb = a->log.max_rss_kb;
	}
}

static void json_time(struct sb_json *j, const char *key, int64_t ns)
{
	char buf[32];

	sb_json_key(j, key);
	if (ns < 0)
		sb_json_null(j);
	else
		sb_json_str(j, sb_fmt_time_ns(ns, buf));
}

/* key: v, null when v is NaN (sb_json_double writes null for it) */
static void json_secs(struct sb_json *j, const char *key, double v)
{
	sb_json_key(j, key);
	sb_json_double(j, v);
}

void sb_spans_json_child(struct sb_json *j, const struct sb_status *st, size_t c,
			 const struct sb_attempt_status *a)
{
	struct sb_span s;

	sb_span_of(st, c, a, &s);
	json_time(j, "submitted", s.submitted);
	json_time(j, "started", s.started);
	json_time(j, "ended", s.ended);
	json_secs(j, "queue_s", s.queue_s);
	json_secs(j, "run_s", s.run_s);
	json_secs(j, "wall_s", s.has_usage ? s.wall_s : NAN);
	sb_json_key(j, "max_rss_kb");
	if (s.has_usage)
		sb_json_int(j, s.max_rss_kb);
	else
		sb_json_null(j);
	json_secs(j, "cpu_s", s.has_usage ? s.cpu_s : NAN);
}

/* The benchmark's first submission, last end, and whether every child is over. */
static bool bench_span(const struct sb_status *st, int64_t *first, int64_t *last)
{
	bool all_over = st->n > 0;
	size_t c;

	*first = *last = -1;
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		size_t k;

		if (!over(ch->cls))
			all_over = false;
		for (k = 0; k < ch->nattempts; k++) {
			struct sb_span s;

			sb_span_of(st, c, &ch->attempts[k], &s);
			if (s.submitted >= 0 && (*first < 0 || s.submitted < *first))
				*first = s.submitted;
			if (s.ended > *last)
				*last = s.ended;
		}
	}
	return all_over;
}

void sb_spans_json_bench(struct sb_json *j, const struct sb_status *st)
{
	int64_t first, last;
	bool all_over = bench_span(st, &first, &last);

	sb_json_key(j, "lane");
	sb_json_str(j, st->bench->lane);
	json_time(j, "first_submitted", first);
	json_time(j, "last_ended", last);
	json_secs(j, "makespan_s", all_over && first >= 0 && last >= first
		  ? (double)(last - first) / NS : NAN);
}

static const char *secs_text(double v, char buf[32])
{
	if (isnan(v))
		return "-";
	snprintf(buf, 32, "%.1f", v);
	return buf;
}

static const char *time_text(int64_t ns, char buf[32])
{
	if (ns < 0)
		return "-";
	sb_fmt_time_ns(ns, buf);
	memcpy(buf + 19, "Z", 2); /* whole seconds are enough to read */
	return buf;
}

void sb_spans_text(FILE *out, const struct sb_status *st)
{
	char t1[32], t2[32], t3[32], q[32], r[32], w[32], cpu[32];
	int64_t first, last;
	bool all_over = bench_span(st, &first, &last);
	size_t c;

	fprintf(out, "\nspans (queue wait and run time, s; wall, CPU and peak memory of the verified "
		"finish):\n  %-6s %-12s %-20s %-20s %-20s %8s %8s %8s %8s %10s\n", "child", "class",
		"submitted", "started", "ended", "queue", "run", "wall", "cpu", "max_rss_kB");
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		struct sb_span s;
		char rss[32];

		sb_span_of(st, c, ch->latest, &s);
		snprintf(rss, sizeof(rss), "%" PRId64, s.max_rss_kb);
		fprintf(out, "  %-6zu %-12s %-20s %-20s %-20s %8s %8s %8s %8s %10s\n", c,
			sb_class_name(ch->cls), time_text(s.submitted, t1), time_text(s.started, t2),
			time_text(s.ended, t3), secs_text(s.queue_s, q), secs_text(s.run_s, r),
			secs_text(s.has_usage ? s.wall_s : NAN, w),
			secs_text(s.has_usage ? s.cpu_s : NAN, cpu), s.has_usage ? rss : "-");
	}
	fprintf(out, "  first submitted %s, last ended %s, makespan ", time_text(first, t1),
		time_text(last, t2));
	if (all_over && first >= 0 && last >= first)
		fprintf(out, "%.1f s\n", (double)(last - first) / NS);
	else
		fputs("- (not every child is over)\n", out);
}

int sb_status_render_spans(const struct sb_status *st, FILE *out, struct sb_error *err)
{
	sb_spans_text(out, st);
	if (fflush(out) != 0 || ferror(out))
		return sb_errorf(err, "cannot write the spans: %s", strerror(errno));
	return 0;
}

