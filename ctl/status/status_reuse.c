/* Stage 5 of a status (status/status.c), the reused children: each reuse
 * record (bench/reuse_record.h) is checked again, its source's log and
 * results, and the child takes its class. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench_private.h"
#include "bench/index_private.h"
#include "bench/resulthash.h"
#include "status/status_stages.h"
#include "proto/benchdir.h"
#include "proto/filehash.h"
#include "proto/mpcheck.h"
#include "proto/util.h"
#include "sbench/context.h"

int sb_reuse_verify(const struct sb_reuse *r, const char *bench_name, struct sb_index *idx,
		    bool rehash, enum sb_class *cls, char **reason, struct sb_error *err)
{
	char *rec = NULL, *log = NULL, *why = NULL, head[SB_LOG_HEAD_TEXT_MAX], now[65];
	enum sb_log_tail tail = SB_LOG_TAIL_OK;
	struct stat st;
	int n = 0;

	*reason = NULL;
	*cls = SB_CLASS_SUCCEEDED;
	if (asprintf(&rec, "%s/%s", r->source_dir, SB_BENCH_RECORD) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (lstat(rec, &st) < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		free(rec);
		*cls = SB_CLASS_MISSING;
		n = asprintf(reason, "reused from child %" PRId64 " of '%s', which is gone: 'sbctl rerun %s "
			     "--only missing' runs it here", r->source_index, r->source_dir, bench_name);
		return n < 0 ? sb_error_set(err, SB_ERR_NOMEM, "out of memory") : 0;
	}
	free(rec);
	/* the source must still be the user's own benchmark directory: in a
	 * shared root (mode 1777) another user could remove it and make one
	 * of the same name, with results copied in and no log */
	{
		struct sb_error why_dir = { 0 };
		if (sb_bench_check_dir(r->source_dir, &why_dir) < 0) {
			*cls = SB_CLASS_INVALID;
			n = asprintf(reason, "reused from child %" PRId64 " of '%s', which is no longer "
				     "a benchmark directory of yours (%s): 'sbctl rerun %s --only invalid' "
				     "runs it here", r->source_index, r->source_dir, why_dir.msg, bench_name);
			return n < 0 ? sb_error_set(err, SB_ERR_NOMEM, "out of memory") : 0;
		}
	}
	/* the results, as status hashes its own */
	for (size_t i = 0; i < r->nresults; i++) {
		char *full;
		int got;
		if (asprintf(&full, "%s/runs/%" PRId64 "/%s", r->source_dir, r->source_index,
			     r->results[i].path) < 0)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		got = sb_result_hash(full, idx, rehash, now, err);
		free(full);
		if (got < 0)
			return -1; /* unreadable: no verdict */
		if (got == 1 || strcmp(now, r->results[i].sha256) != 0) {
			*cls = SB_CLASS_INVALID;
			n = got == 1 ? asprintf(reason, "reused result '%s' of child %" PRId64 " of '%s' is gone "
						"since its verified finish", r->results[i].path,
						r->source_index, r->source_dir)
				    : asprintf(reason, "reused result '%s' of child %" PRId64 " of '%s' changed "
					       "after its verified finish (sha256 %.12s, not %.12s)",
					       r->results[i].path, r->source_index, r->source_dir, now,
					       r->results[i].sha256);
			return n < 0 ? sb_error_set(err, SB_ERR_NOMEM, "out of memory") : 0;
		}
	}
	/* the source log, when it is still there: it verifies and ends where it
	 * did when it was reused */
	if (r->source_log == NULL)
		return 0;
	if (asprintf(&log, "%s/%s", r->source_dir, r->source_log) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (lstat(log, &st) < 0 && errno == ENOENT) {
		free(log);
		return 0;
	}
	if (sb_reuse_source_head(r->source_dir, r->source_digest, r->source_index, r->source_attempt,
			r->source_log, head, &tail, NULL, &why) < 0) {
		*cls = SB_CLASS_INVALID;
		n = asprintf(reason, "reused child %" PRId64 " of '%s': %s", r->source_index, r->source_dir,
			     why ? why : "its log cannot be checked");
	} else if (tail != SB_LOG_TAIL_OK || strcmp(head, r->source_head) != 0) {
		*cls = SB_CLASS_INVALID;
		n = asprintf(reason, "reused child %" PRId64 " of '%s': its log '%s' %s", r->source_index,
			     r->source_dir, r->source_log, tail != SB_LOG_TAIL_OK
			     ? sb_log_tail_describe(tail) : "no longer ends with the head recorded when it was reused");
	}
	free(why);
	free(log);
	return n < 0 ? sb_error_set(err, SB_ERR_NOMEM, "out of memory") : 0;
}

/* sb_status_apply_reuses with the index idx (may be NULL). */
static int reuse_children(struct sb_status_gather *g, struct sb_index *idx, struct sb_error *err)
{
	struct sb_status *st = g->st;

	for (size_t c = 0; c < st->n; c++) {
		struct sb_child_status *ch = &st->children[c];
		const struct sb_reuse *r = sb_subm_reuse_of(&g->subm, (int64_t)c);
		struct sb_attempt_status *a;
		struct sb_child_reused *from;
		enum sb_class cls;
		char *reason;

		/* sbctl records attempts as it numbers them: in 32 bits */
		if (ch->nattempts > 0 || r == NULL || r->source_attempt < 0 || r->source_attempt > INT32_MAX)
			continue;
		if (sb_reuse_verify(r, g->b->name, idx, g->o->rehash, &cls, &reason, err) < 0)
			return -1;
		if ((a = sb_arena_alloc(&st->strings, sizeof(*a))) == NULL ||
		    (from = sb_arena_alloc(&st->strings, sizeof(*from))) == NULL ||
		    (from->dir = sb_arena_strndup(&st->strings, r->source_dir,
						  strlen(r->source_dir))) == NULL) {
			free(reason);
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		}
		from->index = r->source_index;
		ch->attempts = a;
		ch->nattempts = 1;
		ch->latest = a;
		ch->reused = from;
		a->attempt = (int32_t)r->source_attempt;
		a->chunk = a->task = -1;
		if (r->source_job && r->source_job[0] &&
		    (a->job_id = sb_arena_strndup(&st->strings, r->source_job, strlen(r->source_job))) == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		a->log.has_finish = true; /* the verified finish the record carries */
		a->log.exit_code = r->exit_code;
		a->verdict.cls = cls;
		a->verdict.reason = sb_intern(&st->texts, reason ? reason : "");
		free(reason);
		if (a->verdict.reason == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		if (cls == SB_CLASS_SUCCEEDED && r->nmetrics) {
			a->metrics = sb_arena_alloc(&st->strings, r->nmetrics * sizeof(*a->metrics));
			if (a->metrics == NULL)
				return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			for (size_t m = 0; m < r->nmetrics; m++, a->nmetrics++) {
				a->metrics[m] = r->metrics[m];
				if ((a->metrics[m].name = (char *)sb_intern(&st->texts, r->metrics[m].name)) == NULL)
					return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			}
		}
		st->counts[ch->cls]--;
		ch->cls = cls;
		ch->reason = a->verdict.reason;
		st->counts[ch->cls]++;
	}
	return 0;
}

/* Stage 5, reuse: a child with no run of its own in this benchmark and a
 * reuse record has the class of that record checked again (bench/reuse_record.h):
 * succeeded with the source's run as its latest attempt, or invalid, or
 * missing when the source is gone. */
int sb_status_apply_reuses(struct sb_status_gather *g, struct sb_error *err)
{
	const char *path = g->o->ctx ? sb_ctx_index(g->o->ctx) : NULL;
	struct sb_index *idx = NULL;
	int rc = 0;

	if (g->subm.nreuses == 0)
		return 0;
	/* the cached result hashes, as for the benchmark's own results */
	if (path && (idx = sb_index_open(path, NULL, NULL)) != NULL && sb_index_begin(idx, NULL) < 0) {
		sb_index_close(idx);
		idx = NULL;
	}
	rc = reuse_children(g, idx, err);
	sb_index_commit(idx, NULL);
	sb_index_close(idx);
	return rc;
}
