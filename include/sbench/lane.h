/* sbench — the training lane (docs/lane.md): submit into a lane that keeps
 * at most K benchmarks active, check a submit's health right after it, and
 * the spans of a status as text. */
#ifndef SBENCH_LANE_H
#define SBENCH_LANE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sbench/context.h"
#include "sbench/error.h"
#include "sbench/format.h"
#include "sbench/status.h"
#include "sbench/submit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the spans of every child of st (submitted, started, ended, queue
 * wait, run time, wall, CPU, peak memory) and the benchmark's makespan as
 * the text of `sbctl status --spans` to out.  -1 with err when out cannot
 * be written. */
int sb_status_render_spans(const struct sb_status *st, FILE *out, struct sb_error *err);

/* The options of sb_lane_submit; zero-initialise it. */
struct sb_lane_opts {
	const char *lane;      /* NULL: no lane (then only the check) */
	int64_t max_active;    /* the most benchmarks of the lane with a pending or
	                          running job; 0: 1 */
	bool check;            /* watch the benchmark after the submit */
	double check_seconds;  /* 0: 60 */
	double check_interval; /* seconds between two polls; 0: a tenth of
	                          check_seconds, from 1 to 10 */
};

struct sb_lane_result;

/* sb_submit with a lane and a check.  With a lane, under the lane's lock
 * (so that two submits of one lane never both submit): one squeue call
 * finds the benchmarks of the lane that still have a pending or running
 * job; when there are max_active of them nothing is submitted
 * (sb_lane_result_busy); else the spec is submitted with the lane in its
 * record and job names.  With a check, the benchmark is then watched for
 * check_seconds, returning early once every child of its first job array
 * has ended, and a health report is kept (sb_lane_result_healthy).
 * opts->dry_run and a check or a lane do not go together (SB_ERR_INPUT).
 *
 * On 0, *res is the result (free it with sb_lane_result_destroy).  On -1,
 * err says why (the errors of sb_submit; SB_ERR_SCHEDULER when squeue
 * failed; SB_ERR_INPUT for a bad lane name), and *res is set when the
 * submit itself went that far, as for sb_submit. */
int sb_lane_submit(const struct sb_ctx *ctx, const char *spec_path,
		   const struct sb_submit_opts *sopts, const struct sb_lane_opts *opts,
		   struct sb_lane_result **res, struct sb_error *err);

/* Whether the lane was busy and nothing was submitted (sbctl exits 4). */
bool sb_lane_result_busy(const struct sb_lane_result *r);

/* Whether the check found nothing failed or killed (sbctl exits 3 when
 * not); true without a check. */
bool sb_lane_result_healthy(const struct sb_lane_result *r);

/* The submit's own result (borrowed), NULL when the lane was busy. */
const struct sb_submit_result *sb_lane_result_submit(const struct sb_lane_result *r);

/* Renders r as `sbctl submit --lane/--check` prints it: SB_FORMAT_JSON is
 * the document of `sbctl submit --json` with "lane" and "check" added;
 * SB_FORMAT_TEXT the submit's text, then the lane's and the check's. */
int sb_lane_render(const struct sb_lane_result *r, enum sb_format format, FILE *out,
		   struct sb_error *err);
int sb_lane_render_buffer(const struct sb_lane_result *r, enum sb_format format, char **buf,
			  size_t *len, struct sb_error *err);

/* Frees a result; accepts NULL. */
void sb_lane_result_destroy(struct sb_lane_result *r);

#ifdef __cplusplus
}
#endif

#endif
