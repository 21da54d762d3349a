/* ctl/bench/bench.c alone: the benchmark directory made in a temporary root
 * (its entries, modes and record), made again (nothing changes), completed
 * after an interrupted create, opened from a path below it, planned against
 * its digest, and refused when its ownership or modes, or its record, are
 * wrong.  No process is spawned. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench/bench_private.h"
#include "tests/ctl/benchfix.h"

static const char spec_text[] =
	"name: unit-bench\n"
	"tag: t1\n"
	"command: [true, \"{x}\"]\n"
	"parameters:\n"
	"  x: [0, 1, 2]\n";

struct fixture {
	char root[64];
	char *dir;
	char digest[65];
};

/* Plans spec_text and creates its benchmark under f->root. */
static int create(struct fixture *f, int *existed, struct sb_error *err)
{
	return sb_test_bench_create(f->root, "b.yaml", spec_text, 1000, 1764500000000000000LL,
				    &f->dir, existed, f->digest, err);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct sb_error err = { 0 };
	int existed = -1;

	assert_non_null(f);
	snprintf(f->root, sizeof(f->root), "/tmp/sbtest-bench-XXXXXX");
	assert_non_null(mkdtemp(f->root));
	assert_int_equal(create(f, &existed, &err), 0);
	assert_int_equal(existed, 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	sb_test_rmtree(f->root);
	free(f->dir);
	free(f);
	return 0;
}

static mode_t mode_of(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode;
}

static void test_layout(void **state)
{
	struct fixture *f = *state;
	char want[PATH_MAX];
	struct sb_error err = { 0 };
	char *dir;

	snprintf(want, sizeof(want), "%s/unit-bench-%.12s", f->root, f->digest);
	assert_string_equal(f->dir, want);
	dir = sb_bench_dir_for(f->root, "unit-bench", f->digest, &err);
	assert_string_equal(dir, want);
	free(dir);
	assert_true(S_ISDIR(mode_of(f->dir, "events")));
	assert_true(S_ISDIR(mode_of(f->dir, "submissions")));
	assert_true(S_ISDIR(mode_of(f->dir, "jobs")));
	assert_true(S_ISDIR(mode_of(f->dir, "runs")));
	{ /* the run directories are made by the jobs (sbagent), not here */
		char path[PATH_MAX];
		struct stat st;
		snprintf(path, sizeof(path), "%s/runs/0", f->dir);
		assert_int_equal(lstat(path, &st), -1);
	}
	assert_int_equal(mode_of(f->dir, "keys") & 077, 0);
	assert_int_equal(mode_of(f->dir, "keys/hmac.key") & 0777, 0600);
	assert_true(S_ISREG(mode_of(f->dir, SB_BENCH_RECORD)));
	assert_true(S_ISREG(mode_of(f->dir, SB_BENCH_RECORD_JSON)));
	assert_int_equal(sb_bench_check_dir(f->dir, &err), 0);
}

static void test_create_again_changes_nothing(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];
	struct sb_error err = { 0 };
	struct stat before, after;
	int existed = 0;

	snprintf(path, sizeof(path), "%s/%s", f->dir, SB_BENCH_RECORD);
	assert_int_equal(stat(path, &before), 0);
	assert_int_equal(create(f, &existed, &err), 0);
	assert_int_equal(existed, 1);
	assert_int_equal(stat(path, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	assert_int_equal(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
}

static void test_interrupted_create_is_completed(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];
	struct sb_error err = { 0 };
	struct sb_bench *b;
	int existed = -1;

	/* a create that died before its record: the record and a directory gone */
	snprintf(path, sizeof(path), "%s/%s", f->dir, SB_BENCH_RECORD);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/runs", f->dir);
	assert_int_equal(rmdir(path), 0);
	b = sb_bench_open(f->dir, &err);
	assert_null(b);
	/* completed, and taken as existing: its key was there, as it is for a
	 * benchmark made through another node whose record this node's cache
	 * does not show yet, so its chunks are looked up by name before any
	 * sbatch (docs/shared-storage.md) */
	assert_int_equal(create(f, &existed, &err), 0);
	assert_int_equal(existed, 1);
	assert_true(S_ISDIR(mode_of(f->dir, "runs")));
	b = sb_bench_open(f->dir, &err);
	assert_non_null(b);
	sb_bench_destroy(b);
}

static void test_open_from_below_and_plan(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX], small[8];
	struct sb_error err = { 0 };
	struct sb_bench *b;

	snprintf(path, sizeof(path), "%s/runs/2", f->dir);
	assert_int_equal(mkdir(path, 0755), 0); /* as the job's sbagent makes it */
	b = sb_bench_open(path, &err);
	assert_non_null(b);
	assert_string_equal(b->dir, f->dir);
	assert_string_equal(b->name, "unit-bench");
	assert_string_equal(b->tag, "t1");
	assert_string_equal(b->digest, f->digest);
	assert_int_equal(b->children, 3);
	assert_int_equal(b->max_array_size, 1000);
	assert_int_equal(b->kill_wait, 30);
	assert_int_equal(b->created_ns, 1764500000000000000LL);
	assert_int_equal(b->spec_len, strlen(spec_text));
	assert_memory_equal(b->spec_source, spec_text, b->spec_len);
	assert_null(b->plan);
	assert_int_equal(sb_bench_plan(b, &err), 0);
	assert_non_null(b->plan);
	assert_int_equal(sb_bench_plan(b, &err), 0); /* once: stays planned */
	assert_int_equal(sb_bench_path(b, "jobs", path, sizeof(path), &err), 0);
	assert_int_equal(sb_bench_path(b, "jobs", small, sizeof(small), &err), -1);
	assert_non_null(strstr(err.msg, "too long"));
	sb_bench_destroy(b);
}

static void test_refused_modes(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];
	struct sb_error err = { 0 };

	snprintf(path, sizeof(path), "%s/events", f->dir);
	assert_int_equal(chmod(path, 0775), 0);
	assert_int_equal(sb_bench_check_dir(f->dir, &err), -1);
	assert_non_null(strstr(err.msg, "events"));
	assert_null(sb_bench_open(f->dir, &err));
	assert_int_equal(chmod(path, 0755), 0);

	snprintf(path, sizeof(path), "%s/keys/hmac.key", f->dir);
	assert_int_equal(chmod(path, 0644), 0);
	err = (struct sb_error){ 0 };
	assert_int_equal(sb_bench_check_dir(f->dir, &err), -1);
	assert_non_null(strstr(err.msg, "hmac.key"));
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(sb_bench_check_dir(f->dir, &err), 0);
}

static void test_refused_record(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];
	struct sb_error err = { 0 };
	struct sb_bench *b;
	FILE *fp;

	/* a record whose spec no longer gives its digest */
	snprintf(path, sizeof(path), "%s/%s", f->dir, SB_BENCH_RECORD);
	assert_int_equal(chmod(path, 0644), 0);
	fp = fopen(path, "r+b");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_SET), 0);
	assert_int_equal(fputs("garbage", fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
	b = sb_bench_open(f->dir, &err);
	assert_null(b);
	assert_true(err.msg[0] != '\0');
	/* not a benchmark at all */
	err = (struct sb_error){ 0 };
	assert_null(sb_bench_open(f->root, &err));
	assert_true(err.msg[0] != '\0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_again_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupted_create_is_completed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_from_below_and_plan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_record, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
