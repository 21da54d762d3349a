/* The jobs of an attempt (docs/benchmark-dir.md "Attempts, chunks and
 * jobs"): chunks of at most MaxArraySize children, each with a task -> child
 * map, a batch script, a Slurm output directory and an sbatch command line. */
#ifndef SB_CTL_JOBS_H
#define SB_CTL_JOBS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench_private.h"
#include "plan/settings.h"
#include "sbench/error.h"

struct sb_chunk {
	int64_t attempt;
	size_t index;           /* chunk number within the attempt */
	size_t *children;       /* child index of each task id */
	size_t n;
	char name[96];          /* the job name: [<lane>.]sb-<digest[:12]>-a<attempt>-c<k> */
	char array[64];         /* the --array value, e.g. "0-11%4" */
	char script[PATH_MAX];
	char map[PATH_MAX];
};

struct sb_chunks {
	struct sb_chunk *v;
	size_t n;
	struct sb_attempt_settings set;  /* the attempt's sbatch settings (owned) */
};

/* Splits children (child indices, in order) into chunks of at most
 * b->max_array_size, with the attempt's settings set (NULL: those of
 * b->spec), copied into out->set. */
int sb_jobs_layout(const struct sb_bench *b, int64_t attempt, const size_t *children,
		   size_t n, const struct sb_attempt_settings *set, struct sb_chunks *out,
		   struct sb_error *err);

/* The same with chunk 0 holding the first first_n children only (a
 * submit's smoke test: child 0 alone, docs/sbctl-submit.md), and every
 * later chunk up to b->max_array_size; first_n 0 or above that size: that
 * size. */
int sb_jobs_layout_first(const struct sb_bench *b, int64_t attempt, const size_t *children,
			 size_t n, size_t first_n, const struct sb_attempt_settings *set,
			 struct sb_chunks *out, struct sb_error *err);

void sb_chunks_release(struct sb_chunks *c);

enum sb_jobs_found {
	SB_JOBS_NONE,        /* no jobs/a<N> */
	SB_JOBS_PREPARED,    /* its chunks, read back from its task maps */
	SB_JOBS_UNPREPARED,  /* jobs/a<N> without any task map: a preparation
			      * cut short by an sbctl that wrote the files in
			      * place (before sb_jobs_write prepared attempts
			      * whole); no sbatch can have run from it */
};

/* Reads back the chunks of an attempt from its task maps (chunk 0 as large
 * as its map, the others as sb_jobs_layout_first lays them out); *found
 * says what there was (out is empty unless SB_JOBS_PREPARED). */
int sb_jobs_read_attempt(const struct sb_bench *b, int64_t attempt,
			 const struct sb_attempt_settings *set,
			 struct sb_chunks *out, enum sb_jobs_found *found, struct sb_error *err);

/* The child indices of the task map at path, in task order (*children
 * malloc'd, *n > 0). */
int sb_jobs_map_children(const char *path, size_t **children, size_t *n, struct sb_error *err);

/* The highest attempt with a jobs directory, or -1. */
int64_t sb_jobs_last_attempt(const struct sb_bench *b);

struct sb_ctx;
/* The sbagent that batch scripts run: the context's (sb_ctx_agent, an
 * absolute path), malloc'd; NULL with err when the context names none. */
char *sb_jobs_agent_path(const struct sb_ctx *ctx, struct sb_error *err);

/* The batch script of a chunk (malloc'd text). */
char *sb_jobs_script(const struct sb_bench *b, const struct sb_chunk *ch, const char *agent);

/* Writes every chunk's map, script and output directory (b must be planned;
 * the caller holds the benchmark's lock).  A new attempt is prepared whole
 * in jobs/.a<N>.tmp and renamed to jobs/a<N> only when every file is
 * written and synced, so jobs/a<N> is never half written; on failure the
 * temporary directory is removed, and whatever a dead sbctl left there
 * (every jobs/.a<N>.tmp) is removed first.  When jobs/a<N> exists (a
 * resumed submit), each file is checked and, unless it holds the same
 * content, replaced atomically; the temporary files of a write that died
 * are removed. */
int sb_jobs_write(const struct sb_bench *b, const struct sb_chunks *chunks,
		  const char *agent, struct sb_error *err);

/* Removes jobs/a<N> (renamed out of sight first): for an unprepared attempt
 * (SB_JOBS_UNPREPARED) that nothing was recorded for, so that it can be
 * prepared again.  The caller holds the benchmark's lock. */
int sb_jobs_discard_attempt(const struct sb_bench *b, int64_t attempt, struct sb_error *err);

/* The identity of a chunk's job, its sbatch --comment: "sbench:" the first
 * 16 hex digits of the SHA-256 of the benchmark directory, ":" the job
 * name.  The lookup after an sbatch whose outcome is unknown takes only a
 * job of the user with exactly this comment (docs/benchmark-dir.md, "The
 * lookup").  -1 when it does not fit. */
#define SB_JOBS_IDENTITY_MAX 128
int sb_jobs_identity(const struct sb_bench *b, const struct sb_chunk *ch, char *buf, size_t size);

/* The sbatch argument vector for a chunk of chunks (NULL-terminated,
 * malloc'd strings in a malloc'd array; free with sb_slurm_argv_free): the
 * resources of b->spec, the time limit and extra options of chunks->set.
 * dependency: a job id to run after (afterany), or NULL. */
char **sb_jobs_sbatch_argv(const struct sb_bench *b, const struct sb_chunks *chunks,
			   const struct sb_chunk *ch, const char *dependency, struct sb_error *err);

#endif
