/* sb_subm_duplicates and sb_subm_find on records built in memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bench/subm.h"

static struct sb_subm_entry v[16];
static struct sb_subm s = { .v = v };

static void add(enum sb_subm_type type, int64_t t, int64_t attempt, int64_t chunk, const char *job,
		bool recovered)
{
	struct sb_subm_entry *e = &v[s.n++];

	memset(e, 0, sizeof(*e));
	e->type = type;
	e->time_ns = t;
	e->attempt = attempt;
	e->chunk = chunk;
	e->child = e->end = -1;
	e->exit_code = e->signal = -1;
	e->recovered = recovered;
	e->job_id = job;
}

static void test_duplicates_listed_in_order(void **state)
{
	struct sb_subm_dup *d;
	size_t n;

	(void)state;
	s.n = 0;
	add(SB_SUBM_INTENT, 1, 0, 0, "", false);
	add(SB_SUBM_SUBMITTED, 2, 0, 0, "1000", false);
	add(SB_SUBM_SUBMITTED, 3, 0, 1, "1004", false);
	add(SB_SUBM_SUBMITTED, 4, 0, 1, "1004", true);  /* the same job again: no duplicate */
	add(SB_SUBM_SUBMITTED, 5, 1, 0, "1010", false);
	add(SB_SUBM_SUBMITTED, 6, 1, 0, "1012", false);
	add(SB_SUBM_SUBMITTED, 7, 0, 0, "999", false);  /* numerically first */
	add(SB_SUBM_CANCEL, 8, 0, 2, "1020", false);     /* not a submission */
	add(SB_SUBM_SUBMITTED, 9, 0, 2, "1021", false);
	assert_int_equal(sb_subm_duplicates(&s, &d, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(d[0].attempt, 0);
	assert_int_equal(d[0].chunk, 0);
	assert_int_equal(d[0].n, 2);
	assert_string_equal(d[0].job_ids[0], "999");
	assert_string_equal(d[0].job_ids[1], "1000");
	assert_int_equal(d[1].attempt, 1);
	assert_int_equal(d[1].chunk, 0);
	assert_string_equal(d[1].job_ids[0], "1010");
	assert_string_equal(d[1].job_ids[1], "1012");
	sb_subm_dups_release(d, n);
	/* the latest record of a type wins */
	assert_string_equal(sb_subm_find(&s, SB_SUBM_SUBMITTED, 0, 0)->job_id, "999");
	assert_null(sb_subm_find(&s, SB_SUBM_INTENT, 0, 1));
}

static void test_no_duplicates(void **state)
{
	struct sb_subm_dup *d = (struct sb_subm_dup *)&s;
	size_t n = 7;

	(void)state;
	s.n = 0;
	add(SB_SUBM_SUBMITTED, 1, 0, 0, "5", false);
	add(SB_SUBM_SUBMITTED, 2, 0, 1, "6", false);
	assert_int_equal(sb_subm_duplicates(&s, &d, &n, NULL), 0);
	assert_null(d);
	assert_int_equal(n, 0);
	sb_subm_dups_release(NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duplicates_listed_in_order),
		cmocka_unit_test(test_no_duplicates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
