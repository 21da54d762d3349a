#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/fsutil.h"
#include "bench/index_private.h"

/* SQLite's default VFS ("unix"): POSIX fcntl advisory locks, which the
 * kernel releases when their holder dies, however it dies.  (The
 * "unix-dotfile" VFS used before left its lock directory behind when a
 * process was killed inside a transaction; such a stale INDEX.lock
 * directory is ignored now: nothing looks at it.)  A journal left by a
 * killed writer is hot: the next process to read the index rolls it back. */
#define INDEX_VFS NULL
/* How long to wait for another live sbctl's transaction. */
#define BUSY_TIMEOUT_MS 10000

/* The statements run once per log or result (status reads a million logs):
 * prepared at their first use on the connection, then reset and rebound for
 * each, finalized at close. */
enum cached_stmt { Q_GET_HEAD, Q_PUT_HEAD, Q_GET_HASH, Q_PUT_HASH, Q_COUNT };

static const char *const cached_sql[Q_COUNT] = {
	[Q_GET_HEAD] = "SELECT count, tag FROM loghead WHERE dir = ?1 AND log = ?2",
	[Q_PUT_HEAD] = "INSERT OR REPLACE INTO loghead(dir, log, count, tag) VALUES(?1, ?2, ?3, ?4)",
	[Q_GET_HASH] = "SELECT sha256 FROM filehash WHERE path = ?1 AND size = ?2 AND mtime_ns = ?3"
		       " AND ctime_ns = ?4 AND ino = ?5",
	[Q_PUT_HASH] = "INSERT OR REPLACE INTO filehash(path, size, mtime_ns, ctime_ns, ino, sha256)"
		       " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
};

struct sb_index {
	sqlite3 *db;
	int in_tx;
	/* held around every use of db by the head and hash calls, which the
	 * threads of one status share (the connection is opened NOMUTEX: SQLite
	 * allows one thread at a time on it) */
	pthread_mutex_t lock;
	sqlite3_stmt *cached[Q_COUNT];
};

static const char schema[] =
	"PRAGMA journal_mode=DELETE;"
	/* one row per benchmark directory: two copies of a benchmark (the same
	 * digest under two roots) are two rows, each with its own heads */
	"CREATE TABLE IF NOT EXISTS benchdir("
	" dir TEXT PRIMARY KEY, digest TEXT NOT NULL, name TEXT NOT NULL,"
	" created_ns INTEGER NOT NULL, tag TEXT, children INTEGER NOT NULL DEFAULT 0,"
	" counts TEXT, counts_ns INTEGER);"
	"CREATE INDEX IF NOT EXISTS benchdir_name ON benchdir(name);"
	"CREATE INDEX IF NOT EXISTS benchdir_digest ON benchdir(digest);"
	"CREATE TABLE IF NOT EXISTS loghead("
	" dir TEXT NOT NULL, log TEXT NOT NULL, count INTEGER NOT NULL,"
	" tag BLOB NOT NULL, PRIMARY KEY(dir, log));"
	"CREATE TABLE IF NOT EXISTS filehash("
	" path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,"
	" ctime_ns INTEGER NOT NULL, ino INTEGER NOT NULL, sha256 BLOB NOT NULL);";

/* An index of an older sbctl kept one row per digest (bench, bench_meta)
 * and heads by digest (head): its rows move to the tables above, each
 * under the directory its row named, once. */
static const char migrate_sql[] =
	"BEGIN IMMEDIATE;"
	"CREATE TABLE IF NOT EXISTS bench_meta(digest TEXT PRIMARY KEY, tag TEXT,"
	" children INTEGER NOT NULL DEFAULT 0, counts TEXT, counts_ns INTEGER);"
	"CREATE TABLE IF NOT EXISTS head(bench TEXT NOT NULL, log TEXT NOT NULL,"
	" count INTEGER NOT NULL, tag BLOB NOT NULL, PRIMARY KEY(bench, log));"
	"INSERT OR IGNORE INTO benchdir(dir, digest, name, created_ns, tag, children, counts,"
	" counts_ns) SELECT b.dir, b.digest, b.name, b.created_ns, m.tag, COALESCE(m.children, 0),"
	" m.counts, m.counts_ns FROM bench b LEFT JOIN bench_meta m ON m.digest = b.digest;"
	"INSERT OR IGNORE INTO loghead(dir, log, count, tag)"
	" SELECT b.dir, h.log, h.count, h.tag FROM head h JOIN bench b ON b.digest = h.bench;"
	"DROP TABLE head; DROP TABLE bench_meta; DROP TABLE bench;"
	"COMMIT;";

static int db_error(sqlite3 *db, struct sb_error *err, const char *what)
{
	return sb_errorf(err, "local index: %s: %s", what, sqlite3_errmsg(db));
}

/* Whether the file system of path gives fcntl locks: SQLite reads ENOLCK
 * as "busy" (a transient NFS error) and would retry for the whole busy
 * timeout before failing with "database is locked", so ask first.  F_GETLK
 * takes no lock; it runs once per process, before any connection of this
 * process holds locks (closing an fd drops the process's locks on the file). */
static int check_locks(const char *path, struct sb_error *err)
{
	static int checked;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd, rc = 0, e;

	if (checked)
		return 0;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EACCES || errno == EROFS)) /* SQLite may still read it */
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return sb_errorf(err, "cannot open local index '%s': %s", path, strerror(errno));
	if (fcntl(fd, F_GETLK, &fl) < 0) {
		e = errno;
		if (e == ENOLCK || e == ENOSYS || e == EOPNOTSUPP || e == EINVAL)
			rc = sb_errorf(err, "cannot use local index '%s': its file system gives no fcntl "
				       "locks (%s); put the index on a local disk (SB_INDEX or "
				       "XDG_STATE_HOME); commands go on without it where they can",
				       path, strerror(e));
		else
			rc = sb_errorf(err, "cannot lock local index '%s': %s", path, strerror(e));
	}
	close(fd);
	checked = rc == 0;
	return rc;
}

/* Whether the index still has an older sbctl's table of benchmarks. */
static bool has_old_tables(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	bool has = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'bench'",
			       -1, &st, NULL) == SQLITE_OK)
		has = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return has;
}

static int try_open(const char *path, sqlite3 **out, int *corrupt, struct sb_error *err)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				 SQLITE_OPEN_NOMUTEX, INDEX_VFS);

	*corrupt = 0;
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
		rc = sqlite3_exec(db, schema, NULL, NULL, NULL);
	}
	if (rc == SQLITE_OK && has_old_tables(db) &&
	    (rc = sqlite3_exec(db, migrate_sql, NULL, NULL, NULL)) != SQLITE_OK)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	if (rc == SQLITE_OK) {
		*out = db;
		return 0;
	}
	*corrupt = rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT;
	if (rc == SQLITE_BUSY)
		sb_errorf(err, "cannot open local index '%s': another sbctl has held it for over "
			  "%d s (a live process: a killed one releases it at once)", path,
			  BUSY_TIMEOUT_MS / 1000);
	else
		sb_errorf(err, "cannot open local index '%s': %s", path,
			  db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
	sqlite3_close(db);
	return -1;
}

struct sb_index *sb_index_open(const char *path, int *rebuilt, struct sb_error *err)
{
	char dir[4096], aside[4200];
	struct sb_index *idx;
	sqlite3 *db;
	int corrupt;
	char *slash;

	if (rebuilt)
		*rebuilt = 0;
	if (path == NULL || *path == '\0') {
		sb_error_set(err, SB_ERR_INPUT, "no local index is configured (SB_INDEX, "
			     "XDG_STATE_HOME or HOME names where it lives)");
		return NULL;
	}
	if (strlen(path) >= sizeof(dir)) {
		sb_errorf(err, "cannot open local index '%.64s...': path too long (limit %zu bytes)",
			  path, sizeof(dir) - 1);
		return NULL;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (sb_fs_mkdirs(dir, 0700, err) < 0)
			return NULL;
	}
	if (check_locks(path, err) < 0)
		return NULL;
	if (try_open(path, &db, &corrupt, err) < 0) {
		if (!corrupt)
			return NULL;
		snprintf(aside, sizeof(aside), "%s.corrupt-%lld", path, (long long)time(NULL));
		if (rename(path, aside) < 0) {
			sb_errorf(err, "local index '%s' is corrupt and cannot be moved aside: %s",
				  path, strerror(errno));
			return NULL;
		}
		if (try_open(path, &db, &corrupt, err) < 0)
			return NULL;
		if (rebuilt)
			*rebuilt = 1;
	}
	idx = calloc(1, sizeof(*idx));
	if (idx == NULL) {
		sqlite3_close(db);
		sb_error_set(err, SB_ERR_NOMEM, "local index: out of memory");
		return NULL;
	}
	idx->db = db;
	pthread_mutex_init(&idx->lock, NULL);
	return idx;
}

bool sb_index_shareable(void)
{
	return sqlite3_threadsafe() != 0;
}

void sb_index_close(struct sb_index *idx)
{
	if (idx == NULL)
		return;
	for (int i = 0; i < Q_COUNT; i++)
		sqlite3_finalize(idx->cached[i]);
	if (idx->in_tx)
		sqlite3_exec(idx->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(idx->db);
	pthread_mutex_destroy(&idx->lock);
	free(idx);
}

static sqlite3_stmt *prepare(struct sb_index *idx, const char *sql, struct sb_error *err)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(idx->db, sql, -1, &st, NULL) != SQLITE_OK) {
		db_error(idx->db, err, "prepare");
		return NULL;
	}
	return st;
}

/* The cached statement q, reset and unbound, with idx->lock held; NULL
 * (lock released, err set) when it cannot be prepared.  Give it back with
 * put_cached. */
static sqlite3_stmt *get_cached(struct sb_index *idx, enum cached_stmt q, struct sb_error *err)
{
	pthread_mutex_lock(&idx->lock);
	if (idx->cached[q] == NULL &&
	    sqlite3_prepare_v2(idx->db, cached_sql[q], -1, &idx->cached[q], NULL) != SQLITE_OK) {
		db_error(idx->db, err, "prepare");
		idx->cached[q] = NULL;
		pthread_mutex_unlock(&idx->lock);
		return NULL;
	}
	return idx->cached[q];
}

static void put_cached(struct sb_index *idx, sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	pthread_mutex_unlock(&idx->lock);
}

/* Steps a cached statement that returns no rows and gives it back. */
static int exec_cached(struct sb_index *idx, sqlite3_stmt *st, struct sb_error *err)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_DONE)
		db_error(idx->db, err, "write");
	put_cached(idx, st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Steps a statement that returns no rows, then finalizes it. */
static int exec_done(struct sb_index *idx, sqlite3_stmt *st, struct sb_error *err)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(idx->db, err, "write");
	return 0;
}

int sb_index_put_bench(struct sb_index *idx, const struct sb_index_bench *b,
		       struct sb_error *err)
{
	sqlite3_stmt *st = prepare(idx,
		"INSERT INTO benchdir(dir, digest, name, created_ns, tag, children)"
		" VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(dir) DO UPDATE SET"
		" digest = excluded.digest, name = excluded.name, created_ns = excluded.created_ns,"
		" tag = excluded.tag, children = excluded.children,"
		" counts = CASE WHEN digest = excluded.digest THEN counts END,"
		" counts_ns = CASE WHEN digest = excluded.digest THEN counts_ns END", err);

	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, b->dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, b->digest, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, b->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, b->created_ns);
	if (b->tag)
		sqlite3_bind_text(st, 5, b->tag, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 5);
	sqlite3_bind_int64(st, 6, b->children);
	return exec_done(idx, st, err);
}

int sb_index_put_counts(struct sb_index *idx, const char *dir, const size_t *counts,
			int64_t time_ns, struct sb_error *err)
{
	char text[SB_CLASS_COUNT * 24 + 1];
	size_t len = 0;
	sqlite3_stmt *st;

	for (int c = 0; c < SB_CLASS_COUNT; c++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%zu", c ? " " : "", counts[c]);
	st = prepare(idx, "UPDATE benchdir SET counts = ?2, counts_ns = ?3 WHERE dir = ?1", err);
	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, time_ns);
	return exec_done(idx, st, err);
}

int sb_index_forget_bench(struct sb_index *idx, const char *dir, struct sb_error *err)
{
	sqlite3_stmt *st = prepare(idx, "DELETE FROM benchdir WHERE dir = ?1", err);

	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, dir, -1, SQLITE_STATIC);
	if (exec_done(idx, st, err) < 0)
		return -1;
	return sqlite3_changes(idx->db) > 0;
}

/* The columns every lookup selects, in row_to_bench's order. */
#define BENCH_COLUMNS "b.digest, b.name, b.dir, b.created_ns, b.tag, b.children, b.counts, b.counts_ns" \
	" FROM benchdir b"

static char *dup_col(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	return strdup(t ? (const char *)t : "");
}

/* "N N N ..." of sb_index_put_counts into b->counts; a text of another
 * length (another sbctl's classes) is no counts. */
static void parse_counts(const char *text, struct sb_index_bench *b)
{
	const char *p = text;
	char *end;
	int c;

	b->has_counts = false;
	for (c = 0; c < SB_CLASS_COUNT; c++) {
		long long v = strtoll(p, &end, 10);
		if (end == p || v < 0)
			return;
		b->counts[c] = v;
		p = end;
	}
	b->has_counts = *p == '\0';
}

static int row_to_bench(sqlite3_stmt *st, struct sb_index_bench *b)
{
	const unsigned char *counts = sqlite3_column_text(st, 6);

	memset(b, 0, sizeof(*b));
	b->digest = dup_col(st, 0);
	b->name = dup_col(st, 1);
	b->dir = dup_col(st, 2);
	b->created_ns = sqlite3_column_int64(st, 3);
	if (sqlite3_column_type(st, 4) != SQLITE_NULL)
		b->tag = dup_col(st, 4);
	b->children = sqlite3_column_int64(st, 5);
	if (counts)
		parse_counts((const char *)counts, b);
	b->counts_ns = sqlite3_column_int64(st, 7);
	if (!b->digest || !b->name || !b->dir || (sqlite3_column_type(st, 4) != SQLITE_NULL && !b->tag)) {
		sb_index_bench_release(b);
		return -1;
	}
	return 0;
}

void sb_index_bench_release(struct sb_index_bench *b)
{
	if (b == NULL)
		return;
	free(b->name);
	free(b->digest);
	free(b->dir);
	free(b->tag);
	b->name = b->digest = b->dir = b->tag = NULL;
}

static int is_hex_prefix(const char *s)
{
	size_t n = strlen(s);

	if (n < 4 || n > 64)
		return 0;
	return strspn(s, "0123456789abcdef") == n;
}

/* The latest benchmark named query: 1 (*out filled, *named the number of
 * that name), 0 when none is, -1 on error. */
static int find_by_name(struct sb_index *idx, const char *query, struct sb_index_bench *out,
			size_t *named, struct sb_error *err)
{
	sqlite3_stmt *st = prepare(idx, "SELECT " BENCH_COLUMNS " WHERE b.name = ?1"
				   " ORDER BY b.created_ns DESC, b.digest DESC, b.dir DESC", err);
	int rc;

	*named = 0;
	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, query, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*named == 0 && row_to_bench(st, out) < 0) {
			sqlite3_finalize(st);
			return sb_error_set(err, SB_ERR_NOMEM, "local index: out of memory");
		}
		(*named)++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		sb_index_bench_release(out);
		return db_error(idx->db, err, "lookup");
	}
	return *named > 0;
}

int sb_index_find_bench(struct sb_index *idx, const char *query, struct sb_index_bench *out,
			size_t *named, struct sb_error *err)
{
	char *names = NULL;
	size_t nlen = 0, nnamed;
	int found = 0, rc;
	sqlite3_stmt *st;
	FILE *list;

	memset(out, 0, sizeof(*out));
	if ((rc = find_by_name(idx, query, out, named ? named : &nnamed, err)) != 0)
		return rc;
	if (!is_hex_prefix(query))
		return 0;
	st = prepare(idx, "SELECT " BENCH_COLUMNS " WHERE substr(b.digest, 1, length(?1)) = ?1"
		     " ORDER BY b.created_ns, b.digest, b.dir", err);
	if (st == NULL)
		return -1;
	if ((list = open_memstream(&names, &nlen)) == NULL) {
		sqlite3_finalize(st);
		return sb_error_set(err, SB_ERR_NOMEM, "local index: out of memory");
	}
	sqlite3_bind_text(st, 1, query, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (found == 0 && row_to_bench(st, out) < 0) {
			sqlite3_finalize(st);
			fclose(list);
			free(names);
			return sb_error_set(err, SB_ERR_NOMEM, "local index: out of memory");
		}
		fprintf(list, "%s%s-%.12s in %s", found ? ", " : "", (const char *)sqlite3_column_text(st, 1),
			(const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 2));
		found++;
	}
	sqlite3_finalize(st);
	if (fclose(list) != 0)
		names = NULL;
	if (rc != SQLITE_DONE) {
		sb_index_bench_release(out);
		free(names);
		return db_error(idx->db, err, "lookup");
	}
	if (found > 1) {
		sb_index_bench_release(out);
		rc = sb_error_set(err, SB_ERR_INPUT, "digest prefix '%s' matches %d benchmark "
				  "directories (%s): give a "
			       "longer one or the benchmark directory", query, found,
			       names ? names : "(out of memory)");
		free(names);
		return rc;
	}
	free(names);
	return found;
}

int sb_index_each_bench(struct sb_index *idx,
			int (*fn)(const struct sb_index_bench *b, void *arg),
			void *arg, struct sb_error *err)
{
	sqlite3_stmt *st = prepare(idx,
		"SELECT " BENCH_COLUMNS " ORDER BY b.created_ns, b.digest, b.dir", err);
	int rc, stop = 0;

	if (st == NULL)
		return -1;
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct sb_index_bench b;
		if (row_to_bench(st, &b) < 0) {
			sqlite3_finalize(st);
			return sb_error_set(err, SB_ERR_NOMEM, "local index: out of memory");
		}
		stop = fn(&b, arg);
		sb_index_bench_release(&b);
	}
	if (!stop && rc != SQLITE_DONE) {
		sqlite3_finalize(st);
		return db_error(idx->db, err, "list");
	}
	sqlite3_finalize(st);
	return stop;
}

/* Steps a cached SELECT of at most one row and gives it back: 1 when the row has a
 * 32-byte blob in column col (copied to out; column 0's integer to *first
 * when first is not NULL), 0 when there is no such row, -1 on error. */
static int step_blob32(struct sb_index *idx, sqlite3_stmt *st, int col, uint8_t out[32],
		       sqlite3_int64 *first, const char *what, struct sb_error *err)
{
	int rc = sqlite3_step(st), found = 0;

	if (rc == SQLITE_ROW && sqlite3_column_bytes(st, col) == 32) {
		if (first)
			*first = sqlite3_column_int64(st, 0);
		memcpy(out, sqlite3_column_blob(st, col), 32);
		found = 1;
	} else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		found = db_error(idx->db, err, what);
	}
	put_cached(idx, st);
	return found;
}

int sb_index_get_head(struct sb_index *idx, const char *bench, const char *log,
		      uint64_t *count, uint8_t tag[32], struct sb_error *err)
{
	sqlite3_stmt *st = get_cached(idx, Q_GET_HEAD, err);

	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, bench, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, log, -1, SQLITE_STATIC);
	return step_blob32(idx, st, 1, tag, (sqlite3_int64 *)count, "read head", err);
}

int sb_index_put_head(struct sb_index *idx, const char *bench, const char *log,
		      uint64_t count, const uint8_t tag[32], struct sb_error *err)
{
	sqlite3_stmt *st = get_cached(idx, Q_PUT_HEAD, err);

	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, bench, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, log, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)count);
	sqlite3_bind_blob(st, 4, tag, 32, SQLITE_STATIC);
	return exec_cached(idx, st, err);
}

int sb_index_get_hash(struct sb_index *idx, const char *path,
		      const struct sb_index_file_stamp *s, uint8_t sha256[32],
		      struct sb_error *err)
{
	sqlite3_stmt *st = get_cached(idx, Q_GET_HASH, err);

	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, s->size);
	sqlite3_bind_int64(st, 3, s->mtime_ns);
	sqlite3_bind_int64(st, 4, s->ctime_ns);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)s->ino);
	return step_blob32(idx, st, 0, sha256, NULL, "read file hash", err);
}

int sb_index_put_hash(struct sb_index *idx, const char *path,
		      const struct sb_index_file_stamp *s, const uint8_t sha256[32],
		      struct sb_error *err)
{
	sqlite3_stmt *st = get_cached(idx, Q_PUT_HASH, err);

	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, s->size);
	sqlite3_bind_int64(st, 3, s->mtime_ns);
	sqlite3_bind_int64(st, 4, s->ctime_ns);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)s->ino);
	sqlite3_bind_blob(st, 6, sha256, 32, SQLITE_STATIC);
	return exec_cached(idx, st, err);
}

int sb_index_clear_benches(struct sb_index *idx, struct sb_error *err)
{
	sqlite3_stmt *st = prepare(idx, "DELETE FROM benchdir", err);

	return st ? exec_done(idx, st, err) : -1;
}

int sb_index_begin(struct sb_index *idx, struct sb_error *err)
{
	if (idx == NULL || idx->in_tx)
		return 0;
	if (sqlite3_exec(idx->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_error(idx->db, err, "begin");
	idx->in_tx = 1;
	return 0;
}

int sb_index_commit(struct sb_index *idx, struct sb_error *err)
{
	if (idx == NULL || !idx->in_tx)
		return 0;
	idx->in_tx = 0;
	if (sqlite3_exec(idx->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return db_error(idx->db, err, "commit");
	return 0;
}
