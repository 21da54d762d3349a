/* sbench — live watch: a benchmark's records as its agents write them
 * (docs/watch.md, docs/sbctl-watch.md).
 *
 * A watch binds a ZeroMQ PULL socket with CurveZMQ on (a server key pair
 * made for this watch; only clients holding the benchmark's client key,
 * keys/watch.key, are let in), writes its endpoint and public key to
 * <bench>/watch/<host>-<pid>.endpoint (removed by sb_watch_close) and then
 * gives, one event at a time, every record already in the benchmark's log
 * files and every new record: from the wire as agents send it, or from the
 * files, which it keeps reading, when the wire dropped it.  The files are
 * read one after another as the records are taken (nothing is held per
 * record), and what comes off the wire meanwhile is given between two
 * files; each log's records are given in order (docs/sbctl-watch.md,
 * ORDER and MEMORY).  Each record is given once (by its log's identity and
 * seq), and only when it verifies with the benchmark's HMAC key.  A frame
 * off the wire that does not verify, and a connection refused for want of
 * the client key, are events of their own, never records.
 *
 * The library prints nothing: the caller pulls events with sb_watch_next
 * (or their JSON lines with sb_watch_next_json) and renders them.  A watch
 * is used by one thread at a time. */
#ifndef SBENCH_WATCH_H
#define SBENCH_WATCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sbench/context.h"
#include "sbench/error.h"
#include "sbench/log.h"
#include "sbench/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sb_watch;

/* The options.  Zero-initialise it (= { 0 }): all zeros are the defaults.
 * Strings are borrowed for sb_watch_open only. */
struct sb_watch_opts {
	/* A ZeroMQ address to bind, e.g. "tcp://10.0.0.5:*"; NULL: an
	 * ephemeral TCP port on the host's name (gethostname). */
	const char *bind;
	/* Stop when no child is pending or running (a status is computed every
	 * few seconds, and after finish records): sb_watch_next returns
	 * SB_WATCH_DONE, and sb_watch_status gives that last status. */
	bool until_done;
	/* Wanted a status for the live view (counts per class) even without
	 * until_done: computed every few seconds too. */
	bool track_status;
	/* Seconds after which sb_watch_next returns SB_WATCH_DONE; 0: none. */
	double timeout;
	/* Seconds between two readings of the log files; 0: 0.5 (longer on a
	 * large benchmark: at least 20 times what one reading took). */
	double scan_interval;
	/* When not NULL and non-zero (a signal handler sets it), sb_watch_next
	 * returns SB_WATCH_DONE at once. */
	const volatile sig_atomic_t *stop;
};

/* Opens a watch of the benchmark bench_arg names (a path, a name or a
 * digest prefix, as sb_bench_find): makes keys/watch.key when it is not
 * there yet, removes the endpoint files of this host's dead watchers,
 * binds, and writes this watch's endpoint file.  -1 with err:
 * SB_ERR_NOT_FOUND / SB_ERR_INPUT as sb_bench_find, SB_ERR_INPUT for a bad
 * bind address, SB_ERR_RUNTIME when the key, the socket or the endpoint file
 * cannot be made. */
int sb_watch_open(const struct sb_ctx *ctx, const char *bench_arg,
	const struct sb_watch_opts *opts, struct sb_watch **out, struct sb_error *err);

/* Removes the endpoint file, closes the socket and frees w.  Accepts NULL. */
void sb_watch_close(struct sb_watch *w);

/* The address agents connect to ("tcp://127.0.0.1:40123") and the path of
 * the endpoint file; borrowed from w. */
const char *sb_watch_address(const struct sb_watch *w);
const char *sb_watch_endpoint_path(const struct sb_watch *w);

/* The benchmark watched (borrowed from w). */
const struct sb_bench *sb_watch_bench(const struct sb_watch *w);

enum sb_watch_kind {
	SB_WATCH_RECORD = 1,  /* a verified record: rec, live, path */
	SB_WATCH_BAD_FRAME,   /* a frame off the wire that does not verify: tail, detail, size */
	SB_WATCH_REJECTED,    /* a connection refused: no client key (detail: the peer) */
	SB_WATCH_PROBLEM,     /* a log file whose tail is not ok nor torn: path, tail, detail */
	SB_WATCH_STATUS,      /* a new status was computed (sb_watch_status) */
};

/* One event; everything borrowed until the next sb_watch_next. */
struct sb_watch_event {
	enum sb_watch_kind kind;
	const struct sb_log_record *rec;
	bool live;              /* the record came off the wire, not from a file */
	const char *path;       /* the log file (records from files, problems), or NULL */
	enum sb_log_tail tail;  /* BAD_FRAME, PROBLEM: what failed */
	const char *detail;     /* BAD_FRAME, REJECTED, PROBLEM: one line */
	size_t size;            /* BAD_FRAME: its bytes */
};

#define SB_WATCH_EVENT 1
#define SB_WATCH_IDLE 0
#define SB_WATCH_DONE 2

/* Waits at most wait_s seconds (0: does not wait; negative: until
 * something happens) for the next event.  SB_WATCH_EVENT with *ev filled;
 * SB_WATCH_IDLE when the time passed with nothing; SB_WATCH_DONE when the
 * watch is over (until_done reached, the timeout passed, *stop set:
 * sb_watch_done_reason says which), again on every later call; -1 with err
 * (SB_ERR_RUNTIME, SB_ERR_NOMEM; a scheduler that does not answer a status
 * is told through the context's warning callback and asked again 2 s
 * later, as sb_status_wait does).  The records already in the files are
 * given as each file is read, shard by shard of events/ (child order), then
 * submissions/; what comes off the wire is looked at every 20 ms at most
 * and given before the next record of a file, a live record after the
 * records of its log before it (read from its file when they were not
 * given yet).  The first status (until_done, track_status) is computed
 * once every file was read once. */
int sb_watch_next(struct sb_watch *w, double wait_s, struct sb_watch_event *ev,
	struct sb_error *err);

/* The same, with the event rendered as one JSON line (no newline) into a
 * malloc'd *line (free with sb_free): a record is the object of
 * `sbctl log --json` plus "live"; the other events are objects without a
 * "type" key (docs/sbctl-watch.md).  *line is NULL unless SB_WATCH_EVENT. */
int sb_watch_next_json(struct sb_watch *w, double wait_s, char **line, struct sb_error *err);

/* Renders ev as its JSON line (no newline) to out.  -1 with err when out
 * fails. */
int sb_watch_event_json(const struct sb_watch *w, const struct sb_watch_event *ev,
	FILE *out, struct sb_error *err);

/* Renders ev as one line for people (a pipe without --json): "child 3
 * attempt 0: " then the line of `sbctl log`, "(file)" for a record read
 * from a file; a refused frame or connection; a status's counts. */
int sb_watch_event_text(const struct sb_watch *w, const struct sb_watch_event *ev,
	FILE *out, struct sb_error *err);

/* Why the watch is over: "done" (until_done), "timeout", "stopped"; NULL
 * while it is not. */
const char *sb_watch_done_reason(const struct sb_watch *w);

/* The last status computed (until_done or track_status), NULL when none yet;
 * borrowed from w, valid until the next sb_watch_next. */
const struct sb_status *sb_watch_status(const struct sb_watch *w);

/* What was counted: records given (from files and live), frames off the
 * wire that did not verify, connections refused. */
struct sb_watch_counts {
	size_t records, live, from_files, bad_frames, rejected;
};
void sb_watch_counts(const struct sb_watch *w, struct sb_watch_counts *c);

/* Renders the live view, for a terminal (docs/sbctl-watch.md): the
 * benchmark, the counts per class of the last status, one line per running
 * child (its elapsed time and latest heartbeat metrics, a progress bar when
 * its heartbeat reports progress), the frames refused.  width: columns (0:
 * 80).  -1 with err when out fails. */
int sb_watch_render_view(const struct sb_watch *w, FILE *out, int width,
	struct sb_error *err);

#ifdef __cplusplus
}
#endif

#endif
