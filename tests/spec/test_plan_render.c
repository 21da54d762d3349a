/* The plan renderers of the public API: the exact bytes of the table and
 * the JSON document, into a stream and into a buffer, and their errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sbench/plan.h"
#include "sbench/spec.h"

static const char spec_text[] =
	"name: tiny\n"
	"command: [run, --lr, \"{lr}\", --m, \"{model}\"]\n"
	"parameters:\n"
	"  lr: [0.5, 2]\n"
	"  model: [a b]\n";

static const char want_json[] =
	"{\"format\":1,\"benchmark\":{\"name\":\"tiny\",\"tag\":null,\"digest\":\"%s\",\"children\":2},"
	"\"children\":[{\"index\":0,\"digest\":\"%s\",\"params\":{\"lr\":0.5,\"model\":\"a b\"},"
	"\"repeat\":0,\"command\":[\"run\",\"--lr\",\"0.5\",\"--m\",\"a b\"]},"
	"{\"index\":1,\"digest\":\"%s\",\"params\":{\"lr\":2,\"model\":\"a b\"},"
	"\"repeat\":0,\"command\":[\"run\",\"--lr\",\"2\",\"--m\",\"a b\"]}]}\n";

struct fixture {
	struct sb_spec *spec;
	struct sb_plan *plan;
};

static int setup(void **state)
{
	static struct fixture f;
	struct sb_error err = { 0 };

	f.spec = sb_spec_load_buffer(spec_text, sizeof(spec_text) - 1, "tiny.yaml", &err);
	assert_non_null(f.spec);
	f.plan = sb_plan_create(f.spec, &err);
	assert_non_null(f.plan);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	sb_plan_destroy(f->plan);
	sb_spec_destroy(f->spec);
	return 0;
}

static char *hex(const struct sb_plan *plan, size_t i)
{
	static char buf[2][65];
	const uint8_t *d = sb_plan_child_digest(plan, i);
	size_t k;

	for (k = 0; k < 32; k++)
		snprintf(buf[i] + 2 * k, 3, "%02x", d[k]);
	return buf[i];
}

static void test_json_bytes(void **state)
{
	struct fixture *f = *state;
	struct sb_error err = { 0 };
	char want[4096], *buf = NULL;
	size_t len = 0;

	snprintf(want, sizeof(want), want_json, sb_plan_benchmark_digest_hex(f->plan),
		 hex(f->plan, 0), hex(f->plan, 1));
	assert_int_equal(sb_plan_render_buffer(f->plan, SB_FORMAT_JSON, &buf, &len, &err), 0);
	assert_string_equal(buf, want);
	assert_int_equal(len, strlen(want));
	free(buf);
}

static void test_text_and_stream_agree(void **state)
{
	struct fixture *f = *state;
	struct sb_error err = { 0 };
	char *buf = NULL, *sbuf = NULL;
	size_t slen = 0;
	FILE *s = open_memstream(&sbuf, &slen);

	assert_int_equal(sb_plan_render_buffer(f->plan, SB_FORMAT_TEXT, &buf, NULL, &err), 0);
	assert_non_null(strstr(buf, "benchmark  tiny\n"));
	assert_non_null(strstr(buf, "children   2\n"));
	assert_non_null(strstr(buf, "lr=0.5 model=\"a b\"\n"));
	assert_int_equal(sb_plan_render(f->plan, SB_FORMAT_TEXT, s, &err), 0);
	fclose(s);
	assert_string_equal(sbuf, buf);
	free(buf);
	free(sbuf);
}

static void test_errors(void **state)
{
	struct fixture *f = *state;
	struct sb_error err = { 0 };
	char *buf = (char *)1;
	FILE *full = fopen("/dev/full", "w");

	assert_int_equal(sb_plan_render_buffer(f->plan, (enum sb_format)7, &buf, NULL, &err), -1);
	assert_null(buf);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_non_null(full);
	assert_int_equal(sb_plan_render(f->plan, SB_FORMAT_JSON, full, &err), -1);
	assert_int_equal(err.code, SB_ERR_RUNTIME);
	assert_int_equal(sb_plan_render(f->plan, SB_FORMAT_JSON, full, NULL), -1); /* err optional */
	fclose(full);
}

/* The codes a front end maps to exit statuses and exception types. */
static void test_error_codes(void **state)
{
	static const char bad[] = "name: x\ncommand: [a]\nparameters: {p: [1, 1]}\n";
	static const char typo[] = "name: x\ncommand: [a]\nparamters: {p: [1]}\n";
	struct sb_error err = { 0 };
	struct sb_spec *spec;

	(void)state;
	assert_null(sb_spec_load("/nonexistent/spec.yaml", &err));
	assert_int_equal(err.code, SB_ERR_NOT_FOUND);
	assert_null(sb_spec_load("/", &err));
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_null(sb_spec_load_buffer(typo, sizeof(typo) - 1, "typo.yaml", &err));
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_non_null(strstr(err.msg, "typo.yaml:3:"));
	err.code = SB_ERR_NONE;
	spec = sb_spec_load_buffer(bad, sizeof(bad) - 1, "bad.yaml", &err);
	if (spec != NULL) { /* a duplicate point is found by the plan */
		assert_null(sb_plan_create(spec, &err));
		sb_spec_destroy(spec);
	}
	assert_int_equal(err.code, SB_ERR_INPUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_bytes),
		cmocka_unit_test(test_text_and_stream_agree),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_codes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
