/* Finding, when a benchmark is created, the children proven in earlier
 * benchmarks (submit/reuse.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/index_private.h"
#include "bench/resulthash.h"
#include "status/status_private.h"
#include "submit/reuse.h"
#include "proto/benchdir.h"
#include "proto/filehash.h"
#include "proto/mpcheck.h"
#include "plan/plan_inputs.h"
#include "proto/util.h"
#include "sbench/context.h"
#include "sbench/plan.h"
#include "proto/recordkeys.h"


struct digest_index {
	char digest[65];
	size_t index;
};

static int by_digest(const void *a, const void *b)
{
	return strcmp(((const struct digest_index *)a)->digest, ((const struct digest_index *)b)->digest);
}

struct candidates {
	const char *name, *self;
	char **dirs;
	size_t n;
	bool failed;
};

static int collect(const struct sb_index_bench *ib, void *arg)
{
	struct candidates *c = arg;
	char **v;

	if (strcmp(ib->name, c->name) != 0 || strcmp(ib->digest, c->self) == 0)
		return 0;
	if ((v = realloc(c->dirs, (c->n + 1) * sizeof(*v))) == NULL ||
	    (v[c->n] = strdup(ib->dir)) == NULL) {
		if (v)
			c->dirs = v;
		c->failed = true;
		return 1;
	}
	c->dirs = v;
	c->n++;
	return 0;
}

/* The record of reusing child c of the source st for child `to`. */
static int make_record(const struct sb_status *st, size_t c, size_t to, struct sb_reuse *r,
		       char **why)
{
	const struct sb_attempt_status *a = st->children[c].latest;
	struct sb_log_result *log = NULL;
	char rel[SB_LOG_REL_MAX];
	enum sb_log_tail tail;
	size_t i, k;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->child = (int64_t)to;
	r->source_index = (int64_t)c;
	r->source_attempt = a->attempt;
	memcpy(r->source_digest, st->bench->digest, 65);
	if ((r->source_dir = strdup(st->bench->dir)) == NULL ||
	    (r->source_log = strdup(sb_status_log_rel(a, c, rel))) == NULL ||
	    (a->job_id && (r->source_job = strdup(a->job_id)) == NULL))
		goto out;
	if (sb_reuse_source_head(st->bench->dir, st->bench->digest, (int64_t)c, a->attempt, r->source_log,
			r->source_head, &tail, &log, why) < 0)
		goto out;
	for (i = 0; i < sb_log_result_verified(log); i++) {
		const struct sb_log_record *rec = sb_log_result_record(log, i);
		if (strcmp(rec->type, SB_RT_FINISH) != 0)
			continue;
		if (sb_reuse_take_results(r, &rec->payload) < 0)
			goto out;
		break;
	}
	if (a->nmetrics && (r->metrics = calloc(a->nmetrics, sizeof(*r->metrics))) == NULL)
		goto out;
	for (k = 0; k < a->nmetrics; k++, r->nmetrics++) {
		r->metrics[k] = a->metrics[k];
		if ((r->metrics[k].name = strdup(a->metrics[k].name)) == NULL)
			goto out;
	}
	rc = tail == SB_LOG_TAIL_OK ? 0 : -1;
out:
	sb_log_result_destroy(log);
	if (rc < 0)
		sb_reuse_release(r);
	return rc;
}

/* The children of the source at dir whose digests are in want[0..nwant)
 * and not taken yet, added to out. */
static int from_source(const struct sb_ctx *ctx, const char *dir, const struct sb_bench *b,
		       bool check_tag, bool dry_run, struct digest_index *want, size_t nwant,
		       bool *taken, struct sb_reuses *out, struct sb_error *err)
{
	struct sb_status_cfg so = { .ctx = ctx, .settle_s = (int64_t)(ctx ? sb_ctx_settle(ctx)
								       : SB_CTX_SETTLE_DEFAULT),
				    .record_outcomes = !dry_run };
	struct sb_child *child = sb_child_create();
	struct sb_error why = { 0 };
	struct sb_status st = { 0 };
	struct sb_bench *src;
	int rc = 0;

	if (child == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	src = sb_bench_open(dir, &why);
	if (src && check_tag && !(src->tag == b->tag || (src->tag && b->tag && !strcmp(src->tag, b->tag))))
		goto out; /* another tag measures again */
	if (src == NULL || sb_bench_plan(src, &why) < 0 || sb_status_gather(src, &so, &st, &why) < 0) {
		sb_ctx_warn(ctx, "warning: nothing reused from '%s': %s", dir, why.msg);
		goto out;
	}
	for (size_t c = 0; rc == 0 && c < st.n; c++) {
		const struct sb_child_status *ch = &st.children[c];
		struct digest_index key, *hit;
		struct sb_reuse r, *v;
		char *reason = NULL;

		if (ch->cls != SB_CLASS_SUCCEEDED || ch->latest == NULL || !ch->latest->log.present ||
		    ch->reused != NULL || sb_plan_child(src->plan, c, child, NULL) < 0)
			continue;
		memcpy(key.digest, sb_child_digest_hex(child), 65);
		hit = bsearch(&key, want, nwant, sizeof(*want), by_digest);
		if (hit == NULL || taken[hit->index])
			continue;
		if (make_record(&st, c, hit->index, &r, &reason) < 0) {
			free(reason);
			continue; /* its evidence did not hold: it runs again */
		}
		if ((v = realloc(out->v, (out->n + 1) * sizeof(*v))) == NULL) {
			sb_reuse_release(&r);
			rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			break;
		}
		out->v = v;
		out->v[out->n++] = r;
		taken[hit->index] = true;
	}
out:
	st.owns_bench = false;
	sb_status_release(&st);
	sb_bench_destroy(src);
	sb_child_destroy(child);
	return rc;
}

static int by_child(const void *a, const void *b)
{
	int64_t x = ((const struct sb_reuse *)a)->child, y = ((const struct sb_reuse *)b)->child;

	return (x > y) - (x < y);
}

int sb_reuse_find(const struct sb_ctx *ctx, const struct sb_bench *b, const char *from,
		  bool dry_run, struct sb_reuses *out, struct sb_error *err)
{
	struct candidates cands = { .name = b->name, .self = b->digest };
	struct sb_child *child = sb_child_create();
	struct digest_index *want = malloc((b->children ? b->children : 1) * sizeof(*want));
	bool *taken = calloc(b->children ? b->children : 1, sizeof(*taken));
	struct sb_index *idx = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (child == NULL || want == NULL || taken == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < b->children; i++) {
		if (sb_plan_child(b->plan, i, child, err) < 0)
			goto done;
		memcpy(want[i].digest, sb_child_digest_hex(child), 65);
		want[i].index = i;
	}
	qsort(want, b->children, sizeof(*want), by_digest);
	if (from) {
		struct sb_bench *src = sb_bench_find(ctx, from, err);
		if (src == NULL) {
			sb_error_prefix(err, "--reuse-from");
			goto done;
		}
		if (strcmp(src->digest, b->digest) != 0)
			rc = from_source(ctx, src->dir, b, false, dry_run, want, b->children, taken, out, err);
		else
			rc = 0;
		sb_bench_destroy(src);
		goto done;
	}
	/* the benchmarks of that name the index knows, newest first */
	if (ctx && sb_ctx_index(ctx) && (idx = sb_index_open(sb_ctx_index(ctx), NULL, NULL)) != NULL) {
		sb_index_each_bench(idx, collect, &cands, NULL);
		sb_index_close(idx);
	}
	if (cands.failed) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto done;
	}
	rc = 0;
	for (size_t i = cands.n; rc == 0 && i-- > 0;)
		rc = from_source(ctx, cands.dirs[i], b, true, dry_run, want, b->children, taken, out,
				 err);
done:
	if (rc == 0 && out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), by_child);
	if (rc < 0)
		sb_reuses_release(out);
	for (size_t i = 0; i < cands.n; i++)
		free(cands.dirs[i]);
	free(cands.dirs);
	free(want);
	free(taken);
	sb_child_destroy(child);
	return rc;
}

struct code_diff {
	char first[SB_ERROR_MAX / 2];
};

static int first_diff(void *arg, const char *rel, const uint8_t *there, const uint8_t *here)
{
	struct code_diff *d = arg;
	char a[65], b[65];

	if (d->first[0])
		return 0;
	if (there)
		sb_hex_encode(there, 32, a);
	if (here)
		sb_hex_encode(here, 32, b);
	if (there && here)
		snprintf(d->first, sizeof(d->first), "'%.300s' differs (sha256 %.12s there, %.12s here)",
			 rel, a, b);
	else
		snprintf(d->first, sizeof(d->first), "'%.300s' is an input %s only", rel,
			 there ? "there" : "here");
	return 0;
}

int sb_reuse_check_code(const struct sb_ctx *ctx, const char *from, const struct sb_plan *plan,
			struct sb_error *err)
{
	struct sb_bench *src = sb_bench_find(ctx, from, err);
	struct sb_inputs *none = sb_inputs_create(NULL);
	const struct sb_inputs *here = sb_plan_inputs(plan);
	struct code_diff d = { { 0 } };
	int n, rc = 0;

	if (src == NULL || none == NULL) {
		sb_inputs_destroy(none);
		if (src == NULL)
			return sb_error_prefix(err, "--reuse-from");
		sb_bench_destroy(src);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	n = sb_inputs_compare(src->inputs ? src->inputs : none, here ? here : none, first_diff, &d);
	if (n > 0)
		rc = sb_error_set(err, SB_ERR_INPUT, "--reuse-from %s: its children ran other code "
				  "than this spec's: %s (%d input%s differ%s); a child's digest covers "
				  "its code, so none could be reused (submit without --reuse-from, or "
				  "with the code %.12s ran)", from, d.first, n, n > 1 ? "s" : "",
				  n > 1 ? "" : "s", src->digest);
	sb_bench_destroy(src);
	sb_inputs_destroy(none);
	return rc;
}

struct sb_bench *sb_reuse_previous(const struct sb_ctx *ctx, const struct sb_bench *b)
{
	struct candidates cands = { .name = b->name, .self = b->digest };
	struct sb_bench *prev = NULL;
	struct sb_index *idx;

	if (ctx && sb_ctx_index(ctx) && (idx = sb_index_open(sb_ctx_index(ctx), NULL, NULL)) != NULL) {
		sb_index_each_bench(idx, collect, &cands, NULL);
		sb_index_close(idx);
	}
	if (!cands.failed && cands.n > 0)
		prev = sb_bench_open(cands.dirs[cands.n - 1], NULL);
	for (size_t i = 0; i < cands.n; i++)
		free(cands.dirs[i]);
	free(cands.dirs);
	return prev;
}
