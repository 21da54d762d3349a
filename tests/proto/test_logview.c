/* The JSON and human views of records (ctl/logview.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctl/logview.h"

/* Renders the msgpack bytes mp[0..n) as JSON and compares with want. */
static void check_json(const char *mp, size_t n, const char *want)
{
	msgpack_zone *zone = msgpack_zone_new(1024);
	msgpack_object obj;
	struct sb_json j;
	size_t off = 0, len = 0;
	char *text = NULL;
	FILE *out = open_memstream(&text, &len);

	assert_int_equal(msgpack_unpack(mp, n, &off, zone, &obj), MSGPACK_UNPACK_SUCCESS);
	sb_json_init(&j, out);
	sb_logview_json_value(&j, &obj);
	fclose(out);
	assert_string_equal(text, want);
	free(text);
	msgpack_zone_free(zone);
}

#define CHECK(lit, want) check_json(lit, sizeof(lit) - 1, want)

static void test_json_values(void **state)
{
	(void)state;
	CHECK("\xc0", "null");
	CHECK("\xc3", "true");
	CHECK("\x7f", "127");
	CHECK("\xff", "-1");
	CHECK("\xd3\x80\x00\x00\x00\x00\x00\x00\x00", "-9223372036854775808");
	CHECK("\xcf\xff\xff\xff\xff\xff\xff\xff\xff", "18446744073709551615");
	CHECK("\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a", "0.1");
	CHECK("\xcb\x3f\xf0\x00\x00\x00\x00\x00\x00", "1.0");
	CHECK("\xca\x3f\x80\x00\x00", "1.0");              /* float32 */
	CHECK("\xa3\x61\"\n", "\"a\\\"\\n\"");
	CHECK("\xc4\x03\x00\xab\xff", "\"00abff\"");          /* bin -> hex */
	CHECK("\x92\x01\xc0", "[1,null]");
	CHECK("\x82\xa1k\x90\x01\xa1v", "{\"k\":[],\"1\":\"v\"}");
	CHECK("\x81\xa1m\x81\xa1x\xcb\x40\x09\x21\xf9\xf0\x1b\x86\x6e",
		"{\"m\":{\"x\":3.14159}}");
}

static void test_json_record(void **state)
{
	/* payload {"exit_code": 0, "seq": 9} : "seq" clashes and is left out */
	static const char payload[] = "\x82\xa9" "exit_code" "\x00\xa3" "seq" "\x09";
	msgpack_zone *zone = msgpack_zone_new(1024);
	struct sb_log_record rec = {
		.seq = 3, .time_ns = 1700000000000000000, .type = "finish",
		.id = { .bench = "ab", .child = -1, .attempt = 0, .restart = -1,
			.host = "h", .pid = 7 },
		.verified = true, .offset = 99,
	};
	size_t off = 0, len = 0;
	char *text = NULL;
	FILE *out = open_memstream(&text, &len);
	struct sb_json j;

	(void)state;
	assert_int_equal(msgpack_unpack(payload, sizeof(payload) - 1, &off, zone,
		&rec.payload), MSGPACK_UNPACK_SUCCESS);
	sb_json_init(&j, out);
	sb_logview_json_record(&j, &rec, "p.log");
	fputc('\n', out);
	sb_logview_human_record(out, &rec);
	fclose(out);
	assert_non_null(strstr(text, "{\"format\":1,\"path\":\"p.log\",\"seq\":3,\"type\":\"finish\","
		"\"time\":\"2023-11-14T22:13:20.000000000Z\""));
	assert_non_null(strstr(text, "\"bench\":\"ab\",\"child\":null,"));
	assert_non_null(strstr(text, "\"job_id\":null,"));
	assert_non_null(strstr(text, "\"verified\":true,"));
	assert_non_null(strstr(text, "\"offset\":99,\"exit_code\":0}\n"));
	assert_null(strstr(text, "\"seq\":9"));
	assert_non_null(strstr(text, "     3  2023-11-14T22:13:20.000000000Z  finish    exit=0"));
	assert_non_null(strstr(text, "host=h pid=7\n"));
	free(text);
	msgpack_zone_free(zone);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_values),
		cmocka_unit_test(test_json_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
