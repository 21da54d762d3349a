/* sbench — benchmarks: the directory `sbctl submit` creates for a spec
 * (docs/benchmark-dir.md), opened again from any later process.
 *
 * A struct sb_bench is what a benchmark's immutable record says (name, tag,
 * digest, children) and where it lives.  Open one by its directory (or any
 * path below it), or find one by what a user types: a path, a name (the
 * latest benchmark of that name) or a digest prefix known to the local
 * index of a context. */
#ifndef SBENCH_BENCH_H
#define SBENCH_BENCH_H

#include <stddef.h>

#include "sbench/context.h"
#include "sbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sb_bench;

/* Opens the benchmark at path (its directory or any path below it): checks
 * that its directory and entries belong to the user with safe modes, and
 * reads its record.  NULL with err: SB_ERR_NOT_FOUND when there is no
 * benchmark there, SB_ERR_INPUT when the directory is refused (owned by
 * someone else, writable by others) or its record cannot be read or
 * decoded, SB_ERR_NOMEM.  Free it with sb_bench_destroy. */
struct sb_bench *sb_bench_open(const char *path, struct sb_error *err);

/* Opens the benchmark a BENCH argument names: a path, else a name or a
 * digest prefix of at least 4 hex digits known to ctx's local index
 * (SB_ERR_NOT_FOUND when it knows none, or ctx has no index).  A benchmark
 * opened by its path is (re)learnt by the index. */
struct sb_bench *sb_bench_find(const struct sb_ctx *ctx, const char *arg, struct sb_error *err);

/* Frees b; accepts NULL. */
void sb_bench_destroy(struct sb_bench *b);

/* What the record says; borrowed strings that live as long as b. */
const char *sb_bench_dir(const struct sb_bench *b);     /* absolute path */
const char *sb_bench_name(const struct sb_bench *b);
const char *sb_bench_tag(const struct sb_bench *b);     /* NULL when none */
const char *sb_bench_digest(const struct sb_bench *b);  /* 64 lowercase hex digits */
size_t sb_bench_children(const struct sb_bench *b);

/* The Slurm output of child (< sb_bench_children) as `sbctl output` shows
 * it: for each attempt, the slurm-<array job id>_<task id>.out and .err
 * files of the child's task in its chunk's directory jobs/a<N>/c<k>/ (in
 * runs/<child>/ for a chunk an earlier sbctl laid out with per-task links;
 * docs/benchmark-dir.md, "Slurm output"), every attempt and restart,
 * oldest first (by modification time, then name).  *files is one malloc'd
 * block, a NULL-terminated array of *nfiles absolute paths (nfiles may be
 * NULL), to free with sb_free; *run_dir (run_dir may be NULL) the malloc'd
 * path of the child's run directory runs/<child> (made by its job: it may
 * not exist yet), to free with sb_free.  No file yet is no error (0
 * files).  What it learns (the task maps, the chunk directories' listings)
 * is kept in b for the next call.  -1 with err (nothing to free):
 * SB_ERR_NOT_FOUND when child is not a child of b ("benchmark NAME has
 * children 0 to N, not CHILD"), SB_ERR_RUNTIME when a task map or an output
 * directory cannot be read, SB_ERR_NOMEM. */
int sb_bench_output(const struct sb_bench *b, size_t child, char **run_dir, char ***files,
		    size_t *nfiles, struct sb_error *err);

/* Whether child of b is reused from an earlier benchmark (a signed reuse
 * record in its submissions/, docs/benchmark-dir.md "Reuse records"): 1
 * with *source_dir (malloc'd, to free with sb_free) the source benchmark's
 * directory and *source_child the child there (the latest record when a
 * child was reused more than once); 0 when it is not (*source_dir NULL).
 * The record says where the run is; whether it still proves anything is
 * status's to say.  -1 with err: SB_ERR_NOT_FOUND when child is not a
 * child of b, SB_ERR_RUNTIME when the records cannot be read, SB_ERR_NOMEM. */
int sb_bench_reused_from(const struct sb_bench *b, size_t child, char **source_dir,
			 size_t *source_child, struct sb_error *err);

#ifdef __cplusplus
}
#endif

#endif
