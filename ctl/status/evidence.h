/* The evidence a verdict rests on, as JSON and back (docs/sbctl-export.md,
 * "classify"): for a child's latest run, what its verified log and the
 * scheduler said, as the classifier (status/classify.h) took them, and the
 * parameters it was given.  A bundle carries them, so that sbctl verify
 * applies the same rules to the same evidence and finds the same class.
 * This file is the one owner of that format. */
#ifndef SB_CTL_EVIDENCE_H
#define SB_CTL_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/jsonread.h"
#include "status/classify.h"

struct sb_json;
struct sb_status;

/* The parameters of st's verdicts: {"now_ns", "asked_ns", "heartbeat_s",
 * "settle_s", "storage_lag_s", "made_ns", "requeue_on", "kill_wait_s",
 * "submitting"}. */
void sb_evidence_json_params(struct sb_json *j, const struct sb_status *st);

/* Child c's evidence: {"run": false} when it has no run in any attempt,
 * else {"run": true, "override": null | "reused" | "chain", "log": {...},
 * "sched": {...}} of its latest run, as classified. */
void sb_evidence_json_child(struct sb_json *j, const struct sb_status *st, size_t c);

/* One child's evidence, read back. */
struct sb_evidence_child {
	bool run;
	/* the class was not given by the rules to this run's evidence: the
	 * run was reused from another benchmark ("reused"), or its checkpoint
	 * chain made it invalid ("chain"); NULL otherwise */
	const char *override;
	struct sb_log_evidence log;
	struct sb_sched_evidence sched; /* its texts point into the JSON read */
};

/* Reads the parameters (p and *submitting).  -1 with what is wrong in why. */
int sb_evidence_read_params(const struct sb_jv *o, struct sb_classify_params *p, bool *submitting,
			    char *why, size_t n);

/* Reads a child's evidence into out (release it with
 * sb_evidence_child_release; it borrows o's strings).  -1 with what is
 * wrong in why (out released). */
int sb_evidence_read_child(const struct sb_jv *o, struct sb_evidence_child *out, char *why, size_t n);

void sb_evidence_child_release(struct sb_evidence_child *c);

/* The verdict the rules give for c's evidence with p (out to release with
 * sb_verdict_release); c->override is the caller's to judge. */
void sb_evidence_classify(const struct sb_evidence_child *c, const struct sb_classify_params *p,
			  bool submitting, struct sb_verdict *out);

#endif
