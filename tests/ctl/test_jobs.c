/* ctl/bench/jobs.c alone, on a benchmark made in a temporary root (whose path
 * holds a quote, for the script's shell quoting): chunks of at most
 * MaxArraySize children, their names and --array texts; the batch script;
 * attempts written whole, read back, written again unchanged, told apart
 * from an unprepared one, and discarded; the output directory of a chunk
 * and the look-up of a child's output in it (sb_bench_output); the sbatch
 * command line.  No process is spawned. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench/bench_private.h"
#include "bench/jobs.h"
#include "slurm/slurm_cmd.h"
#include "tests/ctl/benchfix.h"

static const char spec_text[] =
	"name: unit-jobs\n"
	"command: [true, \"{x}\"]\n"
	"parameters:\n"
	"  x: [0, 1, 2, 3, 4]\n"
	"slurm:\n"
	"  partition: debug\n"
	"  time: \"10\"\n";

static char root[] = "/tmp/sb'jobs-XXXXXX";
static struct sb_bench *bench;

static int setup(void **state)
{
	struct sb_error err = { 0 };
	char *dir = NULL;
	int existed = 0;

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_int_equal(sb_test_bench_create(root, "j.yaml", spec_text, 2, 1, &dir, &existed, NULL,
					      &err), 0);
	bench = sb_bench_open(dir, &err);
	free(dir);
	assert_non_null(bench);
	assert_int_equal(sb_bench_plan(bench, &err), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sb_bench_destroy(bench);
	return sb_test_rmtree(root);
}

static void test_layout(void **state)
{
	size_t all[5] = { 0, 1, 2, 3, 4 }, some[3] = { 4, 1, 3 };
	struct sb_attempt_settings throttled = { .throttle = 4 };
	struct sb_chunks c = { 0 };
	struct sb_error err = { 0 };
	char want[128];

	(void)state;
	assert_int_equal(sb_jobs_layout(bench, 0, all, 5, NULL, &c, &err), 0);
	assert_int_equal(c.n, 3); /* MaxArraySize 2: 2 + 2 + 1 */
	assert_int_equal(c.v[0].n, 2);
	assert_int_equal(c.v[2].n, 1);
	assert_int_equal(c.v[2].children[0], 4);
	assert_string_equal(c.v[0].array, "0-1");
	assert_string_equal(c.v[2].array, "0-0");
	snprintf(want, sizeof(want), "sb-%.12s-a0-c2", bench->digest);
	assert_string_equal(c.v[2].name, want);
	sb_chunks_release(&c);
	/* a rerun's attempt, a subset in the order given, a throttle */
	assert_int_equal(sb_jobs_layout(bench, 3, some, 3, &throttled, &c, &err), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.v[0].children[0], 4);
	assert_int_equal(c.v[0].children[1], 1);
	assert_string_equal(c.v[0].array, "0-1%4");
	assert_int_equal(c.v[1].attempt, 3);
	sb_chunks_release(&c);
	assert_int_equal(sb_jobs_layout(bench, 0, all, 0, NULL, &c, &err), -1);
	assert_non_null(strstr(err.msg, "no children"));
}

static void test_script(void **state)
{
	size_t all[1] = { 0 };
	struct sb_chunks c = { 0 };
	struct sb_error err = { 0 };
	char *s;

	(void)state;
	assert_int_equal(sb_jobs_layout(bench, 1, all, 1, NULL, &c, &err), 0);
	s = sb_jobs_script(bench, &c.v[0], "/opt/sb agent/sbagent");
	assert_non_null(s);
	assert_true(strncmp(s, "#!/bin/sh\n", 10) == 0);
	/* the quote in the directory's name is quoted for the shell */
	assert_non_null(strstr(s, "SB_BENCH_DIR='/tmp/sb'\\''jobs-"));
	assert_non_null(strstr(s, "\nSB_ATTEMPT=1\nSB_CHUNK=0\n"));
	assert_non_null(strstr(s, "\nexec '/opt/sb agent/sbagent' --\n"));
	free(s);
	sb_chunks_release(&c);
}

static void test_write_read_discard(void **state)
{
	size_t all[5] = { 0, 1, 2, 3, 4 };
	struct sb_chunks c = { 0 }, back = { 0 };
	struct sb_error err = { 0 };
	enum sb_jobs_found found;
	char path[PATH_MAX];
	struct stat before, after;
	size_t k, t;

	(void)state;
	assert_int_equal(sb_jobs_last_attempt(bench), -1);
	assert_int_equal(sb_jobs_read_attempt(bench, 0, NULL, &back, &found, &err), 0);
	assert_int_equal(found, SB_JOBS_NONE);
	assert_int_equal(sb_jobs_layout(bench, 0, all, 5, NULL, &c, &err), 0);
	assert_int_equal(sb_jobs_write(bench, &c, "/usr/bin/sbagent", &err), 0);
	assert_int_equal(sb_jobs_last_attempt(bench), 0);
	/* the maps give back the same chunks */
	assert_int_equal(sb_jobs_read_attempt(bench, 0, NULL, &back, &found, &err), 0);
	assert_int_equal(found, SB_JOBS_PREPARED);
	assert_int_equal(back.n, c.n);
	for (k = 0; k < c.n; k++) {
		assert_int_equal(back.v[k].n, c.v[k].n);
		assert_string_equal(back.v[k].array, c.v[k].array);
		assert_string_equal(back.v[k].name, c.v[k].name);
		for (t = 0; t < c.v[k].n; t++)
			assert_int_equal(back.v[k].children[t], c.v[k].children[t]);
	}
	sb_chunks_release(&back);
	/* the script is executable, the map read-only, nothing temporary left */
	assert_int_equal(stat(c.v[1].script, &before), 0);
	assert_int_equal(before.st_mode & 0777, 0555);
	assert_int_equal(stat(c.v[1].map, &after), 0);
	assert_int_equal(after.st_mode & 0777, 0444);
	snprintf(path, sizeof(path), "%s/jobs/.a0.tmp", bench->dir);
	assert_int_equal(access(path, F_OK), -1);
	/* written again (a resumed submit): the same files, untouched */
	assert_int_equal(sb_jobs_write(bench, &c, "/usr/bin/sbagent", &err), 0);
	assert_int_equal(stat(c.v[1].script, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	/* with another agent: the script is replaced, atomically */
	assert_int_equal(sb_jobs_write(bench, &c, "/usr/local/bin/sbagent", &err), 0);
	assert_int_equal(stat(c.v[1].script, &after), 0);
	assert_true(before.st_ino != after.st_ino);
	sb_chunks_release(&c);

	/* an attempt directory without a map: unprepared, then discarded */
	snprintf(path, sizeof(path), "%s/jobs/a1", bench->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(sb_jobs_last_attempt(bench), 1);
	assert_int_equal(sb_jobs_read_attempt(bench, 1, NULL, &back, &found, &err), 0);
	assert_int_equal(found, SB_JOBS_UNPREPARED);
	assert_int_equal(back.n, 0);
	assert_int_equal(sb_jobs_discard_attempt(bench, 1, &err), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(sb_jobs_last_attempt(bench), 0);
}

/* touch dir/rel (made with its parents' mkdir -p when rel ends in '/') */
static void touch(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (path[strlen(path) - 1] == '/') {
		assert_int_equal(mkdir(path, 0755), 0);
		return;
	}
	assert_non_null(f = fopen(path, "w"));
	fputs(rel, f);
	fclose(f);
}

/* sb_bench_output's paths, relative to the benchmark directory, joined by ' ' */
static void output_of(size_t child, char *buf, size_t size)
{
	struct sb_error err = { 0 };
	size_t n, i, len = strlen(bench->dir) + 1;
	char **files;

	buf[0] = '\0';
	assert_int_equal(sb_bench_output(bench, child, NULL, &files, &n, &err), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(strncmp(files[i], bench->dir, len - 1), 0);
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? " " : "", files[i] + len);
	}
	free(files);
}

/* After test_write_read_discard: attempt 0 in chunks {0,1} {2,3} {4}.  A
 * chunk has its output directory and nothing per child; a child's output
 * is found by its chunk and task id, for every array job id there, also a
 * job's files that appear after a first look; an earlier sbctl's layout
 * (a link per task, the files in the run directory) is still read. */
static void test_output_lookup(void **state)
{
	char got[1024], path[PATH_MAX];
	struct stat st;
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	(void)state;
	for (int k = 0; k < 3; k++) {
		snprintf(path, sizeof(path), "%s/jobs/a0/c%d", bench->dir, k);
		assert_int_equal(lstat(path, &st), 0);
		assert_true(S_ISDIR(st.st_mode));
		snprintf(path, sizeof(path), "%s/jobs/a0/c%d/0", bench->dir, k);
		assert_int_equal(lstat(path, &st), -1);
	}
	snprintf(path, sizeof(path), "%s/runs/0", bench->dir);
	assert_int_equal(lstat(path, &st), -1);
	output_of(3, got, sizeof(got));
	assert_string_equal(got, "");

	touch(bench->dir, "jobs/a0/c1/slurm-77_1.out");
	touch(bench->dir, "jobs/a0/c1/slurm-77_1.err");
	touch(bench->dir, "jobs/a0/c1/slurm-77_0.out"); /* child 2's */
	touch(bench->dir, "jobs/a0/c1/slurm-x_1.out");  /* not Slurm's */
	snprintf(path, sizeof(path), "%s/jobs/a0/c1/slurm-77_1.out", bench->dir);
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0); /* oldest first */
	output_of(3, got, sizeof(got));
	assert_string_equal(got, "jobs/a0/c1/slurm-77_1.out jobs/a0/c1/slurm-77_1.err");
	output_of(2, got, sizeof(got));
	assert_string_equal(got, "jobs/a0/c1/slurm-77_0.out");
	/* a file made in the same clock tick as a look (the directory's mtime
	 * as it was): a directory that recent is listed again */
	snprintf(path, sizeof(path), "%s/jobs/a0/c1", bench->dir);
	assert_int_equal(stat(path, &st), 0);
	touch(bench->dir, "jobs/a0/c1/slurm-79_1.out");
	assert_int_equal(utimensat(AT_FDCWD, path, (struct timespec[2]){ st.st_atim, st.st_mtim }, 0), 0);
	output_of(3, got, sizeof(got));
	assert_string_equal(got, "jobs/a0/c1/slurm-77_1.out jobs/a0/c1/slurm-77_1.err "
			    "jobs/a0/c1/slurm-79_1.out");
	snprintf(path, sizeof(path), "%s/jobs/a0/c1/slurm-79_1.out", bench->dir);
	assert_int_equal(unlink(path), 0);
	/* the directory, long settled, gets another job's files */
	snprintf(path, sizeof(path), "%s/jobs/a0/c1", bench->dir);
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	output_of(3, got, sizeof(got)); /* listed, and the listing kept */
	touch(bench->dir, "jobs/a0/c1/slurm-80_1.err");
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	old[0].tv_sec = old[1].tv_sec = 1000000001; /* moved, however little */
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	output_of(3, got, sizeof(got));
	assert_string_equal(got, "jobs/a0/c1/slurm-77_1.out jobs/a0/c1/slurm-77_1.err "
			    "jobs/a0/c1/slurm-80_1.err");

	/* an earlier sbctl's chunk: c2/0 -> ../../../runs/4, files in there */
	snprintf(path, sizeof(path), "%s/jobs/a0/c2/0", bench->dir);
	assert_int_equal(symlink("../../../runs/4", path), 0);
	touch(bench->dir, "runs/4/");
	touch(bench->dir, "runs/4/slurm-90_0.out");
	snprintf(path, sizeof(path), "%s/runs/4/slurm-90_0.out", bench->dir);
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0); /* before attempt 2's, below */
	touch(bench->dir, "runs/4/result.txt");
	output_of(4, got, sizeof(got));
	assert_string_equal(got, "runs/4/slurm-90_0.out");
	output_of(1, got, sizeof(got)); /* chunk 0: nothing yet, no run dir */
	assert_string_equal(got, "");

	/* later attempts: {4, 1, 3} in chunks {4, 1} {3} (not in ascending
	 * order: looked up chunk by chunk), {0, 2, 4} in {0, 2} {4} (a binary
	 * search over the chunks; 3 falls between them) */
	{
		size_t odd[3] = { 4, 1, 3 }, asc[3] = { 0, 2, 4 };
		struct sb_chunks c = { 0 };
		struct sb_error err = { 0 };

		assert_int_equal(sb_jobs_layout(bench, 1, odd, 3, NULL, &c, &err), 0);
		assert_int_equal(sb_jobs_write(bench, &c, "/usr/bin/sbagent", &err), 0);
		sb_chunks_release(&c);
		assert_int_equal(sb_jobs_layout(bench, 2, asc, 3, NULL, &c, &err), 0);
		assert_int_equal(sb_jobs_write(bench, &c, "/usr/bin/sbagent", &err), 0);
		sb_chunks_release(&c);
	}
	touch(bench->dir, "jobs/a1/c0/slurm-95_1.out");
	touch(bench->dir, "jobs/a1/c1/slurm-95_0.out");
	touch(bench->dir, "jobs/a2/c0/slurm-96_1.out");
	touch(bench->dir, "jobs/a2/c1/slurm-96_0.out");
	output_of(1, got, sizeof(got));
	assert_string_equal(got, "jobs/a1/c0/slurm-95_1.out");
	output_of(3, got, sizeof(got));
	assert_string_equal(got, "jobs/a0/c1/slurm-77_1.out jobs/a0/c1/slurm-77_1.err "
			    "jobs/a0/c1/slurm-80_1.err jobs/a1/c1/slurm-95_0.out");
	output_of(2, got, sizeof(got));
	assert_string_equal(got, "jobs/a0/c1/slurm-77_0.out jobs/a2/c0/slurm-96_1.out");
	output_of(4, got, sizeof(got));
	assert_string_equal(got, "runs/4/slurm-90_0.out jobs/a2/c1/slurm-96_0.out");

	/* the shortest names there are: the first job of a new cluster,
	 * "slurm-1_0.out" (13 bytes) */
	touch(bench->dir, "jobs/a0/c0/slurm-1_0.out");
	touch(bench->dir, "jobs/a0/c0/slurm-1_0.err");
	snprintf(path, sizeof(path), "%s/jobs/a0/c0/slurm-1_0.out", bench->dir);
	old[0].tv_sec = old[1].tv_sec = 1000000000;
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0); /* oldest first */
	output_of(0, got, sizeof(got));
	assert_string_equal(got, "jobs/a0/c0/slurm-1_0.out jobs/a0/c0/slurm-1_0.err");
}

static void test_sbatch_argv(void **state)
{
	size_t all[5] = { 0, 1, 2, 3, 4 };
	/* a rerun's settings: its own time limit and throttle, not the spec's */
	struct sb_attempt_settings set = { .time = (char *)"30", .throttle = 2 };
	struct sb_chunks c = { 0 };
	struct sb_error err = { 0 };
	char **argv, want[PATH_MAX + 64];
	size_t n;

	(void)state;
	assert_int_equal(sb_jobs_layout(bench, 2, all, 5, &set, &c, &err), 0);
	argv = sb_jobs_sbatch_argv(bench, &c, &c.v[1], "1234", &err);
	assert_non_null(argv);
	for (n = 0; argv[n]; n++)
		;
	assert_string_equal(argv[0], "sbatch");
	assert_string_equal(argv[n - 1], c.v[1].script);
	snprintf(want, sizeof(want), "--output=%s/jobs/a2/c1/slurm-%%A_%%a.out", bench->dir);
	{
		int has_out = 0, has_arr = 0, has_dep = 0, has_part = 0, has_time = 0, has_name = 0;
		size_t i;
		for (i = 0; i < n; i++) {
			has_out |= !strcmp(argv[i], want);
			has_arr |= !strcmp(argv[i], "--array=0-1%2");
			has_dep |= !strcmp(argv[i], "--dependency=afterany:1234");
			has_part |= !strcmp(argv[i], "--partition=debug");
			has_time |= !strcmp(argv[i], "--time=30");
			assert_string_not_equal(argv[i], "--time=10");
			has_name |= !strncmp(argv[i], "--job-name=sb-", 14);
		}
		assert_true(has_out && has_arr && has_dep && has_part && has_time && has_name);
	}
	sb_slurm_argv_free(argv);
	sb_chunks_release(&c);
}

/* A smoke test's layout (sb_jobs_layout_first): chunk 0 holds the first
 * child alone, the later ones up to MaxArraySize; read back as written
 * (chunk 0 as large as its map), and a first size of 0 or above
 * MaxArraySize is the plain layout. */
static void test_layout_first(void **state)
{
	size_t all[5] = { 0, 1, 2, 3, 4 }, k, t;
	struct sb_chunks c = { 0 }, back = { 0 };
	struct sb_error err = { 0 };
	enum sb_jobs_found found;
	char want[128];

	(void)state;
	assert_int_equal(sb_jobs_layout_first(bench, 7, all, 5, 1, NULL, &c, &err), 0);
	assert_int_equal(c.n, 3); /* 1 + 2 + 2 */
	assert_int_equal(c.v[0].n, 1);
	assert_int_equal(c.v[0].children[0], 0);
	assert_string_equal(c.v[0].array, "0-0");
	assert_int_equal(c.v[1].n, 2);
	assert_int_equal(c.v[1].children[0], 1);
	assert_int_equal(c.v[2].children[1], 4);
	snprintf(want, sizeof(want), "sb-%.12s-a7-c1", bench->digest);
	assert_string_equal(c.v[1].name, want);
	assert_int_equal(sb_jobs_write(bench, &c, "/usr/bin/sbagent", &err), 0);
	assert_int_equal(sb_jobs_read_attempt(bench, 7, NULL, &back, &found, &err), 0);
	assert_int_equal(found, SB_JOBS_PREPARED);
	assert_int_equal(back.n, c.n);
	for (k = 0; k < c.n; k++) {
		assert_int_equal(back.v[k].n, c.v[k].n);
		assert_string_equal(back.v[k].name, c.v[k].name);
		for (t = 0; t < c.v[k].n; t++)
			assert_int_equal(back.v[k].children[t], c.v[k].children[t]);
	}
	sb_chunks_release(&back);
	sb_chunks_release(&c);
	/* 0, or more than MaxArraySize (2): the plain layout, 2 + 2 + 1 */
	assert_int_equal(sb_jobs_layout_first(bench, 7, all, 5, 0, NULL, &c, &err), 0);
	assert_int_equal(c.v[0].n, 2);
	assert_int_equal(c.n, 3);
	sb_chunks_release(&c);
	assert_int_equal(sb_jobs_layout_first(bench, 7, all, 5, 9, NULL, &c, &err), 0);
	assert_int_equal(c.v[0].n, 2);
	assert_int_equal(c.v[2].n, 1);
	sb_chunks_release(&c);
	/* one child: one chunk of one */
	assert_int_equal(sb_jobs_layout_first(bench, 7, all, 1, 1, NULL, &c, &err), 0);
	assert_int_equal(c.n, 1);
	sb_chunks_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_script),
		cmocka_unit_test(test_write_read_discard),
		cmocka_unit_test(test_output_lookup),
		cmocka_unit_test(test_sbatch_argv),
		cmocka_unit_test(test_layout_first),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
