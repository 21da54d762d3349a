/* Live watch inside the library (include/sbench/watch.h): the watch's
 * state, shared by watch.c (files, wire, events) and watch_view.c (JSON
 * lines and the live view). */
#ifndef SB_CTL_WATCH_INTERNAL_H
#define SB_CTL_WATCH_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log/logfiles.h"
#include "proto/watchfmt.h"
#include "sbench/bench.h"
#include "sbench/log.h"
#include "sbench/status.h"
#include "sbench/watch.h"

/* What the live view keeps of a child: its attempt and whether it started
 * and finished; while it runs, what its latest records said, in runs[]
 * (returned to the pool at its finish: a finished benchmark costs 16
 * bytes a child, not a record's worth). */
struct sb_watch_child {
	int64_t attempt;
	uint32_t run;              /* 1 + its index in runs[]; 0: none */
	bool started, finished;
};

struct sb_watch_run {
	double elapsed_s;          /* of its latest heartbeat */
	int64_t max_rss_kb;
	double user_s, sys_s;
	double progress;           /* 0..1 from the heartbeat, -1 unknown */
	int64_t last_ns;           /* time of its latest record */
	uint32_t next_free;        /* in the free list: 1 + the next free run */
	char metrics[96];          /* "loss=0.25 acc=0.9": the first of its latest metrics */
};

/* What the watch keeps of each log file and of each log, in one open
 * hash table of 32-byte entries (docs/sbctl-watch.md, MEMORY): no path,
 * no record.  An entry's key is the hash (96 bits, two functions) of a
 * string: a log file's path (its size and mtime when last read), or a
 * log's own key (the records given): the path where its identity puts it
 * (sb_bdir_log), the file's path for sbctl's own logs, the identity for a
 * frame of neither; a log file in its place has one entry for both. */
struct sb_watch_log {
	uint64_t k0;               /* 0: an empty slot */
	uint32_t k1;
	uint32_t size;             /* file: its size when last read */
	uint32_t mtime;            /* file: the low 32 bits of its mtime in ns */
	uint32_t given;            /* log: records 0..given-1 were given */
	uint32_t writer;           /* log: a hash of its writer's host and pid; 0 none yet */
	uint32_t flags;            /* SB_WLOG_* */
};

#define SB_WLOG_READ 1u            /* size and mtime are of a reading */
#define SB_WLOG_PROBLEM 2u         /* its problem was told */
#define SB_WLOG_GAPS 4u            /* records after a missing one were given: see gaps */

struct sb_watch_key {
	uint64_t k0;
	uint32_t k1;
};

/* The records given beyond a log's first missing one (a live record given
 * when its file did not hold yet the records before it): few, and each
 * gone once the records before it are given. */
struct sb_watch_gap {
	struct sb_watch_key key;
	uint8_t *bits;             /* bit seq: given */
	size_t nbytes;
};

struct sb_watch_item {
	struct sb_watch_event ev;
	struct sb_log_result *own;   /* freed with the item */
	char *path;                  /* owned */
	char *detail;                /* owned */
	struct sb_watch_key key;     /* a live record's log */
};

/* A reading pass over the log files: the shards of events/ (events/<N>/)
 * one after another in numeric order, each listed and sorted in child
 * order when its turn comes, then the rest (submissions/ and whatever
 * else is under events/).  It goes on in steps between looks at the wire. */
struct sb_watch_scan {
	bool active, listed, rest_done, final;
	char **shards;                 /* the shards' paths, in order */
	size_t nshards, ishard;
	char **rest;                   /* what else to list, last */
	size_t nrest;
	struct sb_logfiles files;      /* the list being read */
	size_t ifile;
	double cost;                   /* seconds of work in this pass */
	double first_reads;            /* ... of it reading files for the first time */
};

/* A verified record of a large log file: where it is and its tag. */
struct sb_watch_ref {
	uint64_t seq, offset;
	uint32_t size;
	uint8_t tag[SB_LOG_TAG_LEN];
};

/* A log file whose records are being given, one a call: those not given
 * yet, below seq `below`.  A small file is read whole (r); a large one
 * (over SB_WATCH_BIG bytes) is verified through a sliding window and its
 * records then read again one frame at a time (refs; r is the frame's),
 * so that what it costs does not grow with the log. */
struct sb_watch_reading {
	struct sb_log_result *r;
	const char *path;              /* borrowed from the scan's list or the queue */
	struct sb_watch_key key;       /* its log's */
	struct sb_watch_key fkey;      /* its file's (read again at the next pass if it changed under us) */
	uint64_t below;
	size_t next, n;                /* small: the next record, the verified ones */
	bool big;
	int fd;
	struct sb_watch_ref *refs;
	size_t nrefs, iref, refs_cap;
	struct sb_log_record rec;      /* big: the record given, with its place in the file */
};

#define SB_WATCH_BIG (1u << 20)

struct sb_watch {
	const struct sb_ctx *ctx;
	struct sb_bench *bench;
	struct sb_watch_opts opts;
	struct sb_log_verifier *verifier;
	struct sb_run_ident want;
	char host[256];
	char *endpoint_path;
	char address[SB_WATCH_ADDR_MAX];
	uint8_t client_pub[32];        /* keys/watch.key's public key, binary */
	void *zctx, *pull, *zap;
	/* the log files and logs (struct sb_watch_log) */
	struct sb_watch_log *logs;
	size_t logs_cap, logs_n;
	struct sb_watch_gap *gaps;
	size_t ngaps, gaps_cap;
	/* events ready to give: the wire's (live records), notes, statuses */
	struct sb_watch_item *q;
	size_t qhead, qlen, qcap;
	/* live records held until the records of their log before them are
	 * given (read from its file: fill), in the order they came */
	struct sb_watch_item *held;
	size_t nheld, heldcap;
	struct sb_watch_item cur;      /* the event last given from the queue */
	struct sb_watch_scan scan;
	struct sb_watch_reading rd;    /* the pass's file */
	struct sb_watch_reading fill;  /* the file of the first held record */
	bool filling;
	uint8_t *fbuf;                 /* a frame read again */
	size_t fbuf_cap;
	double t0, next_scan, next_status, next_poll, scan_cost;
	bool scanned, final_req, finish_seen;
	const char *done;
	struct sb_status *status;
	struct sb_watch_counts counts;
	struct sb_watch_child *children;
	size_t nchildren;
	struct sb_watch_run *runs;
	size_t nruns, runs_cap;
	uint32_t free_run;             /* 1 + the first free run; 0: none */
};

/* watch_note.c: the child state of the live view, from a given record;
 * -1 out of memory. */
int sb_watch_view_note(struct sb_watch *w, const struct sb_log_record *rec);

#endif
