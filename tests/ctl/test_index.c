/* The local SQLite index: lookups, heads, cached hashes, corrupt rebuild. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "bench/index_private.h"
#include "killed_writer.h"

static char dir[64], path[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sb-index.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/state/sbench/index.sqlite", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void put_in(struct sb_index *idx, const char *name, const char *digest, const char *where,
		   int64_t t)
{
	struct sb_index_bench b = { .name = (char *)name, .digest = (char *)digest, .dir = (char *)where,
				    .created_ns = t };
	struct sb_error err;

	assert_int_equal(sb_index_put_bench(idx, &b, &err), 0);
}

/* A benchmark in the directory /x/<digest>. */
static void put(struct sb_index *idx, const char *name, const char *digest, int64_t t)
{
	char where[64];

	snprintf(where, sizeof(where), "/x/%s", digest);
	put_in(idx, name, digest, where, t);
}

static void test_find_by_name_and_digest_prefix(void **state)
{
	struct sb_index_bench b;
	size_t named = 0;
	struct sb_error err;
	struct sb_index *idx;
	int rebuilt = -1;

	(void)state;
	idx = sb_index_open(path, &rebuilt, &err);
	assert_non_null(idx);
	assert_int_equal(rebuilt, 0);
	put(idx, "sweep", "aaaa1111", 2);
	put(idx, "sweep", "aaaa2222", 1);
	put(idx, "other", "bbbb0000", 3);

	assert_int_equal(sb_index_find_bench(idx, "other", &b, NULL, &err), 1);
	assert_string_equal(b.digest, "bbbb0000");
	sb_index_bench_release(&b);
	assert_int_equal(sb_index_find_bench(idx, "aaaa2", &b, NULL, &err), 1);
	assert_string_equal(b.name, "sweep");
	assert_int_equal(b.created_ns, 1);
	sb_index_bench_release(&b);
	assert_int_equal(sb_index_find_bench(idx, "nothing", &b, NULL, &err), 0);
	assert_int_equal(sb_index_find_bench(idx, "aaa", &b, NULL, &err), 0); /* too short a prefix */

	/* a name several benchmarks have is the latest of them */
	assert_int_equal(sb_index_find_bench(idx, "sweep", &b, &named, &err), 1);
	assert_string_equal(b.digest, "aaaa1111");
	assert_int_equal(named, 2);
	sb_index_bench_release(&b);
	/* a digest prefix that matches several is no choice */
	assert_int_equal(sb_index_find_bench(idx, "aaaa", &b, NULL, &err), -1);
	assert_string_equal(err.msg, "digest prefix 'aaaa' matches 2 benchmark directories "
			    "(sweep-aaaa2222 in /x/aaaa2222, sweep-aaaa1111 in /x/aaaa1111): give a "
			    "longer one or the benchmark directory");
	/* forgotten: gone from the index, the other of the name is the latest */
	assert_int_equal(sb_index_forget_bench(idx, "/x/aaaa1111", &err), 1);
	assert_int_equal(sb_index_forget_bench(idx, "/x/aaaa1111", &err), 0);
	assert_int_equal(sb_index_find_bench(idx, "sweep", &b, &named, &err), 1);
	assert_string_equal(b.digest, "aaaa2222");
	assert_int_equal(named, 1);
	sb_index_bench_release(&b);
	sb_index_close(idx);
}

/* Two copies of one benchmark (one digest, two directories) are two rows,
 * each with its own heads; opening one never moves the other's row. */
static void test_copies_are_rows_of_their_own(void **state)
{
	struct sb_error err;
	struct sb_index *idx = sb_index_open(path, NULL, &err);
	struct sb_index_bench b;
	uint8_t tag[32], got[32];
	uint64_t count = 0;
	size_t named = 0;

	(void)state;
	put_in(idx, "twin", "eeee0000", "/root1/twin-eeee", 1);
	put_in(idx, "twin", "eeee0000", "/root2/twin-eeee", 2);
	put_in(idx, "twin", "eeee0000", "/root1/twin-eeee", 1); /* opened again: the same row */
	assert_int_equal(sb_index_find_bench(idx, "twin", &b, &named, &err), 1);
	assert_int_equal(named, 2);
	assert_string_equal(b.dir, "/root2/twin-eeee");
	sb_index_bench_release(&b);
	assert_int_equal(sb_index_find_bench(idx, "eeee", &b, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "in /root1/twin-eeee, twin-eeee0000 in /root2/twin-eeee"));
	memset(tag, 3, sizeof(tag));
	assert_int_equal(sb_index_put_head(idx, "/root1/twin-eeee", "events/0.log", 4, tag, &err), 0);
	assert_int_equal(sb_index_get_head(idx, "/root2/twin-eeee", "events/0.log", &count, got, &err), 0);
	assert_int_equal(sb_index_get_head(idx, "/root1/twin-eeee", "events/0.log", &count, got, &err), 1);
	assert_int_equal(count, 4);
	sb_index_close(idx);
}

/* An index of an older sbctl (a row per digest, heads by digest) is moved
 * to rows per directory at the first open, its heads with it. */
static void test_older_index_is_migrated(void **state)
{
	char old[512], cmd[1024];
	struct sb_error err;
	struct sb_index *idx;
	struct sb_index_bench b;
	uint8_t got[32];
	uint64_t count = 0;
	sqlite3 *db;

	(void)state;
	snprintf(old, sizeof(old), "%s/old.sqlite", dir);
	assert_int_equal(sqlite3_open(old, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
		"CREATE TABLE bench(digest TEXT PRIMARY KEY, name TEXT NOT NULL, dir TEXT NOT NULL,"
		" created_ns INTEGER NOT NULL);"
		"CREATE TABLE bench_meta(digest TEXT PRIMARY KEY, tag TEXT, children INTEGER NOT NULL"
		" DEFAULT 0, counts TEXT, counts_ns INTEGER);"
		"CREATE TABLE head(bench TEXT NOT NULL, log TEXT NOT NULL, count INTEGER NOT NULL,"
		" tag BLOB NOT NULL, PRIMARY KEY(bench, log));"
		"INSERT INTO bench VALUES('abcd0001', 'old', '/r/old-abcd', 7);"
		"INSERT INTO bench_meta VALUES('abcd0001', 't1', 3, NULL, NULL);"
		"INSERT INTO head VALUES('abcd0001', 'events/0.log', 9, zeroblob(32));",
		NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	idx = sb_index_open(old, NULL, &err);
	assert_non_null(idx);
	assert_int_equal(sb_index_find_bench(idx, "old", &b, NULL, &err), 1);
	assert_string_equal(b.dir, "/r/old-abcd");
	assert_string_equal(b.tag, "t1");
	assert_int_equal(b.children, 3);
	sb_index_bench_release(&b);
	assert_int_equal(sb_index_get_head(idx, "/r/old-abcd", "events/0.log", &count, got, &err), 1);
	assert_int_equal(count, 9);
	sb_index_close(idx);
	idx = sb_index_open(old, NULL, &err); /* once: a second open finds nothing to move */
	assert_non_null(idx);
	assert_int_equal(sb_index_find_bench(idx, "old", &b, NULL, &err), 1);
	sb_index_bench_release(&b);
	sb_index_close(idx);
	snprintf(cmd, sizeof(cmd), "rm -f '%s'", old);
	assert_int_equal(system(cmd), 0);
}

static int collect(const struct sb_index_bench *b, void *arg)
{
	strcat(arg, b->digest);
	strcat(arg, " ");
	return 0;
}

static void test_each_in_creation_order_and_reopen(void **state)
{
	struct sb_error err;
	struct sb_index *idx = sb_index_open(path, NULL, &err);
	char seen[256] = "";

	(void)state;
	put(idx, "a", "cccc", 30);
	put(idx, "b", "dddd", 10);
	sb_index_close(idx);
	idx = sb_index_open(path, NULL, &err);
	assert_int_equal(sb_index_each_bench(idx, collect, seen, &err), 0);
	assert_string_equal(seen, "dddd cccc ");
	sb_index_close(idx);
}

static void test_heads_and_hashes(void **state)
{
	struct sb_error err;
	struct sb_index *idx = sb_index_open(path, NULL, &err);
	uint8_t tag[32], got[32];
	uint64_t count = 0;
	struct sb_index_file_stamp st = { 10, 20, 30, 40 };

	(void)state;
	memset(tag, 7, sizeof(tag));
	assert_int_equal(sb_index_get_head(idx, "d", "events/0.log", &count, got, &err), 0);
	assert_int_equal(sb_index_put_head(idx, "d", "events/0.log", 5, tag, &err), 0);
	assert_int_equal(sb_index_get_head(idx, "d", "events/0.log", &count, got, &err), 1);
	assert_int_equal(count, 5);
	assert_memory_equal(tag, got, 32);

	assert_int_equal(sb_index_put_hash(idx, "/r/out", &st, tag, &err), 0);
	assert_int_equal(sb_index_get_hash(idx, "/r/out", &st, got, &err), 1);
	st.ctime_ns++; /* any change of the stamp invalidates the cached hash */
	assert_int_equal(sb_index_get_hash(idx, "/r/out", &st, got, &err), 0);
	sb_index_close(idx);
}

static void test_corrupt_index_is_rebuilt(void **state)
{
	struct sb_error err;
	struct sb_index *idx = sb_index_open(path, NULL, &err);
	struct sb_index_bench b;
	int rebuilt = 0;
	FILE *f;

	(void)state;
	put(idx, "a", "eeee", 1);
	sb_index_close(idx);
	f = fopen(path, "w");
	fputs("this is not an sqlite database, just garbage bytes of some length.....", f);
	fclose(f);
	idx = sb_index_open(path, &rebuilt, &err);
	assert_non_null(idx);
	assert_int_equal(rebuilt, 1);
	assert_int_equal(sb_index_find_bench(idx, "a", &b, NULL, &err), 0);
	sb_index_close(idx);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *integrity(const char *p)
{
	static char out[256];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;

	snprintf(out, sizeof(out), "cannot check");
	if (sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		snprintf(out, sizeof(out), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

/* A process killed with SIGKILL inside a write transaction leaves no lock
 * behind (fcntl locks die with it; the unix-dotfile VFS left a lock
 * directory, and every later open waited 10 s and failed with "database is
 * locked"), and its hot journal is rolled back by the next open: what it
 * committed before is there, what it wrote since is not. */
static void test_killed_writer_blocks_nobody(void **state)
{
	char journal[200], lockdir[200];
	struct sb_index_bench b;
	struct sb_error err;
	struct sb_index *idx;
	uint8_t tag[32];
	struct stat st;
	double t0;

	(void)state;
	idx = sb_index_open(path, NULL, &err);
	assert_non_null(idx);
	put(idx, "kept", "aaaa0000", 1);
	sb_index_close(idx);
	assert_int_equal(kill_writer_inside_tx(path), 0);
	snprintf(journal, sizeof(journal), "%s-journal", path);
	assert_int_equal(stat(journal, &st), 0);
	assert_true(st.st_size > 0); /* hot: the writer's pages reached the file */
	snprintf(lockdir, sizeof(lockdir), "%s.lock", path);

	t0 = now_s();
	idx = sb_index_open(path, NULL, &err);
	if (idx == NULL)
		fail_msg("open after the kill: %s", err.msg);
	assert_int_equal(sb_index_find_bench(idx, "kept", &b, NULL, &err), 1);
	sb_index_bench_release(&b);
	assert_int_equal(sb_index_find_bench(idx, "lost-0", &b, NULL, &err), 0);
	assert_int_equal(sb_index_find_bench(idx, "lost-3999", &b, NULL, &err), 0);
	memset(tag, 1, sizeof(tag));
	assert_int_equal(sb_index_begin(idx, &err), 0);
	assert_int_equal(sb_index_put_head(idx, "aaaa0000", "events/0.log", 3, tag, &err), 0);
	assert_int_equal(sb_index_commit(idx, &err), 0);
	sb_index_close(idx);
	/* no wait for a lock (the busy timeout is 10 s; allow a loaded machine) */
	assert_true(now_s() - t0 < 5);
	assert_int_equal(access(lockdir, F_OK), -1);
	assert_true(stat(journal, &st) < 0 && errno == ENOENT); /* rolled back, then gone */
	assert_string_equal(integrity(path), "ok");
}

/* The lock directory the unix-dotfile VFS of older versions left behind
 * after a kill breaks nothing: it is ignored. */
static void test_stale_dotfile_lock_is_ignored(void **state)
{
	char lockdir[200];
	struct sb_index_bench b;
	struct sb_error err;
	struct sb_index *idx;
	double t0;

	(void)state;
	idx = sb_index_open(path, NULL, &err);
	assert_non_null(idx);
	sb_index_close(idx);
	snprintf(lockdir, sizeof(lockdir), "%s.lock", path);
	assert_int_equal(mkdir(lockdir, 0700), 0);
	t0 = now_s();
	idx = sb_index_open(path, NULL, &err);
	if (idx == NULL)
		fail_msg("open with a stale lock directory: %s", err.msg);
	assert_int_equal(sb_index_begin(idx, &err), 0);
	put(idx, "a", "bbbb1111", 1);
	assert_int_equal(sb_index_commit(idx, &err), 0);
	assert_int_equal(sb_index_find_bench(idx, "a", &b, NULL, &err), 1);
	sb_index_bench_release(&b);
	sb_index_close(idx);
	assert_true(now_s() - t0 < 5);
}

/* An index path longer than the limit is an error, not a truncated path
 * (whose directory would be made somewhere else). */
static void test_long_path_is_an_error(void **state)
{
	char longp[5000];
	struct sb_error err;

	(void)state;
	memset(longp, 'x', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	assert_null(sb_index_open(longp, NULL, &err));
	assert_non_null(strstr(err.msg, "path too long"));
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_find_by_name_and_digest_prefix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_each_in_creation_order_and_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copies_are_rows_of_their_own, setup, teardown),
		cmocka_unit_test_setup_teardown(test_older_index_is_migrated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_heads_and_hashes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_index_is_rebuilt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_writer_blocks_nobody, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_dotfile_lock_is_ignored, setup, teardown),
		cmocka_unit_test(test_long_path_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
