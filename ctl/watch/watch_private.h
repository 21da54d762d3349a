/* Live watch inside the library (include/sbench/watch.h): the watch's
 * state, shared by watch.c (files, wire, events) and watch_view.c (JSON
 * lines and the live view). */
#ifndef SB_CTL_WATCH_INTERNAL_H
#define SB_CTL_WATCH_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/watchfmt.h"
#include "sbench/bench.h"
#include "sbench/log.h"
#include "sbench/status.h"
#include "sbench/watch.h"

/* What the live view keeps of a child: its latest record. */
struct sb_watch_child {
	bool started, finished;
	int64_t attempt;
	double elapsed_s;          /* of its latest heartbeat */
	int64_t max_rss_kb;
	double user_s, sys_s;
	double progress;           /* 0..1 from the heartbeat, -1 unknown */
	int64_t last_ns;           /* time of its latest record */
	int exit_code;             /* finish: -1 when killed by a signal */
	char metrics[96];          /* "loss=0.25 acc=0.9": the first of its latest metrics */
};

/* A string-keyed open hash table of small payloads (the seen seqs of each
 * log, the files read). */
struct sb_watch_map {
	char **keys;
	void **vals;
	size_t cap, n;
};

struct sb_watch_item {
	struct sb_watch_event ev;
	struct sb_log_result *own;   /* freed when the queue is empty */
	char *path;                  /* owned */
	char *detail;                /* owned */
};

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
	/* the files read: path -> struct sb_watch_file */
	struct sb_watch_map files;
	/* each log's records given: identity -> struct sb_watch_seen */
	struct sb_watch_map seen;
	struct sb_watch_item *q;
	size_t qhead, qlen, qcap;
	struct sb_watch_item cur;      /* the event last given */
	double t0, next_scan, next_status, scan_cost;
	bool scanned, final_scan, finish_seen;
	const char *done;
	struct sb_status *status;
	struct sb_watch_counts counts;
	struct sb_watch_child *children;
	size_t nchildren;
	char *zbuf;                    /* a received message */
};

/* watch_view.c: the child state of the live view, from a given record. */
void sb_watch_view_note(struct sb_watch *w, const struct sb_log_record *rec);

#endif
