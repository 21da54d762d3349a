/* Shared text utilities: float text (docs/spec.md), hex, RFC 3339, JSON writer. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <unistd.h>

#include "proto/json.h"
#include "proto/util.h"

static void test_float_text(void **state)
{
	static const struct { double v; const char *text; } cases[] = {
		{ 0.1, "0.1" }, { 1e-05, "1e-05" }, { 1.0, "1.0" }, { 1e20, "1e+20" },
		{ 0.001, "0.001" }, { 2.5, "2.5" }, { 100.0, "100.0" }, { 120.0, "120.0" }, { -3.0, "-3.0" },
		{ 5e-324, "5e-324" }, { 1.7976931348623157e308, "1.7976931348623157e+308" },
		{ 0.30000000000000004, "0.30000000000000004" }, { 123456789.0, "123456789.0" },
	};
	char buf[SB_DOUBLE_TEXT_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sb_fmt_double(cases[i].v, buf);
		assert_string_equal(buf, cases[i].text);
		assert_true(strtod(buf, NULL) == cases[i].v);
	}
}

/* The views for people: 6 significant digits, in the same float text. */
static void test_float_text_short(void **state)
{
	static const struct { double v; const char *text; } cases[] = {
		{ 0.007071067811865481, "0.00707107" }, { 100.0, "100.0" }, { 1500000.0, "1500000.0" },
		{ 0.1, "0.1" }, { 2.0 / 3.0, "0.666667" }, { 1e16, "1e+16" }, { 123456789.0, "123457000.0" },
		{ -2.5e-7, "-2.5e-07" },
	};
	char buf[SB_DOUBLE_TEXT_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(sb_fmt_double_short(cases[i].v, buf), cases[i].text);
	assert_string_equal(sb_fmt_double_short(NAN, buf), "nan");
}

static void test_hex_round_trip(void **state)
{
	uint8_t in[4] = { 0x00, 0xab, 0x10, 0xff }, out[4];
	char hex[9];

	(void)state;
	sb_hex_encode(in, 4, hex);
	assert_string_equal(hex, "00ab10ff");
	assert_int_equal(sb_hex_decode("00AB10ff", out, 4), 0);
	assert_memory_equal(in, out, 4);
	assert_int_equal(sb_hex_decode("00ab10f", out, 4), -1);
	assert_int_equal(sb_hex_decode("00ab10fg", out, 4), -1);
}

static void test_rfc3339(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(sb_fmt_time_ns(0, buf), "1970-01-01T00:00:00.000000000Z");
	assert_string_equal(sb_fmt_time_ns(1796043600123456789LL, buf), "2026-11-30T13:00:00.123456789Z");
	assert_string_equal(sb_fmt_time_ns(-1, buf), "1969-12-31T23:59:59.999999999Z");
}

static char *render(void (*fn)(struct sb_json *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct sb_json j;

	sb_json_init(&j, f);
	fn(&j);
	assert_false(sb_json_error(&j));
	fclose(f);
	return text;
}

static void doc_nested(struct sb_json *j)
{
	sb_json_obj_begin(j);
	sb_json_key(j, "format");
	sb_json_int(j, 1);
	sb_json_key(j, "list");
	sb_json_arr_begin(j);
	sb_json_uint(j, 18446744073709551615ULL);
	sb_json_double(j, 0.5);
	sb_json_double(j, 1.0 / 0.0);
	sb_json_bool(j, true);
	sb_json_str(j, NULL);
	sb_json_obj_begin(j);
	sb_json_obj_end(j);
	sb_json_arr_end(j);
	sb_json_key(j, "s");
	sb_json_str(j, "q\"b\\n\n\t\x01\x7f é \xff\xc3");
	sb_json_obj_end(j);
}

static void test_json_document(void **state)
{
	char *text = render(doc_nested);

	(void)state;
	assert_string_equal(text,
		"{\"format\":1,\"list\":[18446744073709551615,0.5,null,true,null,{}],"
		"\"s\":\"q\\\"b\\\\n\\n\\t\\u0001\\u007f é \\ufffd\\ufffd\"}");
	free(text);
}

static void doc_unbalanced(struct sb_json *j)
{
	sb_json_arr_end(j);
	j->error = false;
	for (int i = 0; i < SB_JSON_MAX_DEPTH + 2; i++)
		sb_json_arr_begin(j);
}

static void test_json_depth_limit(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct sb_json j;

	(void)state;
	sb_json_init(&j, f);
	doc_unbalanced(&j);
	assert_true(sb_json_error(&j));
	fclose(f);
	assert_int_equal(strlen(text), SB_JSON_MAX_DEPTH);
	free(text);
}

/* sb_read_all: the whole of a pipe (no size hint, grown step by step), a
 * file exactly at the limit, one byte past it refused (EFBIG), never cut. */
static void pipe_with(const char *text, size_t n, int fds[2])
{
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(sb_write_all(NULL, fds[1], text, n), 0);
	close(fds[1]);
}

static void test_read_all(void **state)
{
	static char big[10000];
	char *data;
	size_t len, i;
	int fds[2];

	(void)state;
	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);
	/* no hint: grown from 1 byte to what is there */
	pipe_with(big, 5000, fds);
	assert_int_equal(sb_read_all(fds[0], sizeof(big), 0, &data, &len), 0);
	assert_int_equal(len, 5000);
	assert_memory_equal(data, big, 5000);
	assert_int_equal(data[len], '\0');
	free(data);
	close(fds[0]);
	/* exactly the limit, with a hint that is too small */
	pipe_with(big, 4096, fds);
	assert_int_equal(sb_read_all(fds[0], 4096, 10, &data, &len), 0);
	assert_int_equal(len, 4096);
	free(data);
	close(fds[0]);
	/* one byte more than the limit: refused, whatever the hint */
	pipe_with(big, 4097, fds);
	errno = 0;
	assert_int_equal(sb_read_all(fds[0], 4096, 4096, &data, &len), -1);
	assert_int_equal(errno, EFBIG);
	close(fds[0]);
	/* empty */
	pipe_with(big, 0, fds);
	assert_int_equal(sb_read_all(fds[0], 10, 0, &data, &len), 0);
	assert_int_equal(len, 0);
	assert_int_equal(data[0], '\0');
	free(data);
	close(fds[0]);
	/* a bad descriptor: read's own errno */
	assert_int_equal(sb_read_all(-1, 10, 0, &data, &len), -1);
	assert_int_equal(errno, EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_float_text),
		cmocka_unit_test(test_float_text_short),
		cmocka_unit_test(test_hex_round_trip),
		cmocka_unit_test(test_rfc3339),
		cmocka_unit_test(test_json_document),
		cmocka_unit_test(test_json_depth_limit),
		cmocka_unit_test(test_read_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
