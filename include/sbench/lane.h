/* The training lane (docs/lane.md): the spans of a status as text. */
#ifndef SBENCH_LANE_H
#define SBENCH_LANE_H

#include <stdio.h>

#include "sbench/error.h"
#include "sbench/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the spans of every child of st (submitted, started, ended, queue
 * wait, run time, wall, CPU, peak memory) and the benchmark's makespan as
 * the text of `sbctl status --spans` to out.  -1 with err when out cannot
 * be written. */
int sb_status_render_spans(const struct sb_status *st, FILE *out, struct sb_error *err);

#ifdef __cplusplus
}
#endif

#endif
