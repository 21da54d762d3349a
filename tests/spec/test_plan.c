/* Planning: enumeration order, include/exclude/repeats, substitution and
 * shell quoting, digests independent of threading, JSON fast paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "plan/plan_canon.h"
#include "plan/plan_json.h"
#include "proto/json.h"
#include "sbench/plan.h"
#include "sbench/spec.h"


struct fixture {
	struct sb_spec *spec;
	struct sb_plan *plan;
	struct sb_child *child;
};

static void make(struct fixture *f, const char *text)
{
	struct sb_error err = { 0 };

	f->spec = sb_spec_load_buffer(text, strlen(text), "t.yaml", &err);
	if (f->spec == NULL)
		print_error("%s\n", err.msg);
	assert_non_null(f->spec);
	f->plan = sb_plan_create(f->spec, &err);
	if (f->plan == NULL)
		print_error("%s\n", err.msg);
	assert_non_null(f->plan);
	f->child = sb_child_create();
	assert_non_null(f->child);
}

static void done(struct fixture *f)
{
	sb_child_destroy(f->child);
	sb_plan_destroy(f->plan);
	sb_spec_destroy(f->spec);
}

/* "a=x b=1 r=0" for child i */
static const char *describe(struct fixture *f, size_t i)
{
	static char buf[256];
	struct sb_error err;
	size_t k, o = 0;

	assert_int_equal(sb_plan_child(f->plan, i, f->child, &err), 0);
	for (k = 0; k < sb_child_param_count(f->child); k++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s=%s ", sb_spec_param_name(f->spec, k),
				      sb_child_param_text(f->child, k));
	snprintf(buf + o, sizeof(buf) - o, "r=%d", (int)sb_child_repeat(f->child));
	return buf;
}

static void expect_children(struct fixture *f, const char *const *want, size_t n)
{
	size_t i;

	assert_int_equal(sb_plan_count(f->plan), n);
	for (i = 0; i < n; i++)
		assert_string_equal(describe(f, i), want[i]);
}

static void test_order(void **state)
{
	static const char *const want[] = {
		"a=x b=1 r=0", "a=x b=2 r=0", "a=y b=1 r=0", "a=y b=2 r=0",
	};
	struct fixture f;

	(void)state;
	/* names sorted by bytes, the last one fastest, values in written order */
	make(&f, "name: t\ncommand: [x]\nparameters:\n  b: [1, 2]\n  a: [x, y]\n");
	expect_children(&f, want, 4);
	done(&f);
}

static void test_byte_order_of_names(void **state)
{
	static const char *const want[] = { "B=1 _=2 a=3 r=0" };
	struct fixture f;

	(void)state;
	/* 'B' (0x42) < '_' (0x5f) < 'a' (0x61) */
	make(&f, "name: t\ncommand: [x]\nparameters: {a: [3], _: [2], B: [1]}\n");
	expect_children(&f, want, 1);
	done(&f);
}

static void test_include_exclude_repeats(void **state)
{
	static const char *const want[] = {
		"lr=0.1 model=r18 r=0", "lr=0.1 model=r18 r=1",
		"lr=0.1 model=r50 r=0", "lr=0.1 model=r50 r=1",
		"lr=0.01 model=r18 r=0", "lr=0.01 model=r18 r=1",
		"lr=0.5 model=vit r=0", "lr=0.5 model=vit r=1",
		"lr=0.01 model=r50 r=0", "lr=0.01 model=r50 r=1",
	};
	struct fixture f;

	(void)state;
	make(&f, "name: t\ncommand: [x]\nrepeats: 2\n"
		 "parameters: {lr: [0.1, 0.01], model: [r18, r50]}\n"
		 "exclude: [{lr: 0.01, model: r50}]\n"
		 "include: [{lr: 0.5, model: vit}, {model: r50, lr: 1e-2}]\n");
	/* an excluded grid point may come back through include, at its place */
	expect_children(&f, want, 10);
	done(&f);
}

static void test_exclude_partial(void **state)
{
	static const char *const want[] = { "a=1 b=x r=0", "a=1 b=y r=0", "a=3 b=x r=0", "a=3 b=y r=0" };
	struct fixture f;

	(void)state;
	make(&f, "name: t\ncommand: [x]\nparameters: {a: [1, 2, 3], b: [x, y]}\nexclude: [{a: 2}]\n");
	expect_children(&f, want, 4);
	assert_int_equal(sb_plan_warning_count(f.plan), 0);
	done(&f);
	/* an exclude entry that matches nothing is a warning */
	make(&f, "name: t\ncommand: [x]\nparameters: {a: [1, 2, 3]}\nexclude: [{a: 4}]\n");
	assert_int_equal(sb_plan_count(f.plan), 3);
	assert_int_equal(sb_plan_warning_count(f.plan), 1);
	assert_string_equal(sb_plan_warning(f.plan, 0),
			    "t.yaml:4:11: warning: exclude entry matches no grid point (a value is not in its parameter's list)");
	done(&f);
}

static void test_types_are_distinct(void **state)
{
	static const char *const want[] = { "a=1 r=0", "a=1.0 r=0", "a=1 r=0", "a=true r=0" };
	struct fixture f;

	(void)state;
	/* 1, 1.0, "1" and true are four different points */
	make(&f, "name: t\ncommand: [x]\nparameters: {a: [1]}\ninclude: [{a: 1.0}, {a: \"1\"}, {a: true}]\n");
	expect_children(&f, want, 4);
	assert_int_equal(sb_child_param(f.child, 0)->type, SB_VALUE_BOOL);
	done(&f);
}

static void test_include_only_and_single(void **state)
{
	static const char *const want1[] = { "a=1 b=x r=0", "a=2 b=y r=0" };
	static const char *const want2[] = { "r=0", "r=1", "r=2" };
	struct fixture f;

	(void)state;
	make(&f, "name: t\ncommand: [x]\ninclude: [{b: x, a: 1}, {a: 2, b: y}]\n");
	expect_children(&f, want1, 2);
	done(&f);
	make(&f, "name: t\ncommand: [x, \"{repeat}\"]\nrepeats: 3\n");
	expect_children(&f, want2, 3);
	done(&f);
}

static void test_substitution(void **state)
{
	struct fixture f;
	struct sb_error err;
	char *const *argv;

	(void)state;
	make(&f, "name: t\nrepeats: 2\nparameters: {lr: [0.001], s: [\"a b\"]}\n"
		 "command: [run, \"--lr={lr}\", \"{s}\", \"{{lr}}\", \"a}}b}\", \"{repeat}/{child}\", \"{{{lr}}}\", 1e3, true]\n"
		 "env: {A: \"{s}-{lr}\", B: 8}\n");
	assert_int_equal(sb_plan_child(f.plan, 1, f.child, &err), 0);
	assert_false(sb_child_is_shell(f.child));
	assert_null(sb_child_shell(f.child));
	assert_int_equal(sb_child_argc(f.child), 9);
	argv = sb_child_argv(f.child);
	assert_string_equal(argv[0], "run");
	assert_string_equal(argv[1], "--lr=0.001");
	assert_string_equal(argv[2], "a b");      /* argv: never quoted */
	assert_string_equal(argv[3], "{lr}");
	assert_string_equal(argv[4], "a}b}");
	assert_string_equal(argv[5], "1/1");
	assert_string_equal(argv[6], "{0.001}");
	assert_string_equal(argv[7], "1000.0");   /* a number: its canonical text */
	assert_string_equal(argv[8], "true");
	assert_null(argv[9]);
	assert_string_equal(sb_child_env_value(f.child, 0), "a b-0.001");
	assert_string_equal(sb_child_env_value(f.child, 1), "8");
	/* the cheaper listing call: parameters and digest, no command */
	assert_int_equal(sb_plan_child_params(f.plan, 0, f.child, &err), 0);
	assert_int_equal(sb_child_repeat(f.child), 0);
	assert_string_equal(sb_child_param_text(f.child, 0), "0.001");
	assert_memory_equal(sb_child_digest(f.child), sb_plan_child_digest(f.plan, 0), 32);
	assert_null(sb_child_argv(f.child));
	assert_null(sb_child_env_value(f.child, 0));
	assert_int_equal(sb_plan_child_params(f.plan, 2, f.child, &err), -1);
	done(&f);
}

/* Every value a parameter can hold comes through /bin/sh -c as itself. */
static void test_shell_quoting(void **state)
{
	static const char *const values[] = {
		"it's", "a b", "$(touch pwned)", "`touch pwned`", "line1\nline2", "\"dq\" \\ back",
		"'", "''", "; touch pwned", "$HOME", "*", "-n", "", "a\tb", "{x}", "\\'",
	};
	char dir[] = "/tmp/sbtest-plan-XXXXXX", cwd[4096];
	struct fixture f;
	struct sb_error err;
	char *text, *list = strdup("");
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char *esc = malloc(2 * strlen(values[i]) + 1), *p = esc, *next;
		const char *c;
		for (c = values[i]; *c; c++) {
			if (*c == '\n') {
				*p++ = '\\';
				*p++ = 'n';
				continue;
			}
			if (*c == '\t') {
				*p++ = '\\';
				*p++ = 't';
				continue;
			}
			if (*c == '"' || *c == '\\')
				*p++ = '\\';
			*p++ = *c;
		}
		*p = '\0';
		assert_true(asprintf(&next, "%s%s\"%s\"", list, i ? ", " : "", esc) > 0);
		free(esc);
		free(list);
		list = next;
	}
	assert_true(asprintf(&text, "name: t\ncommand: \"printf '%%s|' {v} && printf '%%s' {child}\"\nparameters: {v: [%s]}\n",
			     list) > 0);
	free(list);
	make(&f, text);
	free(text);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chdir(dir), 0);
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char out[256], want[256];
		size_t n;
		FILE *p;
		assert_int_equal(sb_plan_child(f.plan, i, f.child, &err), 0);
		assert_true(sb_child_is_shell(f.child));
		p = popen(sb_child_shell(f.child), "r");
		assert_non_null(p);
		n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = '\0';
		assert_int_equal(pclose(p), 0);
		snprintf(want, sizeof(want), "%s|%zu", values[i], i);
		assert_string_equal(out, want);
	}
	assert_int_equal(access("pwned", F_OK), -1);
	assert_int_equal(chdir(cwd), 0);
	rmdir(dir);
	done(&f);
}

/* Child digests computed on several threads equal the SHA-256 of each
 * child's canonical bytes computed one at a time, and the benchmark digest
 * is the SHA-256 of {children, name, tag} built here by hand. */
static void test_digests_independent_of_threads(void **state)
{
	struct fixture f;
	struct sb_error err;
	struct sb_canon c;
	uint8_t md[32];
	size_t i, n;

	(void)state;
	make(&f, "name: big\ncommand: [run, \"{a}\", \"{b}\", \"{c}\", \"{repeat}\"]\nrepeats: 3\n"
		 "parameters:\n"
		 "  a: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]\n"
		 "  b: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]\n"
		 "  c: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,\n"
		 "      20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39,\n"
		 "      40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59,\n"
		 "      60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79,\n"
		 "      80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99]\n");
	n = sb_plan_count(f.plan);
	assert_int_equal(n, 120000);
	sb_canon_init(&c, 1 << 30);
	sb_canon_map(&c, 3);
	sb_canon_cstr(&c, "children");
	sb_canon_array(&c, n);
	for (i = 0; i < n; i++) {
		size_t len = 0;
		uint8_t *bytes = sb_plan_child_canonical(f.plan, i, &len, &err);
		assert_non_null(bytes);
		assert_int_equal(EVP_Digest(bytes, len, md, NULL, EVP_sha256(), NULL), 1);
		free(bytes);
		assert_memory_equal(md, sb_plan_child_digest(f.plan, i), 32);
		sb_canon_bin(&c, md, 32);
	}
	sb_canon_cstr(&c, "name");
	sb_canon_cstr(&c, "big");
	sb_canon_cstr(&c, "tag");
	sb_canon_nil(&c);
	assert_int_equal(EVP_Digest(c.buf, c.len, md, NULL, EVP_sha256(), NULL), 1);
	assert_memory_equal(md, sb_plan_benchmark_digest(f.plan), 32);
	sb_canon_release(&c);
	done(&f);
}

static void test_tag_changes_benchmark_not_children(void **state)
{
	struct fixture a, b, c;

	(void)state;
	make(&a, "name: t\ncommand: [x, \"{v}\"]\nparameters: {v: [1, 2]}\n");
	make(&b, "name: t\ntag: again\ncommand: [x, \"{v}\"]\nparameters: {v: [1, 2]}\n"
		 "heartbeat: 5\nslurm: {time: \"1:00\", array_throttle: 2}\nanalysis: {metrics: [m]}\n");
	make(&c, "name: t\ncommand: [x, \"{v}\"]\nparameters: {v: [1, 2]}\nslurm: {mem: 1G}\n");
	assert_memory_equal(sb_plan_child_digest(a.plan, 1), sb_plan_child_digest(b.plan, 1), 32);
	assert_memory_not_equal(sb_plan_benchmark_digest(a.plan), sb_plan_benchmark_digest(b.plan), 32);
	/* resources are part of the child */
	assert_memory_not_equal(sb_plan_child_digest(a.plan, 1), sb_plan_child_digest(c.plan, 1), 32);
	done(&a);
	done(&b);
	done(&c);
}

/* The JSON writer's exact bytes for what plan --json writes: escapes,
 * invalid UTF-8, integers at their limits, a raw token after a key. */
static void test_json_bytes(void **state)
{
	static const char *const strs[] = {
		"", "plain", "quote\"", "back\\slash", "nl\n", "\x01", "caf\xc3\xa9", "bad\xff", "\x7f",
	};
	char *a = NULL;
	size_t alen = 0, i;
	FILE *fa = open_memstream(&a, &alen);
	struct sb_json j;

	(void)state;
	sb_json_init(&j, fa);
	sb_json_arr_begin(&j);
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		sb_json_strn(&j, strs[i], strlen(strs[i]));
	sb_json_obj_begin(&j);
	sb_json_key(&j, "u");
	sb_json_uint(&j, UINT64_MAX);
	sb_json_key(&j, "i");
	sb_json_int(&j, INT64_MIN);
	sb_json_key(&j, "z");
	sb_json_int(&j, 0);
	sb_json_key(&j, "f");
	sb_json_raw(&j, "0.1");
	sb_json_obj_end(&j);
	sb_json_raw(&j, "1e-05");
	sb_json_int(&j, -7);
	sb_json_arr_end(&j);
	assert_false(sb_json_error(&j));
	fclose(fa);
	assert_string_equal(a, "[\"\",\"plain\",\"quote\\\"\",\"back\\\\slash\",\"nl\\n\",\"\\u0001\","
			       "\"caf\xc3\xa9\",\"bad\\ufffd\",\"\\u007f\",{\"u\":18446744073709551615,"
			       "\"i\":-9223372036854775808,\"z\":0,\"f\":0.1},1e-05,-7]");
	free(a);
}

static void test_child_out_of_range(void **state)
{
	struct fixture f;
	struct sb_error err;

	(void)state;
	make(&f, "name: t\ncommand: [x]\n");
	assert_int_equal(sb_plan_count(f.plan), 1);
	assert_int_equal(sb_plan_child(f.plan, 1, f.child, &err), -1);
	assert_string_equal(err.msg, "child 1 does not exist (the plan has 1)");
	done(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_byte_order_of_names),
		cmocka_unit_test(test_include_exclude_repeats),
		cmocka_unit_test(test_exclude_partial),
		cmocka_unit_test(test_types_are_distinct),
		cmocka_unit_test(test_include_only_and_single),
		cmocka_unit_test(test_substitution),
		cmocka_unit_test(test_shell_quoting),
		cmocka_unit_test(test_digests_independent_of_threads),
		cmocka_unit_test(test_tag_changes_benchmark_not_children),
		cmocka_unit_test(test_json_bytes),
		cmocka_unit_test(test_child_out_of_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
