/* The public operations rerun and cancel (include/sbench/submit.h): they
 * find the benchmark, choose what to act on, and leave the submitting to
 * submit/submit.c. */
#include <stdlib.h>
#include <string.h>

#include "status/classify.h"
#include "plan/settings.h"
#include "status/status_private.h"
#include "submit/submit_private.h"
#include "proto/util.h"
#include "sbench/context.h"
#include "sbench/submit.h"

/* Sets want[k] for each class named in classes ("failed,killed"); -1 with
 * SB_ERR_INPUT for a name that is no class or a class that cannot be
 * rerun, or a list that names none. */
static int parse_classes(const char *classes, bool want[SB_CLASS_COUNT], struct sb_error *err)
{
	unsigned mask;
	int k;

	if (sb_class_mask_parse(classes ? classes : "", &mask, err) < 0) /* names a did-you-mean */
		return -1;
	for (k = 0; k < SB_CLASS_COUNT; k++) {
		want[k] = mask & (1u << k);
		if (want[k] && (k == SB_CLASS_SUCCEEDED || k == SB_CLASS_RUNNING || k == SB_CLASS_PENDING))
			return sb_error_set(err, SB_ERR_INPUT, "'%s' cannot be rerun (only children that are "
					    "over and did not succeed can)", sb_class_name((enum sb_class)k));
	}
	return 0;
}

/* *res = r when it says anything (the benchmark is known), else frees it. */
static void hand_over(struct sb_submit_result *r, int rc, struct sb_submit_result **res)
{
	if (rc == 0 || r->dir)
		*res = r;
	else
		sb_submit_result_destroy(r);
}

int sb_rerun(const struct sb_ctx *ctx, const char *bench, const char *classes,
	     const struct sb_rerun_opts *opts, struct sb_submit_result **res,
	     struct sb_error *err)
{
	double settle = ctx ? sb_ctx_settle(ctx) : SB_CTX_SETTLE_DEFAULT;
	struct sb_status_cfg so = { .ctx = ctx, .settle_s = (int64_t)settle, .record_outcomes = true };
	bool want[SB_CLASS_COUNT];
	struct sb_attempt_settings check = { 0 };
	struct sb_submit_result *r = NULL;
	struct sb_status st;
	struct sb_bench *b;
	size_t *children = NULL, n = 0, c;
	int rc;

	*res = NULL;
	if (parse_classes(classes, want, err) < 0)
		return -1;
	if (opts && opts->time) {
		/* a time limit that is no text for sbatch is a usage error before
		 * anything runs; its syntax is the scheduler's to check */
		rc = sb_settings_set_time(&check, opts->time, err);
		sb_settings_release(&check);
		if (rc < 0)
			return sb_error_prefix(err, "--time");
	}
	rc = sb_status_run(bench, &so, &st, err);
	if (rc < 0) {
		if (rc == -2)
			sb_error_recode(err, SB_ERR_INPUT); /* BENCH names no usable benchmark */
		sb_status_release(&st);
		return -1;
	}
	children = malloc((st.n ? st.n : 1) * sizeof(*children));
	r = calloc(1, sizeof(*r));
	if (children == NULL || r == NULL) {
		free(children);
		free(r);
		sb_status_release(&st);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	for (c = 0; c < st.n; c++)
		if (want[st.children[c].cls])
			children[n++] = c;
	/* never a second copy of a child whose job is still in the queue */
	if (sb_rerun_guard(ctx, &st, children, n, opts && opts->cancel_running,
			   opts && opts->dry_run, err) < 0) {
		free(children);
		free(r);
		sb_status_release(&st);
		return -1;
	}
	/* the children chosen, the status goes before the submit reads the
	 * records again: never both of them per child at once */
	b = st.bench; /* sb_status_run made st own it */
	st.owns_bench = false;
	sb_status_release(&st);
	rc = sb_submit_rerun_children(ctx, b, children, n, opts, r, err);
	r->kind = SB_SUBMIT_KIND_RERUN;
	if (r->dir && (r->classes = strdup(classes)) == NULL)
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (rc == 0 && r->dry_run) {
		r->dry_bench = b; /* planned: the dry run's rendering needs it */
		b = NULL;
	}
	free(children);
	sb_bench_destroy(b);
	hand_over(r, rc, res);
	return rc;
}

int sb_cancel(const struct sb_ctx *ctx, const char *bench, struct sb_submit_result **res,
	      struct sb_error *err)
{
	struct sb_submit_result *r;
	struct sb_bench *b;
	int rc;

	*res = NULL;
	b = sb_bench_find(ctx, bench, err);
	if (b == NULL) {
		sb_error_recode(err, SB_ERR_INPUT); /* a refused or unreadable benchmark */
		return -1;
	}
	if ((r = calloc(1, sizeof(*r))) == NULL) {
		sb_bench_destroy(b);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	rc = sb_submit_cancel_jobs(b, r, err);
	r->kind = SB_SUBMIT_KIND_CANCEL;
	sb_bench_destroy(b);
	hand_over(r, rc, res);
	return rc;
}
