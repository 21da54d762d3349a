/* sbench — event log files: one signed, chained record after another.
 *
 * docs/event-log.md is the normative format.  Each record's body is a
 * canonical msgpack map holding the run identity (struct sb_run_ident), the
 * sequence number, the wall-clock time, the tag of the previous record, the
 * record type and a type-specific payload map. */
#ifndef SBENCH_LOG_H
#define SBENCH_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "sbench/error.h"
#include "sbench/key.h"

/* What binds a record to its run.  NULL strings and negative integers are
 * "absent" and encode as msgpack nil. */
struct sb_run_ident {
	const char *bench;        /* benchmark digest, lowercase hex, or NULL */
	int64_t child;            /* child index, or -1 */
	const char *child_digest; /* lowercase hex, or NULL */
	int64_t attempt;          /* attempt number (0 = first), or -1 */
	const char *cluster;      /* SLURM_CLUSTER_NAME, or NULL */
	const char *job_id;       /* SLURM_JOB_ID, or NULL outside Slurm */
	const char *array_job_id; /* SLURM_ARRAY_JOB_ID, or NULL */
	const char *array_task_id;/* SLURM_ARRAY_TASK_ID, or NULL */
	int64_t restart;          /* SLURM_RESTART_COUNT, or -1 */
	const char *host;         /* short host name */
	int64_t pid;              /* the writer's pid */
};

/* ---- writing: one writer per file ---------------------------------- */

struct sb_log_writer;

/* Creates path exclusively (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0640) and
 * prepares to write records for the run `id` (copied). */
struct sb_log_writer *sb_log_writer_create(const char *path,
	const struct sb_key *key, const struct sb_run_ident *id,
	struct sb_error *err);

/* Appends one record of `type` ("start", "heartbeat", "signal", "finish")
 * whose payload is the canonical msgpack map in payload[0..payload_len).
 * The time is taken now (CLOCK_REALTIME, ns).  The frame is built in memory
 * and written with one write loop (short writes and EINTR handled), then
 * fsync'ed; any write or fsync error is returned.  After an error the writer
 * refuses further appends. */
int sb_log_writer_append(struct sb_log_writer *w, const char *type,
	const void *payload, size_t payload_len, struct sb_error *err);

/* Records successfully appended so far. */
uint64_t sb_log_writer_count(const struct sb_log_writer *w);

/* Closes the file, reporting a close(2) error, and frees w (NULL is fine). */
int sb_log_writer_close(struct sb_log_writer *w, struct sb_error *err);

#endif
