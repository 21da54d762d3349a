/* Reuse of proven children across benchmarks of the same name and tag
 * (docs/benchmark-dir.md "Reuse records"): finding, when a benchmark is
 * created, the children whose digest already succeeded in an earlier one;
 * the signed `reuse` record that says so in the new benchmark's
 * submissions/; and checking it again at every status. */
#ifndef SB_CTL_REUSE_H
#define SB_CTL_REUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl/bench.h"
#include "ctl/canon.h"
#include "ctl/status.h"
#include "sbench/log.h"

struct sb_reuse_result {
	char *path;              /* relative to the source's run directory */
	char sha256[65];
};

/* One reused child: where its proof is, and what it proved. */
struct sb_reuse {
	int64_t time_ns;
	int64_t child;           /* the child of the new benchmark */
	char *source_dir;        /* the source benchmark directory (absolute) */
	char source_digest[65];  /* its benchmark digest */
	int64_t source_index;    /* the child there */
	int64_t source_attempt;
	char *source_job;        /* Slurm's JobID text of the source run, or NULL */
	char *source_log;        /* the log, relative to source_dir */
	char source_head[SB_LOG_HEAD_TEXT_MAX]; /* its verified head, "COUNT:TAG" */
	int exit_code;           /* of the verified finish: 0 */
	struct sb_reuse_result *results;
	size_t nresults;
	struct sb_metric *metrics;
	size_t nmetrics;
};

struct sb_reuses {
	struct sb_reuse *v;
	size_t n;
};

void sb_reuse_release(struct sb_reuse *r);
void sb_reuses_release(struct sb_reuses *l);

/* The payload of a reuse record, canonical msgpack (keys sorted). */
void sb_reuse_encode(const struct sb_reuse *r, struct sb_canon *c);
/* A reuse record's payload into *r (time_ns the record's); -1 when it is
 * not one or out of memory. */
int sb_reuse_decode(const msgpack_object *payload, int64_t time_ns, struct sb_reuse *r);

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

/* Checks a reuse record again, as status does: the source directory is
 * there (else SB_CLASS_MISSING), its log (when still there) verifies with
 * the source's key and has the recorded head, and every recorded result
 * has its recorded digest (else SB_CLASS_INVALID); SB_CLASS_SUCCEEDED
 * then.  *reason (malloc'd, NULL for succeeded) says why not.  -1 with
 * err when out of memory or a result cannot be read (an I/O error is no
 * evidence either way).  idx (may be NULL): the local index whose cached
 * hashes stand for a result whose size, times and inode did not change,
 * unless rehash. */
struct sb_index;
int sb_reuse_verify(const struct sb_reuse *r, const char *bench_name, struct sb_index *idx,
		    bool rehash, enum sb_class *cls, char **reason, struct sb_error *err);

#endif
