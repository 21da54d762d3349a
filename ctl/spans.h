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

#include "ctl/status.h"

/* A child's span, times in ns since the epoch, -1 when unknown. */
struct sb_span {
	int64_t submitted, started, ended;
	double queue_s, run_s;        /* NAN when unknown; up to now while waiting or running */
	bool has_usage;               /* from the verified finish: */
	double wall_s, cpu_s;
	int64_t max_rss_kb;
};

/* The span of attempt a (may be NULL) as the evidence of st shows it.  The
 * scheduler's times (sacct Submit, Start, End) come first, the records'
 * (submission, start and finish records) when it has none. */
void sb_span_of(const struct sb_status *st, const struct sb_attempt_status *a,
		struct sb_span *out);

/* Copies wall_s, max_rss_kb and user_s + sys_s of a verified finish record's
 * payload into log. */
void sb_span_usage_from_finish(const msgpack_object *payload, struct sb_log_evidence *log);

struct sb_json;
/* The child keys "submitted", "started", "ended", "queue_s", "run_s",
 * "wall_s", "max_rss_kb", "cpu_s" into an open object. */
void sb_spans_json_child(struct sb_json *j, const struct sb_status *st,
			 const struct sb_attempt_status *a);

/* The benchmark keys "lane" (or null), "first_submitted", "last_ended",
 * "makespan_s" (null until every child is over) into an open object. */
void sb_spans_json_bench(struct sb_json *j, const struct sb_status *st);

/* The text of spans for `sbctl status --spans`: one line per child. */
void sb_spans_text(FILE *out, const struct sb_status *st);

struct sb_stats;
struct sb_group;
#define SB_RESOURCE_COUNT 3
/* "wall_s", "max_rss_kb", "cpu_s" */
extern const char *const sb_resource_names[SB_RESOURCE_COUNT];

/* The resource statistics of each group over its succeeded children with a
 * verified finish, into groups[g].resources.  group_of[c] is child c's
 * group.  -1 when out of memory. */
int sb_spans_group_resources(const struct sb_status *st, const size_t *group_of,
			     struct sb_group *groups, size_t ngroups);

/* The "resources" object of one group (n 0: the resource is left out). */
void sb_spans_json_resources(struct sb_json *j, const struct sb_stats *stats);

#endif
