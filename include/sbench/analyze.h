/* sbench — analysis: statistics of each group of children over the
 * succeeded ones only, from the metrics of their verified finish records
 * (never from files read again), as `sbctl analyze` does
 * (docs/sbctl-analyze.md).
 *
 * Children are grouped by the values of the group_by parameters; groups
 * are in the order of their first child.  For each group and metric: n,
 * mean, sample standard deviation (n - 1; NaN, null in JSON, when n < 2),
 * min, median (the mean of the two middle values for an even n) and max,
 * the values summed in child-index order, so the same evidence gives the
 * same bytes whatever the order of the files.  The children that did not
 * succeed are listed with their class and reason, never dropped.
 *
 * A struct sb_analysis is immutable; it borrows the status it was made
 * from (sb_analyze) or owns it (sb_analyze_bench).  Free it with
 * sb_analysis_destroy. */
#ifndef SBENCH_ANALYZE_H
#define SBENCH_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sbench/bench.h"
#include "sbench/context.h"
#include "sbench/error.h"
#include "sbench/format.h"
#include "sbench/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sb_analysis;

/* The options.  Zero-initialise it (= { 0 }): all zeros are the defaults.
 * The strings are borrowed for the call. */
struct sb_analyze_opts {
	/* The parameters to group by, ngroup_by names; NULL: the spec's
	 * analysis.group_by, by default every parameter.  A non-NULL array of
	 * 0 names puts every child in one group. */
	const char *const *group_by;
	size_t ngroup_by;
	/* The metrics, nmetrics names, in output order; NULL: the spec's
	 * analysis.metrics, else every metric a succeeded child has, sorted. */
	const char *const *metrics;
	size_t nmetrics;
	/* Rank the groups by the mean of this metric, one of the metrics
	 * analysed (NULL: the spec's analysis.sort, "-" before the name for
	 * descending, when it names a metric analysed; else groups in the
	 * order of their first child):
	 * ascending (lowest mean first), or descending when sort_desc.  Groups
	 * without a value of the metric come last; ties keep the children's
	 * order.  The first group is then the best. */
	const char *sort;
	bool sort_desc;
};

/* The statistics of one metric in one group.  n 0: no succeeded child of
 * the group has the metric (the other fields are then NaN). */
struct sb_metric_stats {
	size_t n;
	double mean, stddev, min, median, max; /* stddev NaN when n < 2 */
};

/* Analyses st into a new *out, which borrows st: keep st alive until *out
 * is destroyed.  NULL opts: the defaults.  -1 with err (*out NULL):
 * SB_ERR_INPUT for a group_by name that is not a parameter of the
 * benchmark, SB_ERR_NOMEM. */
int sb_analyze(const struct sb_status *st, const struct sb_analyze_opts *opts,
	       struct sb_analysis **out, struct sb_error *err);

/* Computes the status of bench (sb_status_compute with status_opts) and
 * analyses it (sb_analyze with opts) into *out, which owns that status and
 * borrows bench.  -1 with the errors of either. */
int sb_analyze_bench(const struct sb_ctx *ctx, struct sb_bench *bench,
		     const struct sb_status_opts *status_opts,
		     const struct sb_analyze_opts *opts, struct sb_analysis **out,
		     struct sb_error *err);

/* Frees an analysis (and the status it owns); accepts NULL. */
void sb_analysis_destroy(struct sb_analysis *an);

/* The status analysed (borrowed from an). */
const struct sb_status *sb_analysis_status(const struct sb_analysis *an);

/* The metrics, in output order; names borrowed from an. */
size_t sb_analysis_metric_count(const struct sb_analysis *an);
const char *sb_analysis_metric(const struct sb_analysis *an, size_t m);

/* What the analysis could not settle, one line each (a metric that no
 * succeeded child reported, with a did-you-mean): the CLI prints them on
 * stderr, the JSON holds them under "warnings".  Borrowed from an. */
size_t sb_analysis_warning_count(const struct sb_analysis *an);
const char *sb_analysis_warning(const struct sb_analysis *an, size_t i);

/* The groups: their count; group g's first child (its parameters are the
 * group's), its number of succeeded children and of children of class c;
 * the statistics of metric m in group g into *out (-1 when g or m is out
 * of range). */
size_t sb_analysis_group_count(const struct sb_analysis *an);
size_t sb_analysis_group_first(const struct sb_analysis *an, size_t g);
size_t sb_analysis_group_succeeded(const struct sb_analysis *an, size_t g);
size_t sb_analysis_group_class(const struct sb_analysis *an, size_t g, enum sb_class c);
int sb_analysis_stats(const struct sb_analysis *an, size_t g, size_t m,
		      struct sb_metric_stats *out);

/* Renders an to out as `sbctl analyze` prints it (SB_FORMAT_TEXT, for
 * people: 6 significant digits), `--json` (SB_FORMAT_JSON, one line) or
 * `--csv` (SB_FORMAT_CSV: RFC 4180, CRLF line ends, a header row, then one
 * row per group and metric), byte for byte; out is flushed, not closed.
 * -1 with err: SB_ERR_INPUT for another format, SB_ERR_RUNTIME when out
 * could not be written, SB_ERR_NOMEM. */
int sb_analysis_render(const struct sb_analysis *an, enum sb_format format, FILE *out,
		       struct sb_error *err);

/* The same into a malloc'd NUL-terminated buffer: on 0, *buf holds *len
 * bytes (len may be NULL), to free with sb_free; on -1, *buf is NULL. */
int sb_analysis_render_buffer(const struct sb_analysis *an, enum sb_format format,
			      char **buf, size_t *len, struct sb_error *err);

/* The per-child table of an (`sbctl analyze --runs`): one row per child,
 * whatever its class, with its parameters, repeat, class, reason, latest
 * attempt, final metrics (those the analysis was given, else every metric
 * any child's finish reported; a child without one has none), its run
 * directory (a reused child's: its source's) and where a reused child
 * ran.  SB_FORMAT_JSON: {"format", "benchmark", "scheduler", "metrics":
 * [...], "runs": [{"index", "digest", "params", "repeat", "class", "reason",
 * "attempt", "metrics", "run_dir", "reused_from"}]}; SB_FORMAT_CSV: a
 * header row (index, digest, repeat, class, reason, attempt, run_dir,
 * reused_from_dir, reused_from_index, param.NAME..., metric.NAME...) and a
 * row per child, CRLF; SB_FORMAT_TEXT: a line per child.  -1 with err as
 * sb_analysis_render. */
int sb_analysis_render_runs(const struct sb_analysis *an, enum sb_format format, FILE *out,
			    struct sb_error *err);
int sb_analysis_render_runs_buffer(const struct sb_analysis *an, enum sb_format format,
				   char **buf, size_t *len, struct sb_error *err);

#ifdef __cplusplus
}
#endif

#endif
