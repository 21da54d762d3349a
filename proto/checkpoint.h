/* Checkpoints (docs/spec.md "Checkpoints and requeue"), the part the spec
 * loader, sbctl and sbagent share: the limits and keys of the spec's
 * `checkpoint` section (the same words in the task map), the signals it may
 * name, the causes a run may be requeued for, and the section as sbagent
 * holds it, read from the task map.  The spec loader checks the YAML and
 * writes the canonical map (ctl/spec/spec_checkpoint.c); sbagent hashes the
 * files and requeues (agent/checkpoint.c); status checks the chain of
 * restarts (ctl/status/status_chain.c). */
#ifndef SB_PROTO_CHECKPOINT_H
#define SB_PROTO_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "sbench/error.h"

#define SB_CKPT_MAX_FILES 64
#define SB_CKPT_MAX_PATH 1024          /* bytes of one file's path */
#define SB_CKPT_MAX_BEFORE 65535       /* seconds: Slurm's limit of --signal's @TIME */
#define SB_CKPT_DEFAULT_BEFORE 90
#define SB_CKPT_MAX_RESTARTS 1000
#define SB_CKPT_DEFAULT_RESTARTS 3
#define SB_CKPT_DEFAULT_SIGNAL "USR1"
#define SB_CKPT_SIGNAL_MAX 8           /* room for a signal's name */

/* The section's keys, sorted (its canonical map's order). */
#define SB_CK_BEFORE "before"
#define SB_CK_FILES "files"
#define SB_CK_MAX_RESTARTS "max_restarts"
#define SB_CK_REQUEUE_ON "requeue_on"
#define SB_CK_SIGNAL "signal"

/* What a run may be requeued for: bits of requeue_on. */
enum sb_requeue_cause {
	SB_REQUEUE_TIMEOUT = 1u << 0,   /* the pre-timeout signal: sbagent requeues */
	SB_REQUEUE_PREEMPT = 1u << 1,   /* Slurm requeues a preempted job */
	SB_REQUEUE_NODE_FAIL = 1u << 2, /* Slurm requeues after a node failure */
};
#define SB_REQUEUE_DEFAULT (SB_REQUEUE_TIMEOUT | SB_REQUEUE_PREEMPT)
#define SB_REQUEUE_NCAUSES 3

/* The name of cause k (0..SB_REQUEUE_NCAUSES-1) in the canonical order
 * ("node_fail", "preempt", "timeout"), and its bit. */
const char *sb_requeue_cause_name(size_t k);
unsigned sb_requeue_cause_bit(size_t k);

/* The signal number of a name a spec may give (USR1, USR2, TERM, INT,
 * HUP, QUIT, with or without "SIG"), 0 when it is none of them.  *canon
 * (may be NULL) gets the name without "SIG". */
int sb_checkpoint_signal(const char *name, const char **canon);

/* The section as sbagent holds it. */
struct sb_checkpoint_cfg {
	bool present;
	char **files;            /* nfiles paths relative to the run directory */
	size_t nfiles;
	int signal;              /* the signal's number */
	char signal_name[SB_CKPT_SIGNAL_MAX]; /* "USR1" */
	int64_t before;
	unsigned requeue_on;     /* SB_REQUEUE_* bits */
	int64_t max_restarts;
};

/* Reads the task map's checkpoint (o may be NULL or nil: none) into c,
 * copying the paths.  -1 with a message when it is not the map the spec
 * loader writes. */
int sb_checkpoint_decode(struct sb_checkpoint_cfg *c, const msgpack_object *o, struct sb_error *err);

void sb_checkpoint_release(struct sb_checkpoint_cfg *c);

#endif
