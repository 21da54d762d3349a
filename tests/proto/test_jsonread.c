/* The strict JSON reader (proto/jsonread.c): every kind of value, escapes
 * and surrogate pairs decoded, long strings and deep arrays read whole,
 * and each refusal named with its place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/jsonread.h"

static int parse(const char *s, struct sb_jv *v, struct sb_error *err)
{
	return sb_jv_parse(s, strlen(s), v, err);
}

static void test_values(void **state)
{
	struct sb_error err = { 0 };
	struct sb_jv v;
	const struct sb_jv *a;

	(void)state;
	assert_int_equal(parse(" {\"a\": [1, -2.5e3, 0, true, false, null], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\\\"\", "
			       "\"o\": {}, \"e\": [], \"z\": \"\\u0000\"} ", &v, &err), 0);
	assert_int_equal(v.type, SB_JV_OBJECT);
	assert_int_equal(v.obj.n, 5);
	a = sb_jv_get(&v, "a");
	assert_non_null(a);
	assert_int_equal(a->arr.n, 6);
	assert_string_equal(a->arr.v[1].num.text, "-2.5e3");
	assert_true(a->arr.v[1].num.value == -2500.0);
	assert_int_equal(a->arr.v[3].type, SB_JV_TRUE);
	assert_int_equal(a->arr.v[5].type, SB_JV_NULL);
	assert_string_equal(sb_jv_str(sb_jv_get(&v, "s")), "x\xc3\xa9\xf0\x9f\x98\x80\n\"");
	assert_int_equal(sb_jv_get(&v, "z")->str.len, 1);
	assert_int_equal(sb_jv_get(&v, "o")->type, SB_JV_OBJECT);
	assert_null(sb_jv_get(&v, "missing"));
	assert_null(sb_jv_str(sb_jv_get(&v, "a")));
	sb_jv_free(&v);
	assert_int_equal(parse("\"\xe2\x82\xac\"", &v, &err), 0); /* raw UTF-8 kept */
	assert_string_equal(v.str.s, "\xe2\x82\xac");
	sb_jv_free(&v);
}

static void test_long_and_deep(void **state)
{
	struct sb_error err = { 0 };
	struct sb_jv v;
	size_t n = 1000000;
	char *s = malloc(n + 3);

	(void)state;
	/* a string of a million bytes: read whole, never cut */
	s[0] = '"';
	memset(s + 1, 'a', n);
	s[n + 1] = '"';
	s[n + 2] = '\0';
	assert_int_equal(parse(s, &v, &err), 0);
	assert_int_equal(v.str.len, n);
	sb_jv_free(&v);
	free(s);
	/* as deep as allowed, and one deeper */
	s = malloc(2 * SB_JSONR_MAX_DEPTH + 3);
	memset(s, '[', SB_JSONR_MAX_DEPTH);
	memset(s + SB_JSONR_MAX_DEPTH, ']', SB_JSONR_MAX_DEPTH);
	s[2 * SB_JSONR_MAX_DEPTH] = '\0';
	assert_int_equal(parse(s, &v, &err), 0);
	sb_jv_free(&v);
	memset(s, '[', SB_JSONR_MAX_DEPTH + 1);
	memset(s + SB_JSONR_MAX_DEPTH + 1, ']', SB_JSONR_MAX_DEPTH + 1);
	s[2 * SB_JSONR_MAX_DEPTH + 2] = '\0';
	assert_int_equal(parse(s, &v, &err), -1);
	assert_non_null(strstr(err.msg, "nested too deep"));
	free(s);
}

static void refused(const char *text, const char *why)
{
	struct sb_error err = { 0 };
	struct sb_jv v;

	if (sb_jv_parse(text, strlen(text), &v, &err) != -1 || strstr(err.msg, why) == NULL ||
	    err.code != SB_ERR_INPUT)
		fail_msg("'%s': expected a refusal with '%s', got '%s'", text, why, err.msg);
	assert_int_equal(v.type, SB_JV_NULL);
}

static void test_refusals(void **state)
{
	(void)state;
	refused("", "expected a value, found the end");
	refused("{\"a\": 1,}", "a trailing comma in an object");
	refused("[1,]", "a trailing comma in an array");
	refused("{\"a\": 1, \"a\": 2}", "a duplicate key in an object, at byte 9 (line 1, column 10)");
	refused("01", "a leading zero");
	refused("1.", "without digits after its point");
	refused("+1", "expected a value");
	refused("1e", "exponent");
	refused("NaN", "expected a value");
	refused("\"a\tb\"", "a control character");
	refused("\"\xc3\"", "invalid UTF-8");
	refused("\"\xed\xa0\x80\"", "invalid UTF-8"); /* an encoded surrogate */
	refused("\"\xc0\xaf\"", "invalid UTF-8");     /* overlong */
	refused("\"\\ud800\"", "without its low surrogate");
	refused("\"\\udc00\"", "a lone low surrogate");
	refused("\"\\x\"", "an unknown escape");
	refused("\"\\u12\"", "four hex digits");
	refused("\"abc", "does not end");
	refused("{\"a\" 1}", "expected ':'");
	refused("{1: 2}", "expected a key");
	refused("[1 2]", "expected ',' or ']'");
	refused("{} x", "more after the JSON value");
	refused("[1]\n\n  ]", "line 3, column 3");
	refused("tru", "expected a value");
}

/* Each value's bytes in the text, and equality of values. */
static void test_spans_and_equal(void **state)
{
	static const char text[] = " {\"a\": [1, {\"b\": \"x\"}],\n \"c\" : 2.50 } ";
	struct sb_jv v, w, x;
	struct sb_error err = { 0 };
	const struct sb_jv *a, *c;

	(void)state;
	assert_int_equal(sb_jv_parse(text, strlen(text), &v, &err), 0);
	assert_int_equal(v.off, 1);
	assert_int_equal(v.len, strlen(text) - 2);
	a = sb_jv_get(&v, "a");
	c = sb_jv_get(&v, "c");
	assert_memory_equal(text + a->off, "[1, {\"b\": \"x\"}]", a->len);
	assert_int_equal(a->len, strlen("[1, {\"b\": \"x\"}]"));
	assert_memory_equal(text + a->arr.v[1].off, "{\"b\": \"x\"}", a->arr.v[1].len);
	assert_memory_equal(text + c->off, "2.50", c->len);
	assert_int_equal(c->len, 4);
	/* the same value written otherwise; then one member differing */
	assert_int_equal(parse("{\"a\":[1,{\"b\":\"x\"}],\"c\":2.5}", &w, &err), 0);
	assert_true(sb_jv_equal(&v, &w));
	assert_int_equal(parse("{\"a\":[1,{\"b\":\"y\"}],\"c\":2.5}", &x, &err), 0);
	assert_false(sb_jv_equal(&v, &x));
	assert_false(sb_jv_equal(a, c));
	sb_jv_free(&x);
	assert_int_equal(parse("{\"c\":2.5,\"a\":[1,{\"b\":\"x\"}]}", &x, &err), 0);
	assert_false(sb_jv_equal(&v, &x)); /* members in another order */
	sb_jv_free(&x);
	sb_jv_free(&w);
	sb_jv_free(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_long_and_deep),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_spans_and_equal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
