/* Parsing sacct and squeue output: every shape real Slurm 22.05 prints
 * (recorded from Slurm 22.05, tests/cluster/), and garbage that must be evidence of
 * nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <time.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/sched.h"


/* A row's JobID text. */
static const char *jid(const struct sb_sched_row *r)
{
	static char buf[SB_SCHED_JOB_ID_LEN];

	return sb_sched_row_job_id(r, buf);
}

static void test_states(void **state)
{
	long uid;

	(void)state;
	assert_int_equal(sb_sched_state_parse("COMPLETED", &uid), SB_STATE_COMPLETED);
	assert_int_equal(uid, -1);
	assert_int_equal(sb_sched_state_parse("CANCELLED by 1001", &uid), SB_STATE_CANCELLED);
	assert_int_equal(uid, 1001);
	assert_int_equal(sb_sched_state_parse("CANCELLED", &uid), SB_STATE_CANCELLED);
	assert_int_equal(sb_sched_state_parse("CANCELLED by x", &uid), SB_STATE_UNKNOWN);
	assert_int_equal(sb_sched_state_parse("COMPLETED by 3", NULL), SB_STATE_UNKNOWN);
	assert_int_equal(sb_sched_state_parse("OUT_OF_MEMORY", NULL), SB_STATE_OUT_OF_MEMORY);
	assert_int_equal(sb_sched_state_parse("UNKNOWN", NULL), SB_STATE_UNKNOWN);
	assert_int_equal(sb_sched_state_parse("COMPLETE", NULL), SB_STATE_UNKNOWN);
	assert_int_equal(sb_sched_state_parse("", NULL), SB_STATE_UNKNOWN);
	assert_string_equal(sb_sched_state_name(SB_STATE_NODE_FAIL), "NODE_FAIL");
	assert_true(sb_sched_state_terminal(SB_STATE_TIMEOUT));
	assert_false(sb_sched_state_terminal(SB_STATE_REQUEUED));
	assert_false(sb_sched_state_terminal(SB_STATE_UNKNOWN));
}

static void test_sacct_real_output(void **state)
{
	const char *text =
		"21_0|22|x|COMPLETED|0:0|2026-11-30T13:00:00|2026-11-30T13:00:01|2026-11-30T13:00:05|vm\n"
		"21_1|23|x|FAILED|3:0|2026-11-30T13:00:00|2026-11-30T13:00:01|2026-11-30T13:00:02|vm\n"
		"21_3|25|x|CANCELLED by 1001|0:0|2026-11-30T13:00:00|2026-11-30T13:00:01|2026-11-30T13:00:09|vm\n"
		"21_4|21|x|OUT_OF_MEMORY|0:125|2026-11-30T13:00:00|2026-11-30T13:00:01|2026-11-30T13:00:09|vm\n"
		"39_0|40|y|REQUEUED|0:0|2026-11-30T13:00:00|2026-11-30T13:00:01|2026-11-30T13:00:03|vm\n"
		"39_0|40|y|PENDING|0:0|2026-11-30T13:00:04|Unknown|Unknown|None assigned\n"
		"39_[2-5%1]|39|y|PENDING|0:0|2026-11-30T13:00:00|Unknown|Unknown|None assigned\n"
		"50|50|plain|TIMEOUT|0:0|2026-11-30T13:00:00|2026-11-30T13:00:01|2026-11-30T13:02:21|vm\n";
	struct sb_sched_rows rows = { 0 };
	struct sb_error err;

	(void)state;
	assert_int_equal(sb_sacct_parse(text, &rows, 1000, &err), 0);
	assert_int_equal(rows.skipped, 0);
	assert_int_equal(rows.n, 11);
	assert_string_equal(jid(&rows.v[0]), "21_0");
	assert_int_equal(rows.v[0].array_job, 21);
	assert_int_equal(rows.v[0].array_task, 0);
	assert_int_equal(rows.v[0].raw_id, 22);
	assert_int_equal(rows.v[0].end - rows.v[0].start, 4);
	assert_string_equal(rows.v[0].nodes, "vm");
	assert_int_equal(rows.v[1].exit_code, 3);
	assert_int_equal(rows.v[2].state, SB_STATE_CANCELLED);
	assert_int_equal(rows.v[2].cancelled_by, 1001);
	assert_int_equal(rows.v[3].exit_signal, 125);
	assert_int_equal(rows.v[4].state, SB_STATE_REQUEUED);
	assert_int_equal(rows.v[5].state, SB_STATE_PENDING);
	assert_int_equal(rows.v[5].start, -1);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(rows.v[6 + i].array_job, 39);
		assert_int_equal(rows.v[6 + i].array_task, 2 + i);
		assert_int_equal(rows.v[6 + i].raw_id, 0);
		assert_int_equal(rows.v[6 + i].state, SB_STATE_PENDING);
	}
	assert_string_equal(jid(&rows.v[9]), "39_5");
	assert_string_equal(jid(&rows.v[10]), "50");
	assert_int_equal(rows.v[10].array_task, -1);
	sb_sched_rows_release(&rows);
}

static void test_sacct_garbage_is_evidence_of_nothing(void **state)
{
	const char *text =
		"sacct: error: slurmdbd: connection refused\n"
		"\n"
		"21_0|22|x|WEIRD_STATE|0:0|a|b|c|vm\n"       /* unknown state */
		"21_0|22|x|COMPLETED|0:0|a|b|c\n"            /* too few fields */
		"21_0|22|x|COMPLETED|0:0|a|b|c|vm|extra\n"   /* too many */
		"21+0|22|x|COMPLETED|0:0|a|b|c|vm\n"         /* heterogeneous job */
		"21_x|22|x|COMPLETED|0:0|a|b|c|vm\n"
		"21_[3-1]|22|x|PENDING|0:0|a|b|c|vm\n"       /* bad range */
		"21_[|22|x|PENDING|0:0|a|b|c|vm\n"
		"|||||||||\n"
		"21_1|22|x|COMPLETED|x:y|Unknown|None|2026-13-45T99:00:00|vm\r\n";
	struct sb_sched_rows rows = { 0 };
	struct sb_error err;

	(void)state;
	assert_int_equal(sb_sacct_parse(text, &rows, 1000, &err), 0);
	assert_int_equal(rows.n, 1);
	assert_int_equal(rows.skipped, 9);
	assert_int_equal(rows.v[0].exit_code, -1);
	assert_int_equal(rows.v[0].submit, -1);
	assert_int_equal(rows.v[0].end, -1);
	assert_string_equal(rows.v[0].nodes, "vm");
	sb_sched_rows_release(&rows);
}

static void test_task_limit(void **state)
{
	struct sb_sched_rows rows = { 0 };
	struct sb_error err;

	(void)state;
	assert_int_equal(sb_sacct_parse("7_[0-999999999999]|7|x|PENDING|0:0|a|b|c|d\n",
					&rows, 1000, &err), -1);
	assert_non_null(strstr(err.msg, "more than 1000 tasks"));
	sb_sched_rows_release(&rows);
}

static void test_squeue(void **state)
{
	const char *text =
		"39_0|40|bench-x|RUNNING|None\n"
		"39_1|39|bench-x|PENDING|JobArrayTaskLimit\n"
		"39_[2-3,7:2]|39|bench-x|PENDING|Resources\n"
		"51|51|other|COMPLETING|None\n";
	struct sb_sched_rows rows = { 0 };
	struct sb_error err;

	(void)state;
	assert_int_equal(sb_squeue_parse(text, &rows, 1000, &err), 0);
	assert_int_equal(rows.n, 6);
	assert_int_equal(rows.v[0].state, SB_STATE_RUNNING);
	assert_string_equal(rows.v[1].reason, "JobArrayTaskLimit");
	assert_string_equal(jid(&rows.v[2]), "39_2");
	assert_string_equal(jid(&rows.v[3]), "39_3");
	assert_string_equal(jid(&rows.v[4]), "39_7");
	assert_int_equal(rows.v[5].state, SB_STATE_COMPLETING);
	sb_sched_rows_release(&rows);
}

/* Texts are kept whole, however long: a NodeList of a job on many nodes, a
 * long pending reason, a collapsed pending range of more than 255 bytes
 * (once silently skipped: its tasks would have looked missing). */
static void test_long_fields(void **state)
{
	char nodes[2001], list[1200], reason[501], *text;
	struct sb_sched_rows rows = { 0 };
	struct sb_error err;
	size_t used = 0, i;

	(void)state;
	memset(nodes, 'n', 2000);
	nodes[2000] = '\0';
	memset(reason, 'r', 500);
	reason[500] = '\0';
	for (i = 0; i < 200; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%zu", i ? "," : "", 2 * i);
	assert_true(used > 255);
	assert_true(asprintf(&text, "5_0|5|x|RUNNING|0:0|a|b|c|%s\n6_[%s%%4]|6|x|PENDING|0:0|a|b|c|\n",
			     nodes, list) > 0);
	assert_int_equal(sb_sacct_parse(text, &rows, 100000, &err), 0);
	free(text);
	assert_int_equal(rows.skipped, 0);
	assert_int_equal(rows.n, 201);
	assert_string_equal(rows.v[0].nodes, nodes);
	assert_string_equal(jid(&rows.v[200]), "6_398");
	assert_int_equal(rows.v[200].state, SB_STATE_PENDING);
	assert_true(asprintf(&text, "7_1|8|x|PENDING|%s\n", reason) > 0);
	assert_int_equal(sb_squeue_parse(text, &rows, 100000, &err), 0);
	free(text);
	assert_string_equal(rows.v[201].reason, reason);
	assert_string_equal(rows.v[0].nodes, nodes); /* the earlier rows' texts stay valid */
	sb_sched_rows_release(&rows);
}

/* The time text as mktime reads it, in zones with and without daylight
 * saving, across their changes, with the per-hour cache and without. */
static void test_time_parse(void **state)
{
	static const char *const zones[] = { "UTC", "Europe/Berlin", "America/New_York",
					     "Australia/Lord_Howe", "Asia/Kolkata" };
	static const char *const bad[] = { "Unknown", "None", "", "2026-11-30 13:00:05",
					    "2026-13-01T00:00:00", "2026-11-30T13:00:05Z",
					    "2026-11-30T24:00:00", "x026-11-30T13:00:05" };
	size_t z, i;
	char *saved = getenv("TZ") ? strdup(getenv("TZ")) : NULL;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(sb_sched_time_parse(bad[i], NULL), -1);
	for (z = 0; z < sizeof(zones) / sizeof(zones[0]); z++) {
		struct sb_sched_tz tz = { 0 };
		int64_t t;

		setenv("TZ", zones[z], 1);
		tzset();
		/* every 17 minutes through 2026: both changes of each zone */
		for (t = 1767225600; t < 1767225600 + 366 * 86400; t += 17 * 60 + 7) {
			time_t tt = (time_t)t;
			struct tm tm;
			char text[32];

			localtime_r(&tt, &tm);
			strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &tm);
			/* the hour repeated when the clocks go back reads either way */
			if (sb_sched_time_parse(text, NULL) != t) {
				struct tm again = tm;
				again.tm_isdst = -1;
				assert_int_equal(sb_sched_time_parse(text, NULL), (int64_t)mktime(&again));
				continue;
			}
			assert_int_equal(sb_sched_time_parse(text, &tz), t);
		}
	}
	if (saved) {
		setenv("TZ", saved, 1);
		free(saved);
	} else {
		unsetenv("TZ");
	}
	tzset();
}

/* A JobID text back into its numbers: only the texts a row is printed as. */
static void test_job_id_parse(void **state)
{
	struct sb_sched_row r;

	(void)state;
	assert_int_equal(sb_sched_job_id_parse("123_4", &r), 0);
	assert_int_equal(r.array_job, 123);
	assert_int_equal(r.array_task, 4);
	assert_string_equal(jid(&r), "123_4");
	assert_int_equal(sb_sched_job_id_parse("9999999999999999999", &r), 0);
	assert_int_equal(r.array_task, -1);
	assert_string_equal(jid(&r), "9999999999999999999");
	assert_int_equal(sb_sched_job_id_parse("", &r), -1);
	assert_int_equal(sb_sched_job_id_parse("007", &r), -1);
	assert_int_equal(sb_sched_job_id_parse("12_", &r), -1);
	assert_int_equal(sb_sched_job_id_parse("_3", &r), -1);
	assert_int_equal(sb_sched_job_id_parse("12_3_4", &r), -1);
	assert_int_equal(sb_sched_job_id_parse("12;lab", &r), -1);
	assert_int_equal(sb_sched_job_id_parse("12_[2-5]", &r), -1);
	assert_int_equal(sb_sched_job_id_parse("123456789012345678901", &r), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_sacct_real_output),
		cmocka_unit_test(test_sacct_garbage_is_evidence_of_nothing),
		cmocka_unit_test(test_task_limit),
		cmocka_unit_test(test_squeue),
		cmocka_unit_test(test_long_fields),
		cmocka_unit_test(test_job_id_parse),
		cmocka_unit_test(test_time_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
