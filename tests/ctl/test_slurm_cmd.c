/* Every Slurm command line (ctl/slurm/slurm_cmd.c): the exact arguments of
 * each, and the reading of sbatch's answer and of the job-id queries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "slurm/slurm_cmd.h"

/* The vector joined by single spaces (argv is freed). */
static char *joined(char **argv)
{
	static char buf[4096];
	size_t len = 0;

	assert_non_null(argv);
	buf[0] = '\0';
	for (char **p = argv; *p; p++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? " " : "", *p);
	assert_true(len < sizeof(buf));
	sb_slurm_argv_free(argv);
	return buf;
}

static void test_sbatch_least(void **state)
{
	struct sb_slurm_sbatch s = { .array = "0-9%2", .job_name = "x.sb-0123", .output = "/b/out/a0-c0",
				     .script = "/b/jobs/a0/c0.sh" };
	struct sb_error err = { 0 };

	(void)state;
	assert_string_equal(joined(sb_slurm_sbatch_argv(&s, &err)),
			    "sbatch --parsable --array=0-9%2 --job-name=x.sb-0123 --output=/b/out/a0-c0.out "
			    "--error=/b/out/a0-c0.err --open-mode=append /b/jobs/a0/c0.sh");
}

static void test_sbatch_every_option(void **state)
{
	const char *extra[] = { "--qos=normal", "--exclusive" };
	struct sb_slurm_sbatch s = {
		.array = "0-3", .job_name = "n", .output = "o", .after = "1234", .partition = "gpu",
		.time = "10", .mem = "4G", .gres = "gpu:1", .nodes = "1", .constraint = "a100",
		.cpus_per_task = 8, .ntasks = 2, .extra = extra, .nextra = 2, .script = "s.sh",
	};
	struct sb_error err = { 0 };

	(void)state;
	assert_string_equal(joined(sb_slurm_sbatch_argv(&s, &err)),
			    "sbatch --parsable --array=0-3 --job-name=n --output=o.out --error=o.err "
			    "--open-mode=append --dependency=afterany:1234 --partition=gpu --time=10 "
			    "--mem=4G --cpus-per-task=8 --gres=gpu:1 --nodes=1 --ntasks=2 "
			    "--constraint=a100 --qos=normal --exclusive s.sh");
}

static void test_sbatch_long_text_whole(void **state)
{
	char name[5000];
	struct sb_slurm_sbatch s = { .array = "0", .job_name = name, .output = "o", .script = "s" };
	struct sb_error err = { 0 };
	char **argv;

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	argv = sb_slurm_sbatch_argv(&s, &err);
	assert_non_null(argv);
	assert_int_equal(strlen(argv[3]), strlen("--job-name=") + sizeof(name) - 1);
	sb_slurm_argv_free(argv);
}

static void test_sbatch_job_id(void **state)
{
	char id[8];

	(void)state;
	assert_int_equal(sb_slurm_sbatch_job_id("1234\n", id, sizeof(id)), 0);
	assert_string_equal(id, "1234");
	assert_int_equal(sb_slurm_sbatch_job_id("1234;lab\n", id, sizeof(id)), 0);
	assert_string_equal(id, "1234");
	assert_int_equal(sb_slurm_sbatch_job_id("77", id, sizeof(id)), 0);
	assert_string_equal(id, "77");
	assert_int_equal(sb_slurm_sbatch_job_id("", id, sizeof(id)), -1);
	assert_int_equal(sb_slurm_sbatch_job_id("Submitted batch job 12\n", id, sizeof(id)), -1);
	assert_int_equal(sb_slurm_sbatch_job_id("12x\n", id, sizeof(id)), -1);
	assert_int_equal(sb_slurm_sbatch_job_id("12345678\n", id, sizeof(id)), -1); /* does not fit */
}

static void test_lookup_by_name(void **state)
{
	struct sb_error err = { 0 };

	(void)state;
	assert_string_equal(joined(sb_slurm_squeue_named_argv("b.sb-01-a0-c0", &err)),
			    "squeue -h -t all --me --name=b.sb-01-a0-c0 -o %F|%k");
	assert_string_equal(joined(sb_slurm_sacct_named_argv("b", "2026-01-02T03:04:05", 1001, &err)),
			    "sacct -n -X -P -u 1001 --name=b -S 2026-01-02T03:04:05 --format=JobID,Comment");
}

static void test_lowest_job_id(void **state)
{
	char best[16] = "";

	(void)state;
	sb_slurm_lowest_job_id("", "me", best, sizeof(best));
	assert_string_equal(best, "");
	sb_slurm_lowest_job_id("1200_[0-3]|me\n998_4|me\n1100|me\nJobID|Comment\n\n12x|me\n", "me",
			       best, sizeof(best));
	assert_string_equal(best, "998");
	sb_slurm_lowest_job_id("999|me\n997+0|me\n", "me", best, sizeof(best));
	assert_string_equal(best, "997");
	sb_slurm_lowest_job_id("12345678901234567890|me\n", "me", best, sizeof(best)); /* does not fit */
	assert_string_equal(best, "997");
	strcpy(best, "");
	sb_slurm_lowest_job_id("30;lab|me\n4_1|me", "me", best, sizeof(best));
	assert_string_equal(best, "4");
	/* another identity, none, or one that only starts the same: never taken */
	strcpy(best, "");
	sb_slurm_lowest_job_id("5|other\n6|(null)\n7|\n8\n9|me2\n10|m\n11|me|x\n", "me", best,
			       sizeof(best));
	assert_string_equal(best, "");
	sb_slurm_lowest_job_id("5|other\n60|me\n", "me", best, sizeof(best));
	assert_string_equal(best, "60");
}

static void test_cancel(void **state)
{
	const char *ids[] = { "12", "14" };
	struct sb_error err = { 0 };

	(void)state;
	assert_string_equal(joined(sb_slurm_squeue_arrays_argv("12,13,14", &err)), "squeue -h -r -j 12,13,14 -o %F");
	assert_string_equal(joined(sb_slurm_scancel_argv(ids, 2, &err)), "scancel 12 14");
	assert_true(sb_slurm_lists_job("12\n14\n", "14"));
	assert_true(sb_slurm_lists_job("12\n14", "14"));
	assert_false(sb_slurm_lists_job("12\n140\n", "14"));
	assert_false(sb_slurm_lists_job("1\n", "14"));
	assert_false(sb_slurm_lists_job("", "14"));
}

static void test_mine(void **state)
{
	struct sb_error err = { 0 };
	const char *name;
	size_t len;

	(void)state;
	assert_string_equal(joined(sb_slurm_squeue_mine_argv(&err)), "squeue --me -h -o %F|%j|%T");
	assert_int_equal(sb_slurm_mine_row("123|l.sb-0123456789ab-a0|PENDING", &len, &name), 0);
	assert_int_equal(len, 3);
	assert_string_equal(name, "l.sb-0123456789ab-a0|PENDING");
	assert_int_equal(sb_slurm_mine_row("no bar here", &len, &name), -1);
}

static void test_status_queries(void **state)
{
	struct sb_error err = { 0 };

	(void)state;
	assert_string_equal(joined(sb_slurm_squeue_tasks_argv("1,2", &err)), "squeue -h -r -j 1,2 -o %i|%A|%j|%T|%r");
	assert_string_equal(joined(sb_slurm_sacct_tasks_argv("1,2", "2026-01-02T03:04:05", &err)),
			    "sacct -P -n -X -D -j 1,2 -S 2026-01-02T03:04:05 "
			    "--format=JobID,JobIDRaw,JobName,State,ExitCode,Submit,Start,End,NodeList");
	assert_string_equal(joined(sb_slurm_scontrol_config_argv(&err)), "scontrol show config");
}

static void test_since(void **state)
{
	char buf[SB_SLURM_TIME_LEN];

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	assert_string_equal(sb_slurm_since(buf, 86400), "1970-01-02T00:00:00");
	assert_string_equal(sb_slurm_since(buf, -1), "2000-01-01T00:00:00");
	setenv("TZ", "EST5", 1);
	tzset();
	assert_string_equal(sb_slurm_since(buf, 86400), "1970-01-01T19:00:00"); /* local time */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sbatch_least),
		cmocka_unit_test(test_sbatch_every_option),
		cmocka_unit_test(test_sbatch_long_text_whole),
		cmocka_unit_test(test_sbatch_job_id),
		cmocka_unit_test(test_lookup_by_name),
		cmocka_unit_test(test_lowest_job_id),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_mine),
		cmocka_unit_test(test_status_queries),
		cmocka_unit_test(test_since),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
