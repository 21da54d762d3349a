/* sbagent's early-stop rules (agent/earlystop.c): loading them from the
 * task map, the first rule that holds (strictly above or below, after its
 * minimum run time, its metric present), and the finish record's
 * early_stop value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <msgpack.h>

#include "agent/agent.h"
#include "proto/mpcheck.h"

/* The task map's early_stop: [{above: 5, after: 600, metric: loss},
 * {after: 0, below: 0.25, metric: acc}] */
static void pack_rules(msgpack_sbuffer *sb)
{
	msgpack_packer pk;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 2);
	msgpack_pack_map(&pk, 3);
	msgpack_pack_str_with_body(&pk, "above", 5);
	msgpack_pack_int64(&pk, 5);
	msgpack_pack_str_with_body(&pk, "after", 5);
	msgpack_pack_int64(&pk, 600);
	msgpack_pack_str_with_body(&pk, "metric", 6);
	msgpack_pack_str_with_body(&pk, "loss", 4);
	msgpack_pack_map(&pk, 3);
	msgpack_pack_str_with_body(&pk, "after", 5);
	msgpack_pack_int64(&pk, 0);
	msgpack_pack_str_with_body(&pk, "below", 5);
	msgpack_pack_double(&pk, 0.25);
	msgpack_pack_str_with_body(&pk, "metric", 6);
	msgpack_pack_str_with_body(&pk, "acc", 3);
}

static void load(struct sb_early_stop_rules *es)
{
	msgpack_sbuffer sb;
	msgpack_unpacked u;
	struct sb_error err = { 0 };

	msgpack_sbuffer_init(&sb);
	pack_rules(&sb);
	msgpack_unpacked_init(&u);
	assert_int_equal(msgpack_unpack_next(&u, sb.data, sb.size, NULL), MSGPACK_UNPACK_SUCCESS);
	assert_int_equal(sb_early_stop_rules_decode(es, &u.data, &err), 0);
	msgpack_unpacked_destroy(&u);
	msgpack_sbuffer_destroy(&sb);
}

static void metrics(struct sb_agent_metrics *m, const char *json)
{
	struct sb_error err = { 0 };

	assert_int_equal(sb_agent_metrics_parse(json, strlen(json), "m.json", m, &err), 0);
}

static void test_rules(void **state)
{
	static struct sb_early_stop_rules es;
	struct sb_agent_early_hit hit;
	struct sb_agent_metrics m;

	(void)state;
	load(&es);
	assert_int_equal(es.n, 2);
	assert_string_equal(es.v[0].metric, "loss");
	assert_string_equal(es.v[0].threshold_text, "5");
	assert_string_equal(es.v[1].threshold_text, "0.25");

	metrics(&m, "{\"loss\": 7.3, \"acc\": 0.5}");
	assert_int_equal(sb_agent_early_stop_check(&es, &m, 599.9, &hit), 0); /* not after 600 s yet */
	assert_int_equal(sb_agent_early_stop_check(&es, &m, 600.0, &hit), 1);
	assert_int_equal(hit.index, 0);
	assert_true(hit.value == 7.3 && !hit.value_is_int && hit.elapsed_s == 600.0);
	sb_agent_metrics_release(&m);

	metrics(&m, "{\"loss\": 5, \"acc\": 0.25}");    /* equal is not above, nor below */
	assert_int_equal(sb_agent_early_stop_check(&es, &m, 1e6, &hit), 0);
	sb_agent_metrics_release(&m);

	metrics(&m, "{\"loss\": 9, \"acc\": 0.1}");     /* both hold: the first written wins */
	assert_int_equal(sb_agent_early_stop_check(&es, &m, 1e6, &hit), 1);
	assert_int_equal(hit.index, 0);
	assert_true(hit.value_is_int && hit.value_i == 9);
	assert_int_equal(sb_agent_early_stop_check(&es, &m, 10, &hit), 1); /* loss not yet: acc */
	assert_int_equal(hit.index, 1);
	sb_agent_metrics_release(&m);

	metrics(&m, "{\"val_loss\": 100, \"train\": {\"acc\": 0.01}}"); /* no 'acc', no 'loss' */
	assert_int_equal(sb_agent_early_stop_check(&es, &m, 1e6, &hit), 0);
	sb_agent_metrics_release(&m);
}

static void test_finish_value(void **state)
{
	static struct sb_early_stop_rules es;
	struct sb_agent_early_hit hit;
	struct sb_agent_metrics m;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_unpacked u;
	const msgpack_object *o;

	(void)state;
	load(&es);
	metrics(&m, "{\"acc\": 0.125}");
	assert_int_equal(sb_agent_early_stop_check(&es, &m, 3.5, &hit), 1);
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	assert_int_equal(sb_agent_pack_early_stop(&pk, &es, &hit), 0);
	msgpack_unpacked_init(&u);
	assert_int_equal(msgpack_unpack_next(&u, sb.data, sb.size, NULL), MSGPACK_UNPACK_SUCCESS);
	o = sb_mp_get(&u.data, "rule");
	assert_non_null(o);
	assert_memory_equal(o->via.str.ptr, "below 0.25", o->via.str.size);
	assert_int_equal(o->via.str.size, 10);
	o = sb_mp_get(&u.data, "metric");
	assert_memory_equal(o->via.str.ptr, "acc", 3);
	assert_true(sb_mp_get(&u.data, "value")->via.f64 == 0.125);
	assert_true(sb_mp_get(&u.data, "after_s")->via.f64 == 3.5);
	assert_true(sb_mp_get(&u.data, "declared_after_s")->via.f64 == 0.0);
	assert_int_equal(sb_mp_get(&u.data, "index")->via.u64, 1);
	msgpack_unpacked_destroy(&u);
	msgpack_sbuffer_destroy(&sb);
	sb_agent_metrics_release(&m);
}

static void test_bad_maps(void **state)
{
	static struct sb_early_stop_rules es;
	struct sb_error err = { 0 };
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_unpacked u;

	(void)state;
	assert_int_equal(sb_early_stop_rules_decode(&es, NULL, &err), 0); /* none: no rules */
	assert_int_equal(es.n, 0);
	/* a rule with both above and below */
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 1);
	msgpack_pack_map(&pk, 4);
	msgpack_pack_str_with_body(&pk, "above", 5);
	msgpack_pack_int64(&pk, 1);
	msgpack_pack_str_with_body(&pk, "after", 5);
	msgpack_pack_int64(&pk, 0);
	msgpack_pack_str_with_body(&pk, "below", 5);
	msgpack_pack_int64(&pk, 0);
	msgpack_pack_str_with_body(&pk, "metric", 6);
	msgpack_pack_str_with_body(&pk, "x", 1);
	msgpack_unpacked_init(&u);
	assert_int_equal(msgpack_unpack_next(&u, sb.data, sb.size, NULL), MSGPACK_UNPACK_SUCCESS);
	assert_int_equal(sb_early_stop_rules_decode(&es, &u.data, &err), -1);
	assert_non_null(strstr(err.msg, "early_stop rule 0 of the task map"));
	msgpack_unpacked_destroy(&u);
	msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_finish_value),
		cmocka_unit_test(test_bad_maps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
