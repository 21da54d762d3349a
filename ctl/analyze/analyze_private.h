/* sbctl analyze (docs/sbctl-analyze.md): statistics of each group of children, over the
 * succeeded ones only, from the metrics of their verified finish records. */
#ifndef SB_CTL_ANALYZE_H
#define SB_CTL_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/stats.h"
#include "status/status_private.h"
#include "sbench/analyze.h"

struct sb_group {
	size_t first;               /* the first child of the group (for its params) */
	size_t n;                   /* succeeded children */
	size_t classes[SB_CLASS_COUNT];
	size_t restarts;            /* runs after the first of its children's
	                               latest attempts (sb_status_chain) */
	struct sb_stats *stats;     /* one per analysis metric; n 0 when none */
	struct sb_stats resources[3]; /* wall_s, max_rss_kb, cpu_s (status/spans.h) */
};

struct sb_analysis {
	const struct sb_status *st; /* the status analysed */
	struct sb_status *owned;    /* the same when the analysis owns it */
	size_t *by;                 /* parameter indices grouped by */
	size_t nby;
	char **metrics;             /* metric names analysed, in output order */
	size_t nmetrics;
	struct sb_group *groups;    /* in the order of their first child, or
	                               ranked by the sort metric */
	size_t ngroups;
	size_t *group_of;           /* [st->n]: each child's group */
	bool metrics_given;         /* opts->metrics named them */
	int sort;                   /* the metric ranked by, -1 none */
	bool sort_desc;
	char **warnings;            /* sb_analysis_warning */
	size_t nwarnings;
};

/* Groups, aggregates and ranks into out, which borrows st, as sb_analyze
 * (<sbench/analyze.h>) documents: opts->group_by / metrics NULL for the
 * spec's analysis section (default every parameter, and every metric
 * found), else names.  -1 with err: SB_ERR_INPUT "group_by: 'NAME' is not
 * a parameter of benchmark 'B'", "metrics: ...", "sort: ...", SB_ERR_NOMEM. */
int sb_analysis_compute(const struct sb_status *st, const struct sb_analyze_opts *opts,
			struct sb_analysis *out, struct sb_error *err);

void sb_analysis_release(struct sb_analysis *a);

/* The metric names of the per-child table (sb_analysis_render_runs): those
 * given by opts->metrics, else every metric any child's finish reported
 * (not only the successes'), sorted.  Free with sb_analysis_free_names. */
int sb_analysis_runs_metrics(const struct sb_analysis *a, char ***names, size_t *n);
void sb_analysis_free_names(char **names, size_t n);

#endif
