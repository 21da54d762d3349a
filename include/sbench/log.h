/* sbench — event log files: one signed, chained record after another.
 *
 * docs/event-log.md is the normative format.  Each record's body is a
 * canonical msgpack map holding the run identity (struct sb_run_ident), the
 * sequence number, the wall-clock time, the tag of the previous record, the
 * record type and a type-specific payload map. */
#ifndef SBENCH_LOG_H
#define SBENCH_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <msgpack.h>

#include "sbench/error.h"
#include "sbench/key.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * fdatasync'ed.  Returns 0 when the record is on disk.
 *
 * On a write or sync error (-1 with err) the record stays *pending*
 * (sb_log_writer_pending): it keeps its place in the chain, and the next
 * append, sb_log_writer_flush or sb_log_writer_close first writes it again,
 * the same bytes at the same offset, so the file only ever holds a prefix
 * of the records created (docs/event-log.md §5.1).  While a pending record
 * cannot be written, an append returns -1 without creating its record (it
 * is skipped; sb_log_writer_count does not move).  A bad payload is -1 and
 * changes nothing. */
int sb_log_writer_append(struct sb_log_writer *w, const char *type,
	const void *payload, size_t payload_len, struct sb_error *err);

/* Writes the pending record, if any: 0 when nothing is pending any more. */
int sb_log_writer_flush(struct sb_log_writer *w, struct sb_error *err);

/* Whether the last record created is not yet on disk. */
bool sb_log_writer_pending(const struct sb_log_writer *w);

/* Batch mode: records are written at once but synced only by
 * sb_log_writer_close (which then reports a sync error).  For a writer that
 * appends many records in one go and whose caller acts on the whole batch
 * (sbctl's reconciled outcomes); never for an agent, whose records must be
 * durable one by one. */
void sb_log_writer_set_batch(struct sb_log_writer *w, bool batch);

/* Receives a copy of every frame the writer has just made durable (in batch
 * mode: written), frame[0..len) borrowed for the call: the same bytes as in
 * the file.  The tap must not block; sbagent sends the frames to live
 * watchers with it (docs/watch.md). */
typedef void (*sb_log_tap_fn)(void *arg, const void *frame, size_t len);

/* Sets (tap != NULL) or clears the writer's tap. */
void sb_log_writer_set_tap(struct sb_log_writer *w, sb_log_tap_fn tap, void *arg);

/* Records created so far, the pending one included: the seq of the next
 * record. */
uint64_t sb_log_writer_count(const struct sb_log_writer *w);

/* Writes a pending record (one last try) and, in batch mode, syncs; closes
 * the file, reporting any of these errors, and frees w (NULL is fine). */
int sb_log_writer_close(struct sb_log_writer *w, struct sb_error *err);

/* Like sb_log_writer_create, but writes to an open descriptor, which the
 * writer then owns (closed by sb_log_writer_close), from its current offset.
 * `name` names it in messages.  For tests (e.g. /dev/full) and callers that
 * open the file. */
struct sb_log_writer *sb_log_writer_create_fd(int fd, const char *name,
	const struct sb_key *key, const struct sb_run_ident *id,
	struct sb_error *err);

/* Test hook: take record times from now(arg) instead of CLOCK_REALTIME, so
 * that golden files are reproducible.  now == NULL restores the real clock. */
void sb_log_writer_set_clock(struct sb_log_writer *w,
	int64_t (*now)(void *arg), void *arg);

/* Test hook: use write_fn and sync_fn instead of write(2) and fdatasync(2)
 * (NULL restores them), so that tests can inject short writes, EINTR,
 * ENOSPC and EIO deterministically. */
void sb_log_writer_set_io(struct sb_log_writer *w,
	ssize_t (*write_fn)(int fd, const void *buf, size_t n),
	int (*sync_fn)(int fd));

/* ---- limits (docs/event-log.md §7) ---------------------------------- */

#define SB_LOG_MAGIC "SBE1"            /* the 4 bytes every frame starts with */
#define SB_LOG_VERSION 1               /* the body's "v" */
#define SB_LOG_HEADER_LEN 12           /* magic, body length, body CRC32C */
#define SB_LOG_TAG_LEN 32              /* HMAC-SHA256 */
#define SB_LOG_BODY_MAX (1u << 20)     /* largest body, bytes */
#define SB_LOG_FILE_MAX (256u << 20)   /* largest log file the reader reads */
#define SB_LOG_STR_MAX 1024            /* longest identity or type string */
#define SB_LOG_HEAD_TEXT_MAX 96        /* "COUNT:TAGHEX" and its NUL */

/* ---- reading and verifying ------------------------------------------ */

/* The class of what follows the verified prefix (docs/event-log.md §5). */
enum sb_log_tail {
	SB_LOG_TAIL_OK,          /* nothing: every byte was a verified record */
	SB_LOG_TAIL_TORN,        /* a short last frame (or zero fill): writer died or is writing */
	SB_LOG_TAIL_CORRUPT,     /* bad magic, length, CRC, or an undecodable body */
	SB_LOG_TAIL_BAD_MAC,     /* CRC fine, tag wrong: forged or wrong key */
	SB_LOG_TAIL_CHAIN_BREAK, /* seq or prev wrong: reordered, deleted, duplicated */
	SB_LOG_TAIL_FOREIGN,     /* a record of another benchmark, child or run */
	SB_LOG_TAIL_ROLLBACK,    /* ends before, or disagrees with, a head seen before */
};

/* "ok", "torn_tail", "corrupt", "bad_mac", "chain_break", "foreign",
 * "rollback" (the JSON names). */
const char *sb_log_tail_name(enum sb_log_tail tail);

/* What the class means, in words, e.g. "tag does not verify (forged or
 * wrong key)". */
const char *sb_log_tail_describe(enum sb_log_tail tail);

/* A head: the number of verified records of a file and the tag of the last
 * one.  Text form "COUNT:TAGHEX", e.g. "4:9f86...08" (64 hex digits). */
struct sb_log_head {
	uint64_t count;
	uint8_t tag[SB_LOG_TAG_LEN];
};

/* Parses the text form; count must be at least 1. */
int sb_log_head_parse(const char *text, struct sb_log_head *head,
	struct sb_error *err);

/* Writes the text form into buf. Returns buf. */
char *sb_log_head_format(const struct sb_log_head *head,
	char buf[SB_LOG_HEAD_TEXT_MAX]);

/* One record as read.  Strings are NUL-terminated and NULL when absent;
 * integers are -1 when absent.  Everything points into the result that
 * holds the record (the payload too: copy out before destroying it). */
struct sb_log_record {
	uint64_t seq;
	int64_t time_ns;
	const char *type;
	struct sb_run_ident id;
	msgpack_object payload;         /* a map */
	uint8_t tag[SB_LOG_TAG_LEN];
	bool has_prev;
	uint8_t prev[SB_LOG_TAG_LEN];
	uint64_t offset;                /* byte offset of the frame in the file */
	size_t size;                    /* frame length in bytes */
	bool verified;                  /* part of the verified prefix */
};

/* What a reader checks besides the tags.  Identity: NULL strings and
 * negative integers are not checked; only bench, child, attempt, job_id and
 * restart are compared (every record is also compared with record 0 on all
 * identity fields).  head: NULL, or a head seen before (rollback check). */
struct sb_log_expect {
	const struct sb_run_ident *id;
	const struct sb_log_head *head;
};

struct sb_log_verifier;

/* A verifier holds the keyed HMAC context; make one and read many files
 * with it.  NULL on failure. */
struct sb_log_verifier *sb_log_verifier_create(const struct sb_key *key,
	struct sb_error *err);

/* Frees the verifier and wipes its key.  Accepts NULL. */
void sb_log_verifier_destroy(struct sb_log_verifier *v);

struct sb_log_result;

/* Reads and verifies a log file: the longest prefix of complete, authentic,
 * in-chain records, then exactly one tail class.  Records after the prefix
 * that still decode are included with verified == false.  NULL (and err)
 * only when the file cannot be read at all (missing, unreadable, not a
 * regular file, larger than SB_LOG_FILE_MAX) or the reader ran out of
 * memory (or OpenSSL failed) on the way: those are errors, never a tail
 * class, so that a machine short of memory is not taken for tampering.
 * Every problem of the file's content is a tail class.  expect may be
 * NULL. */
struct sb_log_result *sb_log_read_file(struct sb_log_verifier *v,
	const char *path, const struct sb_log_expect *expect,
	struct sb_error *err);

/* Called with each record of a file in order (the verified ones first,
 * then those after the prefix that still decode, verified == false); the
 * record and what it points to are gone once it returns.  Returning -1
 * (with err) stops the reading, which then fails with that error. */
typedef int (*sb_log_each_fn)(const struct sb_log_record *rec, void *arg,
	struct sb_error *err);

/* Reads and verifies like sb_log_read_file, in memory that does not grow
 * with the log: the file is read through a window of two of the largest
 * frames that slides on, and each record is handed to each (NULL: none)
 * as it is read, then dropped.  The result has the counts, the tail, its
 * detail and the head; sb_log_result_record gives record 0 only.  When
 * each fails, memory runs out, a read fails or the file grows past
 * SB_LOG_FILE_MAX while it is read, each has already seen the records
 * before (a caller that prints them has printed them). */
struct sb_log_result *sb_log_read_file_each(struct sb_log_verifier *v,
	const char *path, const struct sb_log_expect *expect,
	sb_log_each_fn each, void *arg, struct sb_error *err);

/* The same for the bytes buf[0..len) (copied). */
struct sb_log_result *sb_log_read_buffer(struct sb_log_verifier *v,
	const void *buf, size_t len, const struct sb_log_expect *expect,
	struct sb_error *err);

/* Verifies one frame alone, buf[0..len) (copied): a frame off the wire
 * (docs/watch.md).  Its header, CRC, tag, body and the identity of expect
 * are checked, not its place in a chain (seq and prev are the log file's to
 * prove).  The result holds the record, verified when all of that holds, or
 * the tail class that failed (torn_tail when buf holds no whole frame,
 * corrupt when bytes follow it).  NULL (and err) only when memory ran out or
 * OpenSSL failed. */
struct sb_log_result *sb_log_read_frame(struct sb_log_verifier *v,
	const void *buf, size_t len, const struct sb_log_expect *expect,
	struct sb_error *err);

/* Decodes without a key: frames and bodies, no tags checked; every record
 * has verified == false.  The tail is ok, torn_tail or corrupt. */
struct sb_log_result *sb_log_decode_buffer(const void *buf, size_t len,
	struct sb_error *err);

/* Records in the result (verified ones first), and the i-th (i < count). */
size_t sb_log_result_count(const struct sb_log_result *r);
const struct sb_log_record *sb_log_result_record(const struct sb_log_result *r,
	size_t i);

/* How many records verified (they are records 0..verified-1). */
size_t sb_log_result_verified(const struct sb_log_result *r);

/* The tail class, and where it starts: the index of the first record not
 * verified and its byte offset (equal to the file size for ok). */
enum sb_log_tail sb_log_result_tail(const struct sb_log_result *r);
uint64_t sb_log_result_tail_offset(const struct sb_log_result *r);

/* One line saying what is wrong, e.g. "record 3 at byte 412: tag does not
 * verify (forged or wrong key)"; "" when the tail is ok. */
const char *sb_log_result_detail(const struct sb_log_result *r);

/* The head of the verified prefix; -1 when no record verified. */
int sb_log_result_head(const struct sb_log_result *r, struct sb_log_head *head);

/* Frees the result and everything its records point to.  Accepts NULL. */
void sb_log_result_destroy(struct sb_log_result *r);

/* An agent's log file name, `<child>.a<attempt>.j<job>.r<restart>.log`
 * (docs/benchmark-dir.md; the record format's, implemented with it): the numbers are decimal digits that fit an
 * int64_t, the job is [0-9a-z]+ ("none" outside Slurm). */
struct sb_log_name {
	int64_t child;
	int64_t attempt;
	int64_t restart;
	const char *job; /* points into the name parsed, not NUL-terminated there */
	size_t job_len;
};

/* Parses a file name (the last component, without a directory) into *out.
 * Returns 0, or -1 when name is not an agent's log file name (*out is then
 * unchanged).  Thread-safe. */
int sb_log_name_parse(const char *name, struct sb_log_name *out);

/* Compares two parsed names in child order: child, attempt, restart, then
 * the job (numerically when both are digits); <0, 0 or >0 like strcmp.
 * Thread-safe. */
int sb_log_name_cmp(const struct sb_log_name *a, const struct sb_log_name *b);

#ifdef __cplusplus
}
#endif

#endif
