/* sbench — learning curves: the numbers of each run's metrics file over its
 * run time, from the verified records of the benchmark's logs (the
 * heartbeats that carried `metrics`, and the finish; docs/event-log.md
 * §6.2, docs/spec.md "Metrics and learning curves").
 *
 * A point is one metric of one record: the child, the attempt and restart
 * of the run (a log file each, events/<child>.a<attempt>.j<job>.r<restart>
 * .log), the seconds since that run's start (a heartbeat's elapsed_s, the
 * finish's wall_s), the metric's name and its value.  Each log is read with
 * the benchmark's key and must name the benchmark, the child and the
 * attempt of its file name: only the records of its verified
 * prefix give points.  Records after a tag that does not verify, a broken
 * chain or a record of another run are not points, and the result says
 * which file and how many records were left out (a warning).  A torn tail,
 * a writer that is still writing or died, is no warning: the records
 * before it are points.
 *
 * Points come in child order (child, attempt, restart, job), then in the
 * order of the records in the log, then by metric name.  A heartbeat
 * carries the numbers only when they changed (or at every heartbeat with
 * early-stop rules): the curve is a step function whose steps are the
 * points.  A child reused from an earlier benchmark has no log in this one
 * and no points: its curve is in the benchmark it ran in.
 *
 * A struct sb_curves is immutable; it borrows the benchmark it was made
 * from (its parameters): keep that alive until sb_curves_destroy. */
#ifndef SBENCH_CURVES_H
#define SBENCH_CURVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sbench/bench.h"
#include "sbench/context.h"
#include "sbench/error.h"
#include "sbench/format.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sb_curves;

/* The options.  Zero-initialise it (= { 0 }): all zeros are the defaults.
 * The strings are borrowed for the call. */
struct sb_curves_opts {
	/* When has_child: only the logs of child `child` (an error when it is
	 * not a child of the benchmark). */
	bool has_child;
	int64_t child;
	/* Only these metrics, nmetrics names; NULL: every metric. */
	const char *const *metrics;
	size_t nmetrics;
};

/* One point of a curve.  metric is borrowed from the curves it came from. */
struct sb_curve_point {
	size_t child;
	int64_t attempt;
	int64_t restart;
	double elapsed_s;     /* since the run's start */
	const char *metric;
	bool is_int;          /* the file had an integer: i holds it exactly */
	int64_t i;
	double value;         /* the number (an integer converted) */
	bool final;           /* from the finish record (elapsed_s is its wall_s) */
};

/* Reads the logs of bench (its events/ directory) with its key and
 * collects the points into a new *out.  ctx gives the progress callback
 * (every 1,000 logs when there are more).  NULL opts: the defaults.  -1
 * with err (*out NULL): SB_ERR_NOT_FOUND when opts->child is not a child
 * of bench; SB_ERR_INPUT when the key cannot be loaded; SB_ERR_RUNTIME
 * when the benchmark's record cannot be planned again (its parameters) or
 * a log cannot be read (not a finding: an I/O error); SB_ERR_NOMEM. */
int sb_curves_bench(const struct sb_ctx *ctx, struct sb_bench *bench,
		    const struct sb_curves_opts *opts, struct sb_curves **out,
		    struct sb_error *err);

/* Frees curves; accepts NULL. */
void sb_curves_destroy(struct sb_curves *c);

/* The points: their number, and point i into *out (-1 when i is out of
 * range). */
size_t sb_curves_count(const struct sb_curves *c);
int sb_curves_point(const struct sb_curves *c, size_t i, struct sb_curve_point *out);

/* What was left out, one line each ("events/0/3.a0.j12.r0.log: 4 records
 * after record 2 do not verify (bad_mac: ...); they are not points").
 * Borrowed from c. */
size_t sb_curves_warning_count(const struct sb_curves *c);
const char *sb_curves_warning(const struct sb_curves *c, size_t i);

/* Renders c to out; out is flushed, not closed.  SB_FORMAT_JSON, one line:
 * {"format": 1, "benchmark": {"name", "tag", "digest", "dir"},
 * "params": [NAME...], "metrics": [NAME...] (the metrics of the points,
 * sorted), "children": [{"index", "digest", "params": {NAME: VALUE},
 * "repeat"}] (the children with a point), "points": [{"child", "attempt",
 * "restart", "elapsed_s", "metric", "value", "final"}], "logs": {"files",
 * "records", "verified", "left_out"}, "warnings": [...]}.  SB_FORMAT_CSV:
 * RFC 4180, CRLF, a header row (child, attempt, restart, elapsed_s, metric,
 * value, final, param.NAME...) and a row per point.  -1 with err:
 * SB_ERR_INPUT for another format, SB_ERR_RUNTIME when out could not be
 * written, SB_ERR_NOMEM. */
int sb_curves_render(const struct sb_curves *c, enum sb_format format, FILE *out,
		     struct sb_error *err);

/* The same into a malloc'd NUL-terminated buffer: on 0, *buf holds *len
 * bytes (len may be NULL), to free with sb_free; on -1, *buf is NULL. */
int sb_curves_render_buffer(const struct sb_curves *c, enum sb_format format, char **buf,
			    size_t *len, struct sb_error *err);

#ifdef __cplusplus
}
#endif

#endif
