/* sbench — reading, verifying and listing the event logs of a path: what
 * `sbctl log` does, as one library operation (docs/sbctl-log.md).
 *
 * A path is one log file, or a directory: a benchmark directory (or any
 * directory below one) stands for every log under its events/ and
 * submissions/ (or, inside one of those, every file below the path); any
 * other directory for every regular file below it.  Each file is read and
 * verified with the HMAC key (docs/event-log.md) and rendered, as text or
 * as JSON lines, to a stream or into a buffer; a summary tells the caller
 * what was found, so that it picks its own exit status or exception.
 *
 * Files are listed in child order: the agents' logs, whose names are
 * `<child>.a<attempt>.j<job>.r<restart>.log` (docs/benchmark-dir.md), by
 * child index, then attempt, then restart, then job, numerically; then every
 * other file (sbctl's own submissions/ logs...) by the bytes of its path.
 *
 * The library prints nothing, exits never, reads no environment variable:
 * messages about single files go to the caller's note callback, and the
 * rendered bytes go only where the caller says. */
#ifndef SBENCH_LOGVIEW_H
#define SBENCH_LOGVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sbench/error.h"
#include "sbench/format.h"
#include "sbench/log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the records are rendered (docs/sbctl-log.md "OUTPUT"): SB_FORMAT_TEXT,
 * one human line a record, "== PATH" headers, summary lines; SB_FORMAT_JSON,
 * one JSON object a line: records, then summary objects.  The names of
 * earlier versions stay as synonyms. */
#define sb_logview_format sb_format
#define SB_LOGVIEW_TEXT SB_FORMAT_TEXT
#define SB_LOGVIEW_JSON SB_FORMAT_JSON

/* What a note is about.  Notes are told while the logs are read; none of
 * them stops the operation. */
enum sb_logview_note {
	SB_LOGVIEW_NOTE_WARNING = 0, /* a check is weaker than it could be, e.g. the
				      * benchmark record could not be read, so logs
				      * are checked without its digest */
	SB_LOGVIEW_NOTE_SKIPPED,     /* a path below a directory was not read: not a
				      * regular file (a symbolic link, a fifo...) */
	SB_LOGVIEW_NOTE_IO_ERROR,    /* a file or directory could not be read; counted
				      * in struct sb_logview_summary's io_errors */
	SB_LOGVIEW_NOTE_PROBLEM,     /* a log's tail is not ok: "PATH: DETAIL (CLASS)" */
};

/* Receives one note: msg is one line, lower case, no newline, without a
 * program name in front (sbctl prints "sbctl log: ", and "warning: " for a
 * warning).  msg is borrowed for the call only. */
typedef void (*sb_logview_note_fn)(void *arg, enum sb_logview_note kind,
	const char *msg);

/* The options.  Zero-initialise it (= { 0 }): all zeros are the defaults,
 * also for fields a later version adds.  The strings are borrowed for the
 * call. */
struct sb_logview_opts {
	/* The HMAC key file; NULL: <benchdir>/keys/hmac.key of the benchmark
	 * directory the path is in (an error when it is in none). */
	const char *key_path;
	/* A head seen before, "COUNT:TAGHEX" (sb_log_head_parse), or NULL: the
	 * tail is then rollback when the log ends before it or disagrees with
	 * it.  Only with a path that is one log file. */
	const char *head;
	/* When has_child: only the logs of child `child` (by their file names),
	 * which must be a child of the benchmark the path is in (a directory
	 * with a benchmark record).  Not with a path that is one log file. */
	bool has_child;
	int64_t child;
	enum sb_format format; /* SB_FORMAT_TEXT or SB_FORMAT_JSON */
	/* Where notes go; NULL: nowhere (the summary still counts them). */
	sb_logview_note_fn note;
	void *note_arg;
	/* The threads the files of a directory are read and verified on: 0
	 * for one per core online (sbctl: SB_THREADS).  The output, the notes
	 * and their order are the same whatever the number. */
	unsigned threads;
};

/* What was read.  tail is the worst class found: the first tamper class
 * (corrupt, bad_mac, chain_break, foreign, rollback) in listing order, else
 * torn_tail when any file has one, else ok.  Every record verified and
 * every tail ok exactly when verified == records, tail == SB_LOG_TAIL_OK
 * and io_errors == 0. */
struct sb_logview_summary {
	size_t files;     /* log files read (not those that could not be read) */
	size_t records;   /* records decoded, verified or not */
	size_t verified;  /* records in the verified prefixes */
	enum sb_log_tail tail;
	size_t io_errors; /* files and directories that could not be read */
};

/* Reads and verifies the logs of path (see above) and renders them to out
 * in opts->format (NULL opts: the defaults).  out may be NULL to render
 * nothing (the summary alone); out is flushed at the end, and not closed.
 * *sum (may be NULL) is always filled, with zeros when nothing was read.
 *
 * Returns 0 when the logs were read and rendered, whatever they hold: a bad
 * tag, a torn tail, even a file that could not be read are findings, in
 * *sum and the notes, not errors.  Returns -1 with err when the operation
 * could not be done, with err->code:
 *   SB_ERR_NOT_FOUND  path does not exist; the child is not one of the
 *                     benchmark's children
 *   SB_ERR_INPUT      a format other than text and JSON; a head with a
 *                     directory, or a bad head; a child with a single
 *                     file, or outside a benchmark directory with a
 *                     benchmark record; no key (path in no benchmark
 *                     directory and no key_path); a key file refused or
 *                     unreadable
 *   SB_ERR_RUNTIME    the benchmark record cannot be read while a child is
 *                     selected; the output could not be written (the summary
 *                     is then filled: what was rendered may be incomplete)
 *   SB_ERR_NOMEM      out of memory
 *
 * Thread safety: touches no global state; several calls may run at once in
 * several threads, each with its own out (the note callback is called in
 * the caller's thread). */
int sb_logview_verify(const char *path, const struct sb_logview_opts *opts,
	FILE *out, struct sb_logview_summary *sum, struct sb_error *err);

/* Like sb_logview_verify, but renders into a buffer, for callers without a
 * FILE * (a binding); buf must not be NULL: on 0, *buf is a malloc'd NUL-terminated string of
 * *len bytes (len may be NULL) that the caller frees with sb_free (or
 * sb_logview_free, or free(3)); on -1, *buf is NULL and nothing is to be freed. */
int sb_logview_verify_buffer(const char *path, const struct sb_logview_opts *opts,
	char **buf, size_t *len, struct sb_logview_summary *sum,
	struct sb_error *err);

/* Frees a buffer of sb_logview_verify_buffer.  Accepts NULL. */
void sb_logview_free(char *buf);

#ifdef __cplusplus
}
#endif

#endif
