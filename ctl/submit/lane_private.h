/* The training lane (docs/lane.md): `sbctl submit --lane NAME
 * [--max-active K] [--check[=SECONDS]]`.  A lane is a name under the root:
 * ROOT/.sbench-lanes/NAME.lock serialises the submits of the lane and
 * ROOT/.sbench-lanes/NAME.list remembers its benchmarks (digest, dir,
 * name); its jobs are named "NAME.sb-<digest[:12]>-a<attempt>-c<chunk>", so
 * one squeue call tells which benchmarks of the lane still have a pending or
 * running job. */
#ifndef SB_CTL_LANE_H
#define SB_CTL_LANE_H

#include <stdbool.h>
#include <stddef.h>

#include "spec/spec_private.h"
#include "submit/check.h"
#include "sbench/lane.h"
#include "sbench/submit.h"

#define SB_LANE_DIR ".sbench-lanes"

/* A benchmark of the lane with jobs still in the queue. */
struct sb_lane_active {
	char digest12[13];
	char *dir;                /* from the lane's list; NULL when not in it */
	char *name;
	char **job_ids;           /* the array job ids squeue shows */
	size_t njobs;
};

struct sb_lane_result {
	char *lane;               /* NULL: no lane */
	int64_t max_active;
	bool busy;                /* nothing was submitted */
	struct sb_lane_active *active;
	size_t nactive;
	char *spec_name;          /* of the spec, for a busy result */
	char spec_digest[65];
	struct sb_submit_result *submit; /* NULL when busy */
	bool checked;
	struct sb_check check;
};

#endif
