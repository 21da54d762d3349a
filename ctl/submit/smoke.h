/* A submit's smoke test (docs/sbctl-submit.md, "SMOKE TEST"): once the
 * job array of the smoke child alone is submitted, wait for that child
 * through its status, and judge it. */
#ifndef SB_CTL_SMOKE_H
#define SB_CTL_SMOKE_H

#include <stddef.h>

#include "submit/submit_result.h"
#include "sbench/context.h"
#include "sbench/error.h"

/* Watches child of the benchmark in dir (sb_check_watch: polls 1 s apart,
 * then further apart, up to 10 s) until it has ended or seconds have
 * passed, and fills s: the
 * outcome (passed: the child succeeded; failed: it ended otherwise;
 * timeout: it had not ended), its class and reason, and for any outcome
 * but passed the tail of its Slurm stderr.  -1 with err when no status
 * could be computed at all (SB_ERR_SCHEDULER...) or the context's stop
 * callback asked to stop (SB_ERR_INTERRUPTED); s then has no outcome. */
int sb_smoke_wait(const struct sb_ctx *ctx, const char *dir, size_t child, double seconds,
		  struct sb_submit_smoke_state *s, struct sb_error *err);

#endif
