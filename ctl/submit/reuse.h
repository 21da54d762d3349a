/* Reuse of proven children across benchmarks of the same name and tag
 * (docs/benchmark-dir.md "Reuse records"), at submit time: finding, when
 * a benchmark is created, the children whose digest already succeeded in
 * an earlier one.  The record that says so is bench/reuse_record.h's; the
 * check at every status is status/status_reuse.c's. */
#ifndef SB_CTL_REUSE_H
#define SB_CTL_REUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench_private.h"
#include "bench/reuse_record.h"

struct sb_ctx;
/* The children of b (planned, just created) proven in earlier benchmarks:
 * those of the local index with b's name and tag (newest first), or the
 * benchmark from names (sb_bench_find) when not NULL.  A source's status
 * is computed (with the scheduler, recording its outcomes); each of its
 * children that succeeded there, from a run of its own (not itself
 * reused), whose digest is a child's of b, is reused, the newest source
 * first.  A source that cannot be read or classified is skipped with a
 * warning through ctx; -1 only for a from that names no benchmark or out
 * of memory.  *out in the order of b's children.  dry_run: the sources'
 * statuses record nothing (sbctl submit --dry-run). */
int sb_reuse_find(const struct sb_ctx *ctx, const struct sb_bench *b, const char *from,
		  bool dry_run, struct sb_reuses *out, struct sb_error *err);

/* The newest other benchmark of b's name the local index knows, opened,
 * or NULL (none, or it cannot be opened). */
struct sb_bench *sb_reuse_previous(const struct sb_ctx *ctx, const struct sb_bench *b);

struct sb_plan;
/* --reuse-from across other code is refused before anything is made: 0
 * when the benchmark from names has the input files of plan (the same
 * digests, or both none); -1 with an input error naming the first file
 * that differs and how many more do, or when from names no benchmark. */
int sb_reuse_check_code(const struct sb_ctx *ctx, const char *from, const struct sb_plan *plan,
			struct sb_error *err);

#endif
