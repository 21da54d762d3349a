/* Checkpoints in sbagent (docs/spec.md "Checkpoints and requeue"): the
 * digest of the checkpoint files a run starts from and ends with, what the
 * start and finish records say of them, and the job's own requeue after the
 * pre-timeout signal.  The section comes from the task map
 * (proto/checkpoint.h). */
#ifndef SB_AGENT_CHECKPOINT_H
#define SB_AGENT_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/checkpoint.h"

/* The checkpoint files as found at one moment. */
struct sb_agent_ckpt {
	bool have;            /* at least one file exists and all could be read */
	char digest[65];      /* with have: SHA-256 of "<sha256|->  <path>\n" per
	                         file, in the declared order, hex */
	char error[256];      /* non-empty: a file could not be read (the digest
	                         then proves nothing) */
};

/* Hashes the files of c (relative to the working directory) into out. */
void sb_agent_checkpoint_hash(const struct sb_checkpoint_cfg *c, struct sb_agent_ckpt *out);

/* Why a run ended early, as its finish says (key interrupted). */
struct sb_agent_interrupt {
	const char *by;       /* "requeue_signal" (the pre-timeout signal came
	                         while the command ran) or "termination" (TERM,
	                         INT, HUP or QUIT: preemption, scancel, the time
	                         limit itself); NULL: not interrupted */
	const char *signal;   /* the signal's name */
	bool requeue;         /* sbagent requeues the job after the finish */
	const char *why_not;  /* when not: "max_restarts", "not_requested",
	                         "not_a_slurm_job", "scheduler" */
	int64_t restart;      /* the run's restart count */
	int64_t max_restarts;
};

/* Requeues the job job_id: `scontrol requeue JOB_ID` (first on PATH),
 * bounded by timeout_s; its output goes to our stderr.  0 when it exited 0,
 * else -1 with what happened in msg. */
int sb_agent_requeue(const char *job_id, double timeout_s, char *msg, size_t size);

#endif
