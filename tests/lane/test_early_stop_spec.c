/* The spec key early_stop: every error with its line:column, and the
 * canonical bytes: the rules are in the child digest when present, and a
 * spec without them keeps its digest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plan/plan_canon.h"
#include "proto/util.h"
#include "sbench/plan.h"
#include "sbench/spec.h"

#define HEAD "name: t\ncommand: [x]\nmetrics: m.json\n"

static const char *error_of(const char *text)
{
	static struct sb_error err;
	struct sb_spec *s;

	memset(&err, 0, sizeof(err));
	s = sb_spec_load_buffer(text, strlen(text), "t.yaml", &err);
	if (s == NULL)
		return err.msg;
	sb_spec_destroy(s);
	return "";
}

static void test_errors(void **state)
{
	static const struct { const char *text, *msg; } cases[] = {
		{ HEAD "early_stop: {metric: loss, above: 5}\n",
		  "t.yaml:4:13: 'early_stop' must be a list of rules, not a mapping" },
		{ HEAD "early_stop: []\n",
		  "t.yaml:4:13: 'early_stop' is an empty list (leave it out for no rules)" },
		{ "name: t\ncommand: [x]\nearly_stop: [{metric: loss, above: 5}]\n",
		  "t.yaml:3:13: 'early_stop' needs 'metrics': the file its rules read" },
		{ HEAD "early_stop:\n  - loss\n",
		  "t.yaml:5:5: an early_stop rule must be a mapping {metric, above or below, after}, "
		  "not a string" },
		{ HEAD "early_stop:\n  - {metric: loss, abov: 5}\n",
		  "t.yaml:5:20: unknown key 'abov' in an early_stop rule (did you mean 'above'?)" },
		{ HEAD "early_stop:\n  - {above: 5}\n",
		  "t.yaml:5:5: an early_stop rule needs 'metric' (the name of a number in the "
		  "metrics file)" },
		{ HEAD "early_stop:\n  - {metric: loss}\n",
		  "t.yaml:5:5: an early_stop rule needs exactly one of 'above' and 'below'" },
		{ HEAD "early_stop:\n  - {metric: loss, above: 5, below: 1}\n",
		  "t.yaml:5:5: an early_stop rule needs exactly one of 'above' and 'below'" },
		{ HEAD "early_stop:\n  - {metric: loss, above: '5'}\n",
		  "t.yaml:5:27: early_stop 'above' must be a number, not a string" },
		{ HEAD "early_stop:\n  - {metric: loss, below: .nan}\n",
		  "t.yaml:5:27: early_stop 'below' is '.nan', not a finite number in range" },
		{ HEAD "early_stop:\n  - {metric: loss, above: 5, after: -1}\n",
		  "t.yaml:5:37: early_stop 'after' is -1 seconds, out of range (0..10000000)" },
		{ HEAD "early_stop:\n  - {metric: loss, above: 5, after: true}\n",
		  "t.yaml:5:37: early_stop 'after' must be a number, not a bool" },
		{ HEAD "early_stop:\n  - {metric: '', above: 5}\n",
		  "t.yaml:5:14: early_stop 'metric' must be a non-empty string" },
		{ HEAD "early_stop:\n  - {metric: [a], above: 5}\n",
		  "t.yaml:5:14: early_stop 'metric' must be a non-empty string" },
		{ HEAD "early_stop:\n  - {metric: loss, above: 5, after: 600}\n"
		  "  - {metric: acc, below: 0.25}\n", "" },
	};
	size_t i, bad = 0;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = error_of(cases[i].text);
		if (strcmp(got, cases[i].msg) != 0) {
			print_error("case %zu:\n  want: %s\n  got:  %s\n", i, cases[i].msg, got);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static char *child_hex(const char *text, char digest[65])
{
	struct sb_error err = { 0 };
	struct sb_spec *s = sb_spec_load_buffer(text, strlen(text), "t.yaml", &err);
	struct sb_plan *p;
	uint8_t *bytes;
	size_t len = 0;
	char *hex;

	assert_non_null(s);
	p = sb_plan_create(s, &err);
	assert_non_null(p);
	bytes = sb_plan_child_canonical(p, 0, &len, &err);
	assert_non_null(bytes);
	hex = malloc(2 * len + 1);
	sb_hex_encode(bytes, len, hex);
	sb_hex_encode(sb_plan_child_digest(p, 0), 32, digest);
	free(bytes);
	sb_plan_destroy(p);
	sb_spec_destroy(s);
	return hex;
}

static void test_canonical(void **state)
{
	/* the canonical bytes of a spec with rules: map of 8, early_stop after command */
	static const char want_head[] =
		"88"                                    /* map of 8 */
		"a7636f6d6d616e64" "91" "a178"          /* command: [x] */
		"aa6561726c795f73746f70" "92"           /* early_stop: [ */
		"83" "a561626f7665" "05"                /*   {above: 5, */
		"a56166746572" "cd0258"                 /*    after: 600, */
		"a66d6574726963" "a46c6f7373"           /*    metric: loss}, */
		"83" "a56166746572" "00"                /*   {after: 0, */
		"a562656c6f77" "cb3fd0000000000000"     /*    below: 0.25, */
		"a66d6574726963" "a3616363"             /*    metric: acc}] */
		"a3656e76" "80";                        /* env: {} ... */
	char d1[65], d2[65], d3[65];
	char *with, *without, *reordered;

	(void)state;
	with = child_hex(HEAD "early_stop:\n  - {metric: loss, above: 5, after: 600}\n"
			 "  - {below: 0.25, metric: acc}\n", d1);
	assert_memory_equal(with, want_head, strlen(want_head));
	/* equivalent spellings give the same digest; other rules another */
	reordered = child_hex(HEAD "early_stop: [{after: 600, above: 5.0e0, metric: loss}, "
			      "{metric: acc, below: 0.25, after: 0}]\n", d2);
	free(reordered);
	without = child_hex(HEAD, d3);
	assert_string_not_equal(d1, d3);
	/* 5.0e0 is a float, 5 an int: different values, so different digests */
	assert_string_not_equal(d1, d2);
	reordered = child_hex(HEAD "early_stop: [{after: 600, above: 5, metric: loss}, "
			      "{metric: acc, below: 0.25, after: 0}]\n", d2);
	assert_string_equal(d1, d2);
	/* without rules the bytes are those of every earlier version: map of 7 */
	assert_memory_equal(without, "87", 2);
	assert_null(strstr(without, "6561726c795f73746f70"));
	free(with);
	free(without);
	free(reordered);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_canonical),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
