/* The signed `reuse` record (docs/benchmark-dir.md "Reuse records") that
 * says, in a new benchmark's submissions/, which earlier benchmark's run
 * proves one of its children: where that proof is and what it proved. */
#ifndef SB_CTL_REUSE_RECORD_H
#define SB_CTL_REUSE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "base/canon.h"
#include "bench/finish.h"
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

/* The results of a verified finish record's payload (its "results": the
 * path and sha256 of each) into r->results; 0 when it has none.  -1 when
 * one lacks either or out of memory (r keeps what was taken, for
 * sb_reuse_release). */
int sb_reuse_take_results(struct sb_reuse *r, const msgpack_object *finish);

/* Reads the log of child index, attempt, of the benchmark directory dir
 * (digest) at log (relative to dir) with that benchmark's key: its
 * verified head into head (text) and its tail; the result read into *keep
 * when keep is not NULL (the caller destroys it).  -1 with why in *why
 * (malloc'd; NULL when out of memory). */
int sb_reuse_source_head(const char *dir, const char *digest, int64_t index, int64_t attempt,
			 const char *log, char head[SB_LOG_HEAD_TEXT_MAX], enum sb_log_tail *tail,
			 struct sb_log_result **keep, char **why);

#endif
