/* ctl/base/intern.h: one copy per distinct text, stable across growth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/intern.h"

static void test_intern(void **state)
{
	struct sb_intern in = { 0 };
	const char *first[1000];
	char buf[32];
	size_t i;

	(void)state;
	assert_null(sb_intern(&in, NULL));
	for (i = 0; i < 1000; i++) { /* many growths */
		snprintf(buf, sizeof(buf), "node%zu", i);
		first[i] = sb_intern(&in, buf);
		assert_non_null(first[i]);
		assert_ptr_not_equal(first[i], buf);
		assert_string_equal(first[i], buf);
	}
	assert_int_equal(in.n, 1000);
	for (i = 0; i < 1000; i++) { /* the same copy, whatever buffer asks */
		snprintf(buf, sizeof(buf), "node%zu", i);
		assert_ptr_equal(sb_intern(&in, buf), first[i]);
	}
	assert_string_equal(sb_intern(&in, ""), "");
	assert_ptr_equal(sb_intern(&in, ""), sb_intern(&in, ""));
	assert_int_equal(in.n, 1001);
	sb_intern_release(&in);
	assert_int_equal(in.n, 0);
	assert_string_equal(sb_intern(&in, "again"), "again"); /* usable again */
	sb_intern_release(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intern),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
