/* Spans and resources of the children of a status (docs/sbctl-status.md,
 * "Spans"): when each child was submitted, started and ended, its queue
 * wait and run time, the wall time, peak memory and CPU time of its
 * verified finish; the benchmark's first submission, last end and makespan;
 * and the resource statistics of analyze (over succeeded children). */
#ifndef SB_CTL_SPANS_H
#define SB_CTL_SPANS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <msgpack.h>

#include "status/status_types.h"

/* A child's span, times in ns since the epoch, -1 when unknown. */
struct sb_span {
	int64_t submitted, started, ended;
	double queue_s, run_s;        /* NAN when unknown; up to now while waiting or running */
	bool has_usage;               /* from the verified finish: */
	double wall_s, cpu_s;
	int64_t max_rss_kb;
};

/* The span of attempt a (may be NULL) of child c as the evidence of st
 * shows it.  The scheduler's times (sacct Submit, Start, End) come first,
 * the records' (submission, start and finish records) when it has none.
 * The latest attempt of a child whose job ran more than once started with
 * its first run, and ran for its runs' times added. */
void sb_span_of(const struct sb_status *st, size_t c, const struct sb_attempt_status *a,
		struct sb_span *out);

struct sb_json;
/* The child keys "submitted", "started", "ended", "queue_s", "run_s",
 * "wall_s", "max_rss_kb", "cpu_s" into an open object. */
void sb_spans_json_child(struct sb_json *j, const struct sb_status *st, size_t c,
			 const struct sb_attempt_status *a);

/* The benchmark keys "lane" (or null), "first_submitted", "last_ended",
 * "makespan_s" (null until every child is over) into an open object. */
void sb_spans_json_bench(struct sb_json *j, const struct sb_status *st);

/* The text of spans for `sbctl status --spans`: one line per child. */
void sb_spans_text(FILE *out, const struct sb_status *st);

#define SB_RESOURCE_COUNT 3
/* "wall_s", "max_rss_kb", "cpu_s" */
extern const char *const sb_resource_names[SB_RESOURCE_COUNT];

#endif
