/* Learning curves (include/sbench/curves.h): the points of the verified
 * heartbeats and finish of a benchmark's logs, their order, the filters,
 * JSON and CSV, a child out of range, and a log whose records stop
 * verifying (the points before, a warning). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench/bench_private.h"
#include "base/canon.h"
#include "proto/benchdir.h"
#include "proto/util.h"
#include "sbench/curves.h"
#include "sbench/key.h"
#include "sbench/log.h"
#include "sbench/plan.h"
#include "tests/ctl/benchfix.h"

static char root[] = "/tmp/sbtest-curves-XXXXXX";
static struct sb_bench *bench;
static char log1[PATH_MAX];

static const char spec_text[] =
	"name: cu\n"
	"command: [true]\n"
	"parameters: {lr: [0.5, 0.25, 0.125]}\n"
	"metrics: m.json\n";

/* One heartbeat or finish payload: elapsed (or wall), then metrics named
 * names with values; ints when is_int. */
static void append(struct sb_log_writer *w, const char *type, double t, const char *const *names,
		   const double *values, const int *is_int, size_t n)
{
	struct sb_error err = { 0 };
	struct sb_canon p;
	bool hb = !strcmp(type, "heartbeat");

	sb_canon_init(&p, 1 << 12);
	sb_canon_map(&p, n ? 2 : 1);
	if (hb) {
		sb_canon_cstr(&p, "elapsed_s");
		sb_canon_double(&p, t);
	}
	if (n) {
		sb_canon_cstr(&p, "metrics");
		sb_canon_map(&p, n);
		for (size_t i = 0; i < n; i++) {
			sb_canon_cstr(&p, names[i]);
			if (is_int && is_int[i])
				sb_canon_int(&p, (int64_t)values[i]);
			else
				sb_canon_double(&p, values[i]);
		}
	}
	if (!hb) {
		sb_canon_cstr(&p, "wall_s");
		sb_canon_double(&p, t);
	}
	assert_false(p.failed);
	assert_int_equal(sb_log_writer_append(w, type, p.buf, p.len, &err), 0);
	sb_canon_release(&p);
}

/* child's log of attempt 0 with a start, heartbeats at 1, 2 (no metrics)
 * and 3 s, and a finish at 3.5 s. */
static void write_log(const struct sb_key *key, int64_t child, double scale, char *path)
{
	static const char *const names[] = { "loss", "step" };
	static const int ints[] = { 0, 1 };
	char digest[65], task[24], job[24];
	struct sb_run_ident id = { .bench = bench->digest, .child = child, .attempt = 0,
				   .array_job_id = "1000", .restart = -1, .host = "node1",
				   .pid = 4242 };
	struct sb_error err = { 0 };
	struct sb_log_writer *w;
	struct sb_canon p;
	double v1[] = { 2 * scale, 1 }, v3[] = { scale, 3 }, vf[] = { scale / 2, 4 };

	snprintf(task, sizeof(task), "%lld", (long long)child);
	snprintf(job, sizeof(job), "%lld", 1001 + (long long)child);
	id.array_task_id = task;
	id.job_id = job;
	sb_hex_encode(sb_plan_child_digest(bench->plan, (size_t)child), 32, digest);
	id.child_digest = digest;
	assert_true(sb_bdir_log(path, PATH_MAX, bench->dir, child, 0, job, 0) > 0);
	*strrchr(path, '/') = '\0';
	assert_true(mkdir(path, 0755) == 0 || access(path, F_OK) == 0);
	assert_true(sb_bdir_log(path, PATH_MAX, bench->dir, child, 0, job, 0) > 0);
	w = sb_log_writer_create(path, key, &id, &err);
	assert_non_null(w);
	sb_canon_init(&p, 64);
	sb_canon_map(&p, 0);
	assert_int_equal(sb_log_writer_append(w, "start", p.buf, p.len, &err), 0);
	sb_canon_release(&p);
	append(w, "heartbeat", 1.0, names, v1, ints, 2);
	append(w, "heartbeat", 2.0, names, NULL, NULL, 0);
	append(w, "heartbeat", 3.0, names, v3, ints, 2);
	append(w, "finish", 3.5, names, vf, ints, 2);
	assert_int_equal(sb_log_writer_close(w, &err), 0);
}

static int setup(void **state)
{
	struct sb_error err = { 0 };
	struct sb_key key;
	char *dir = NULL, path[PATH_MAX];
	int existed = 0;

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_int_equal(sb_test_bench_create(root, "cu.yaml", spec_text, 1000, 1, &dir, &existed,
					      NULL, &err), 0);
	bench = sb_bench_open(dir, &err);
	free(dir);
	assert_non_null(bench);
	assert_int_equal(sb_bench_plan(bench, &err), 0);
	assert_int_equal(sb_bench_load_key(bench, &key, &err), 0);
	write_log(&key, 2, 2.0, path); /* written first, listed last: child order */
	write_log(&key, 0, 1.0, path);
	write_log(&key, 1, 4.0, log1);
	sb_key_cleanse(&key);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sb_bench_destroy(bench);
	return sb_test_rmtree(root);
}

static char *render(const struct sb_curves *c, enum sb_format f)
{
	struct sb_error err = { 0 };
	char *buf = NULL;
	size_t len = 0;

	assert_int_equal(sb_curves_render_buffer(c, f, &buf, &len, &err), 0);
	assert_int_equal(strlen(buf), len);
	return buf;
}

static void test_points(void **state)
{
	struct sb_error err = { 0 };
	struct sb_curves *c = NULL;
	struct sb_curve_point p;
	char *json, *csv;

	(void)state;
	assert_int_equal(sb_curves_bench(NULL, bench, NULL, &c, &err), 0);
	/* 3 children x (2 heartbeats + finish) x 2 metrics */
	assert_int_equal(sb_curves_count(c), 18);
	assert_int_equal(sb_curves_warning_count(c), 0);
	assert_int_equal(sb_curves_point(c, 0, &p), 0);
	assert_int_equal(p.child, 0);
	assert_string_equal(p.metric, "loss");
	assert_true(p.elapsed_s == 1.0 && p.value == 2.0 && !p.is_int && !p.final);
	assert_int_equal(sb_curves_point(c, 1, &p), 0);
	assert_string_equal(p.metric, "step");
	assert_true(p.is_int && p.i == 1 && p.value == 1.0);
	assert_int_equal(sb_curves_point(c, 2, &p), 0); /* the heartbeat without metrics gave none */
	assert_true(p.elapsed_s == 3.0 && p.value == 1.0);
	assert_int_equal(sb_curves_point(c, 4, &p), 0);
	assert_true(p.final && p.elapsed_s == 3.5 && p.value == 0.5 && p.attempt == 0 && p.restart == 0);
	assert_int_equal(sb_curves_point(c, 17, &p), 0);
	assert_true(p.child == 2 && p.final && p.is_int && p.i == 4);
	assert_int_equal(sb_curves_point(c, 18, &p), -1);

	json = render(c, SB_FORMAT_JSON);
	assert_non_null(strstr(json, "\"params\":[\"lr\"],\"metrics\":[\"loss\",\"step\"],"));
	assert_non_null(strstr(json, "{\"index\":1,\"digest\":\""));
	assert_non_null(strstr(json, "\"params\":{\"lr\":0.25},\"repeat\":0}"));
	assert_non_null(strstr(json, "\"points\":[{\"child\":0,\"attempt\":0,\"restart\":0,"
			       "\"elapsed_s\":1.0,\"metric\":\"loss\",\"value\":2.0,\"final\":false},"
			       "{\"child\":0,\"attempt\":0,\"restart\":0,\"elapsed_s\":1.0,"
			       "\"metric\":\"step\",\"value\":1,\"final\":false},"));
	assert_non_null(strstr(json, "\"logs\":{\"files\":3,\"records\":15,\"verified\":15,"
			       "\"left_out\":0},\"warnings\":[]}\n"));
	csv = render(c, SB_FORMAT_CSV);
	assert_non_null(strstr(csv, "child,attempt,restart,elapsed_s,metric,value,final,param.lr\r\n"
			       "0,0,0,1.0,loss,2.0,false,0.5\r\n0,0,0,1.0,step,1,false,0.5\r\n"));
	assert_true(strncmp(csv, "child,", 6) == 0);
	assert_non_null(strstr(csv, "\r\n2,0,0,3.5,step,4,true,0.125\r\n"));
	free(json);
	free(csv);
	assert_int_equal(sb_curves_render_buffer(c, SB_FORMAT_TEXT, &json, NULL, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_null(json);
	sb_curves_destroy(c);
}

static void test_filters(void **state)
{
	const char *only[] = { "step" };
	struct sb_curves_opts o = { .has_child = true, .child = 1, .metrics = only, .nmetrics = 1 };
	struct sb_error err = { 0 };
	struct sb_curves *c = NULL;
	struct sb_curve_point p;

	(void)state;
	assert_int_equal(sb_curves_bench(NULL, bench, &o, &c, &err), 0);
	assert_int_equal(sb_curves_count(c), 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(sb_curves_point(c, i, &p), 0);
		assert_true(p.child == 1 && !strcmp(p.metric, "step"));
	}
	sb_curves_destroy(c);

	o.child = 3;
	c = (struct sb_curves *)1;
	assert_int_equal(sb_curves_bench(NULL, bench, &o, &c, &err), -1);
	assert_null(c);
	assert_int_equal(err.code, SB_ERR_NOT_FOUND);
	assert_string_equal(err.msg, "benchmark cu has children 0 to 2, not 3");
}

/* A damaged byte in child 1's second heartbeat: the points of the record
 * before it stay, the rest of that log gives none, and a warning says so. */
static void test_damaged_log(void **state)
{
	struct sb_error err = { 0 };
	struct sb_curves *c = NULL;
	struct sb_log_verifier *v;
	struct sb_log_result *r;
	struct sb_key key;
	uint64_t off;
	FILE *f;
	int ch;

	(void)state;
	assert_int_equal(sb_bench_load_key(bench, &key, &err), 0);
	v = sb_log_verifier_create(&key, &err);
	sb_key_cleanse(&key);
	r = sb_log_read_file(v, log1, NULL, &err);
	assert_non_null(r);
	off = sb_log_result_record(r, 2)->offset + 20; /* in the heartbeat without metrics */
	sb_log_result_destroy(r);
	sb_log_verifier_destroy(v);
	f = fopen(log1, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
	ch = fgetc(f);
	assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
	fputc(ch ^ 1, f);
	assert_int_equal(fclose(f), 0);

	assert_int_equal(sb_curves_bench(NULL, bench, NULL, &c, &err), 0);
	assert_int_equal(sb_curves_count(c), 14); /* child 1: its first heartbeat only */
	assert_int_equal(sb_curves_warning_count(c), 1);
	assert_non_null(strstr(sb_curves_warning(c, 0), "1.a0.j1002.r0.log: record 2 at byte"));
	assert_non_null(strstr(sb_curves_warning(c, 0), "(corrupt); the records after record 2 "
			       "are not in the curves"));
	{
		char *json = render(c, SB_FORMAT_JSON);
		assert_non_null(strstr(json, "\"logs\":{\"files\":3,\"records\":12,\"verified\":12,"
				       "\"left_out\":0}"));
		free(json);
	}
	sb_curves_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_points),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_damaged_log),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
