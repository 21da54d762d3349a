/* A submit result's lifetime and its accessors (include/sbench/submit.h). */
#include <stdlib.h>
#include <string.h>

#include "bench/bench_private.h"
#include "submit/submit_result.h"

void sb_submit_result_release(struct sb_submit_result *res)
{
	size_t i;

	if (res == NULL)
		return;
	for (i = 0; i < res->njobs; i++)
		free(res->jobs[i].children);
	free(res->jobs);
	sb_subm_dups_release(res->dups, res->ndups);
	sb_setting_diffs_release(&res->diffs);
	free(res->dir);
	free(res->name);
	free(res->classes);
	sb_bench_destroy(res->dry_bench);
	sb_chunks_release(&res->dry_chunks);
	free(res->dry_agent);
	free(res->smoke.reason);
	free(res->smoke.stderr_tail);
	free(res->smoke.spec);
	memset(res, 0, sizeof(*res));
}

void sb_submit_result_destroy(struct sb_submit_result *res)
{
	sb_submit_result_release(res);
	free(res);
}

/* ---- accessors -------------------------------------------------------- */

const char *sb_submit_result_name(const struct sb_submit_result *res)
{
	return res->name;
}

const char *sb_submit_result_digest(const struct sb_submit_result *res)
{
	return res->digest;
}

const char *sb_submit_result_dir(const struct sb_submit_result *res)
{
	return res->dir;
}

bool sb_submit_result_dry_run(const struct sb_submit_result *res)
{
	return res->dry_run;
}

bool sb_submit_result_already_submitted(const struct sb_submit_result *res)
{
	return res->already_submitted;
}

bool sb_submit_result_waited(const struct sb_submit_result *res)
{
	return res->waited;
}

bool sb_submit_result_resumed(const struct sb_submit_result *res)
{
	return res->resumed;
}

bool sb_submit_result_resumable(const struct sb_submit_result *res)
{
	return res->resumable;
}

int sb_submit_result_interrupted(const struct sb_submit_result *res)
{
	return res->interrupted;
}

size_t sb_submit_result_chunk_count(const struct sb_submit_result *res)
{
	return res->nchunks;
}

size_t sb_submit_result_job_count(const struct sb_submit_result *res)
{
	return res->njobs;
}

const char *sb_submit_result_job_id(const struct sb_submit_result *res, size_t i)
{
	return res->jobs[i].job_id;
}

const char *sb_submit_result_job_array(const struct sb_submit_result *res, size_t i)
{
	return res->jobs[i].array;
}

int64_t sb_submit_result_job_attempt(const struct sb_submit_result *res, size_t i)
{
	return res->jobs[i].attempt;
}

int64_t sb_submit_result_job_chunk(const struct sb_submit_result *res, size_t i)
{
	return res->jobs[i].chunk;
}

const size_t *sb_submit_result_job_children(const struct sb_submit_result *res, size_t i,
					    size_t *n)
{
	if (n)
		*n = res->jobs[i].n;
	return res->jobs[i].children;
}

bool sb_submit_result_job_submitted_now(const struct sb_submit_result *res, size_t i)
{
	return res->jobs[i].submitted_now;
}

bool sb_submit_result_job_recovered(const struct sb_submit_result *res, size_t i)
{
	return res->jobs[i].recovered;
}

size_t sb_submit_result_duplicate_count(const struct sb_submit_result *res)
{
	return res->ndups;
}

int64_t sb_submit_result_duplicate_attempt(const struct sb_submit_result *res, size_t d)
{
	return res->dups[d].attempt;
}

int64_t sb_submit_result_duplicate_chunk(const struct sb_submit_result *res, size_t d)
{
	return res->dups[d].chunk;
}

size_t sb_submit_result_duplicate_job_count(const struct sb_submit_result *res, size_t d)
{
	return res->dups[d].n;
}

const char *sb_submit_result_duplicate_job_id(const struct sb_submit_result *res, size_t d,
					      size_t k)
{
	return res->dups[d].job_ids[k];
}

size_t sb_submit_result_difference_count(const struct sb_submit_result *res)
{
	return res->diffs.n;
}

const char *sb_submit_result_difference_key(const struct sb_submit_result *res, size_t d)
{
	return d < res->diffs.n ? res->diffs.v[d].key : NULL;
}

const char *sb_submit_result_difference_stored(const struct sb_submit_result *res, size_t d)
{
	return d < res->diffs.n ? res->diffs.v[d].stored : NULL;
}

const char *sb_submit_result_difference_spec(const struct sb_submit_result *res, size_t d)
{
	return d < res->diffs.n ? res->diffs.v[d].spec : NULL;
}

const char *sb_submit_result_difference_advice(const struct sb_submit_result *res, size_t d)
{
	return d < res->diffs.n ? res->diffs.v[d].advice : NULL;
}

bool sb_submit_result_settings_taken(const struct sb_submit_result *res)
{
	return res->settings_taken;
}

size_t sb_submit_result_reused(const struct sb_submit_result *res)
{
	return res->reused;
}

/* ---- the smoke test --------------------------------------------------- */

enum sb_submit_smoke sb_submit_result_smoke(const struct sb_submit_result *res)
{
	return res->smoke.outcome;
}

const char *sb_submit_smoke_name(enum sb_submit_smoke s)
{
	static const char *const names[] = { "none", "passed", "failed", "timeout", "skipped" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

int64_t sb_submit_result_smoke_child(const struct sb_submit_result *res)
{
	return res->smoke.outcome == SB_SUBMIT_SMOKE_NONE ? -1 : res->smoke.child;
}

const char *sb_submit_result_smoke_class(const struct sb_submit_result *res)
{
	return res->smoke.cls;
}

const char *sb_submit_result_smoke_reason(const struct sb_submit_result *res)
{
	return res->smoke.reason;
}

const char *sb_submit_result_smoke_stderr_tail(const struct sb_submit_result *res)
{
	return res->smoke.stderr_tail;
}

double sb_submit_result_smoke_waited(const struct sb_submit_result *res)
{
	return res->smoke.waited_s;
}

size_t sb_submit_result_smoke_held(const struct sb_submit_result *res)
{
	return res->smoke.held;
}
