/* The spec key checkpoint (docs/spec.md "Checkpoints and requeue"): the
 * files a run writes when the scheduler's pre-timeout signal comes and
 * resumes from after a requeue, the signal, how long before the time limit
 * it comes, what the run is requeued for and how often.  Loaded by
 * ctl/spec/spec_schema.c; its canonical msgpack goes into the child digest
 * (only when declared) and into the task map sbagent reads. */
#ifndef SB_CTL_SPEC_CHECKPOINT_H
#define SB_CTL_SPEC_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

/* the limits, keys and causes, shared with sbagent */
#include "proto/checkpoint.h"

struct sb_spec_checkpoint {
	const char **files;      /* relative to the run directory */
	size_t nfiles;
	const char *signal;      /* "USR1": the name without "SIG" */
	int64_t before;          /* seconds before the time limit */
	unsigned requeue_on;     /* SB_REQUEUE_* bits */
	int64_t max_restarts;
	int line, col;
};

struct sb_spec;
struct sb_canon;

/* The section, NULL when the spec has none. */
const struct sb_spec_checkpoint *sb_spec_checkpoint(const struct sb_spec *spec);

/* The section as canonical msgpack: a map, keys sorted (before, files,
 * max_restarts, requeue_on in the order node_fail, preempt, timeout,
 * signal). */
void sb_checkpoint_canon(struct sb_canon *c, const struct sb_spec_checkpoint *ck);

/* sbatch's --signal value for it, "B:USR1@90", into buf. */
void sb_checkpoint_sbatch_signal(const struct sb_spec_checkpoint *ck, char *buf, size_t size);

#endif
