/* The local index (docs/benchmark-dir.md, "The local index"): an SQLite database of the benchmarks known,
 * the verified heads of each log (for rollback detection) and cached result
 * file hashes.  It is only an index: everything in it can be rebuilt from
 * benchmark directories, so losing it loses nothing, and a corrupt one is
 * moved aside and recreated rather than being fatal.
 *
 * Its location is the caller's (sbctl's: sb_ctx_load_env, from SB_INDEX,
 * XDG_STATE_HOME or HOME).  The
 * database uses the rollback journal (no WAL) and SQLite's default unix VFS:
 * fcntl locks, released by the kernel when their holder dies, so a process
 * killed inside a transaction blocks nobody, and its hot journal is rolled
 * back by the next reader.  On a file system without fcntl locks the open
 * fails at once with a message saying so (docs/benchmark-dir.md, "The local
 * index"). */
#ifndef SB_CTL_INDEX_H
#define SB_CTL_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbench/error.h"
#include "sbench/status.h"

struct sb_index;

struct sb_index_bench {
	char *name;
	char *digest; /* lowercase hex */
	char *dir;    /* absolute path of the benchmark directory */
	int64_t created_ns;
	char *tag;    /* NULL when none */
	int64_t children;
	/* the counts of the last status computed (read back only) */
	bool has_counts;
	int64_t counts[SB_CLASS_COUNT];
	int64_t counts_ns;   /* when that status was computed */
};

/* Opens (creating it and its directory when needed) the index at path (the
 * caller's choice, e.g. sb_ctx_index: the library picks no default).  A file that is not a usable index
 * is renamed to PATH.corrupt-<time> and a new one created; *rebuilt (may be
 * NULL) is set to 1 then. */
struct sb_index *sb_index_open(const char *path, int *rebuilt, struct sb_error *err);

/* Threads: the head and hash calls (sb_index_get_head, _put_head,
 * _get_hash, _put_hash) may be made by several threads at once on one
 * index (they take its lock in turn; their statements are prepared once
 * per index and reused) when sb_index_shareable() is true, i.e. SQLite
 * was built thread-safe.  Every other call is the opening thread's, made
 * while no other thread uses the index. */
bool sb_index_shareable(void);

/* Closes the index; NULL is fine. */
void sb_index_close(struct sb_index *idx);

/* Records (or updates the directory, tag and children of) a benchmark;
 * its last counts stay. */
int sb_index_put_bench(struct sb_index *idx, const struct sb_index_bench *b,
		       struct sb_error *err);

/* Looks a benchmark up by exact name (the latest of that name: the newest
 * creation time, then the greatest digest and directory; *named, when not
 * NULL, gets how many directories have that name), else by a digest prefix
 * of at least 4 hex characters.  Returns 1 and fills *out when one is
 * found, 0 when none is, -1 when a digest prefix matches several
 * directories (err lists them: two copies of one benchmark are two) or on
 * error.
 * Free *out with sb_index_bench_release. */
int sb_index_find_bench(struct sb_index *idx, const char *query, struct sb_index_bench *out,
			size_t *named, struct sb_error *err);

/* Removes the benchmark directory dir from the index (the directory is
 * not touched; its verified log heads stay, for rollback detection should
 * it be indexed again).  1 when it was known, 0 when not. */
int sb_index_forget_bench(struct sb_index *idx, const char *dir, struct sb_error *err);

/* Remembers the counts of a status of the benchmark in dir
 * (counts[0..SB_CLASS_COUNT)), computed at time_ns. */
int sb_index_put_counts(struct sb_index *idx, const char *dir, const size_t *counts,
			int64_t time_ns, struct sb_error *err);

/* Calls fn for every benchmark, ordered by creation time then digest;
 * stops early and returns fn's value when it is non-zero. */
int sb_index_each_bench(struct sb_index *idx,
			int (*fn)(const struct sb_index_bench *b, void *arg),
			void *arg, struct sb_error *err);

void sb_index_bench_release(struct sb_index_bench *b);

/* The verified head of a log: its record count and the tag of its last
 * record, keyed by the benchmark directory and the log's path relative to
 * it (two copies of a benchmark have logs of the same names and their own
 * heads).  get returns 1 when known, 0 when not, -1 on error. */
int sb_index_get_head(struct sb_index *idx, const char *dir, const char *log,
		      uint64_t *count, uint8_t tag[32], struct sb_error *err);
int sb_index_put_head(struct sb_index *idx, const char *dir, const char *log,
		      uint64_t count, const uint8_t tag[32], struct sb_error *err);

/* Cached SHA-256 of a result file, valid while its size, mtime, ctime and
 * inode are unchanged.  get returns 1 with sha256 filled on a valid hit. */
struct sb_index_file_stamp {
	int64_t size, mtime_ns, ctime_ns;
	uint64_t ino;
};
int sb_index_get_hash(struct sb_index *idx, const char *path,
		      const struct sb_index_file_stamp *st, uint8_t sha256[32],
		      struct sb_error *err);
int sb_index_put_hash(struct sb_index *idx, const char *path,
		      const struct sb_index_file_stamp *st, const uint8_t sha256[32],
		      struct sb_error *err);

/* Groups many writes into one transaction (one journal sync instead of one
 * per write).  commit on a NULL index, or without begin, does nothing. */
int sb_index_begin(struct sb_index *idx, struct sb_error *err);
int sb_index_commit(struct sb_index *idx, struct sb_error *err);

/* Forgets every benchmark (heads and cached hashes stay). */
int sb_index_clear_benches(struct sb_index *idx, struct sb_error *err);

#endif
