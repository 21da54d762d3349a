/* The early-stop rules shared by the spec loader and sbagent
 * (proto/earlystop.c): the task map's rules read back, every limit refused,
 * the rule's text as the finish record states it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <msgpack.h>

#include "proto/earlystop.h"

static void pk_s(msgpack_packer *pk, const char *s)
{
	msgpack_pack_str_with_body(pk, s, strlen(s));
}

/* One rule {after, above|below, metric}; threshold as an int when is_int. */
static void pk_rule(msgpack_packer *pk, const char *metric, size_t mlen, const char *dir, double t,
		    int is_int, double after)
{
	msgpack_pack_map(pk, 3);
	pk_s(pk, SB_ES_AFTER);
	msgpack_pack_double(pk, after);
	pk_s(pk, dir);
	if (is_int)
		msgpack_pack_int64(pk, (int64_t)t);
	else
		msgpack_pack_double(pk, t);
	pk_s(pk, SB_ES_METRIC);
	msgpack_pack_str_with_body(pk, metric, mlen);
}

/* Decodes the buffer: the return of sb_early_stop_rules_decode, err's text in msg. */
static int decode(msgpack_sbuffer *sb, struct sb_early_stop_rules *es, char *msg, size_t size)
{
	msgpack_unpacked u;
	struct sb_error err = { 0 };
	int rc;

	msgpack_unpacked_init(&u);
	assert_int_equal(msgpack_unpack_next(&u, sb->data, sb->size, NULL), MSGPACK_UNPACK_SUCCESS);
	rc = sb_early_stop_rules_decode(es, &u.data, &err);
	memcpy(msg, err.msg, size < sizeof(err.msg) ? size : sizeof(err.msg));
	msg[size - 1] = '\0';
	msgpack_unpacked_destroy(&u);
	msgpack_sbuffer_clear(sb);
	return rc;
}

static struct sb_early_stop_rules es;

static void test_rules_read_back(void **state)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	char msg[1024], text[64];

	(void)state;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 2);
	pk_rule(&pk, "loss", 4, SB_ES_ABOVE, 5, 1, 600);
	pk_rule(&pk, "acc", 3, SB_ES_BELOW, 0.1, 0, 0);
	assert_int_equal(decode(&sb, &es, msg, sizeof(msg)), 0);
	assert_int_equal(es.n, 2);
	assert_string_equal(es.v[0].metric, "loss");
	assert_true(es.v[0].above);
	assert_true(es.v[0].after_s == 600);
	assert_string_equal(sb_early_stop_rule_text(&es.v[0], text, sizeof(text)), "above 5");
	assert_false(es.v[1].above);
	assert_true(es.v[1].threshold == 0.1);
	/* the shortest text that reads back, as declared */
	assert_string_equal(sb_early_stop_rule_text(&es.v[1], text, sizeof(text)), "below 0.1");
	msgpack_sbuffer_destroy(&sb);
}

static void test_no_rules(void **state)
{
	struct sb_error err = { 0 };
	msgpack_object nil = { .type = MSGPACK_OBJECT_NIL };

	(void)state;
	assert_int_equal(sb_early_stop_rules_decode(&es, NULL, &err), 0);
	assert_int_equal(es.n, 0);
	assert_int_equal(sb_early_stop_rules_decode(&es, &nil, &err), 0);
	assert_int_equal(es.n, 0);
}

static void test_limits_refused(void **state)
{
	char big[SB_EARLY_STOP_MAX_METRIC + 1], msg[1024];
	msgpack_sbuffer sb;
	msgpack_packer pk;

	(void)state;
	memset(big, 'm', sizeof(big));
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);

	/* SB_EARLY_STOP_MAX_RULES rules are read, one more is not */
	msgpack_pack_array(&pk, SB_EARLY_STOP_MAX_RULES);
	for (int i = 0; i < SB_EARLY_STOP_MAX_RULES; i++)
		pk_rule(&pk, "loss", 4, SB_ES_ABOVE, i, 1, 0);
	assert_int_equal(decode(&sb, &es, msg, sizeof(msg)), 0);
	assert_int_equal(es.n, SB_EARLY_STOP_MAX_RULES);
	msgpack_pack_array(&pk, SB_EARLY_STOP_MAX_RULES + 1);
	for (int i = 0; i < SB_EARLY_STOP_MAX_RULES + 1; i++)
		pk_rule(&pk, "loss", 4, SB_ES_ABOVE, i, 1, 0);
	assert_int_equal(decode(&sb, &es, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "at most 64 rules"));

	/* a metric of the longest length is read, one byte more is not */
	msgpack_pack_array(&pk, 1);
	pk_rule(&pk, big, SB_EARLY_STOP_MAX_METRIC, SB_ES_ABOVE, 1, 1, 0);
	assert_int_equal(decode(&sb, &es, msg, sizeof(msg)), 0);
	assert_int_equal(strlen(es.v[0].metric), SB_EARLY_STOP_MAX_METRIC);
	msgpack_pack_array(&pk, 1);
	pk_rule(&pk, big, SB_EARLY_STOP_MAX_METRIC + 1, SB_ES_ABOVE, 1, 1, 0);
	assert_int_equal(decode(&sb, &es, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "rule 0 of the task map"));

	/* empty, a NUL, a non-finite threshold, a negative after */
	msgpack_pack_array(&pk, 1);
	pk_rule(&pk, "", 0, SB_ES_ABOVE, 1, 1, 0);
	assert_int_equal(decode(&sb, &es, msg, sizeof(msg)), -1);
	msgpack_pack_array(&pk, 1);
	pk_rule(&pk, "a\0b", 3, SB_ES_ABOVE, 1, 1, 0);
	assert_int_equal(decode(&sb, &es, msg, sizeof(msg)), -1);
	msgpack_pack_array(&pk, 1);
	pk_rule(&pk, "loss", 4, SB_ES_ABOVE, INFINITY, 0, 0);
	assert_int_equal(decode(&sb, &es, msg, sizeof(msg)), -1);
	msgpack_pack_array(&pk, 2);
	pk_rule(&pk, "loss", 4, SB_ES_ABOVE, 1, 1, 0);
	pk_rule(&pk, "loss", 4, SB_ES_BELOW, 1, 1, -1);
	assert_int_equal(decode(&sb, &es, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "rule 1 of the task map"));

	/* both above and below; neither; not a list */
	msgpack_pack_array(&pk, 1);
	msgpack_pack_map(&pk, 4);
	pk_s(&pk, SB_ES_ABOVE);
	msgpack_pack_int64(&pk, 1);
	pk_s(&pk, SB_ES_AFTER);
	msgpack_pack_int64(&pk, 0);
	pk_s(&pk, SB_ES_BELOW);
	msgpack_pack_int64(&pk, 1);
	pk_s(&pk, SB_ES_METRIC);
	pk_s(&pk, "loss");
	assert_int_equal(decode(&sb, &es, msg, sizeof(msg)), -1);
	msgpack_pack_array(&pk, 1);
	msgpack_pack_map(&pk, 2);
	pk_s(&pk, SB_ES_AFTER);
	msgpack_pack_int64(&pk, 0);
	pk_s(&pk, SB_ES_METRIC);
	pk_s(&pk, "loss");
	assert_int_equal(decode(&sb, &es, msg, sizeof(msg)), -1);
	msgpack_pack_map(&pk, 0);
	assert_int_equal(decode(&sb, &es, msg, sizeof(msg)), -1);
	msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_read_back),
		cmocka_unit_test(test_no_rules),
		cmocka_unit_test(test_limits_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
