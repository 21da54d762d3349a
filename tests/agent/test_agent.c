/* Unit tests of the agent's pieces: canonical payloads, metrics parsing,
 * result hashing, signal names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/watch_feed.h"

static char tmpdir[] = "/tmp/sbagent-unit.XXXXXX";

static int setup(void **state)
{
	(void)state;
	if (mkdtemp(tmpdir) == NULL || chdir(tmpdir) != 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (chdir("/") != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Every map in o has str keys in strictly increasing raw byte order. */
static void assert_canonical(const msgpack_object *o)
{
	uint32_t i;

	if (o->type == MSGPACK_OBJECT_ARRAY) {
		for (i = 0; i < o->via.array.size; i++)
			assert_canonical(&o->via.array.ptr[i]);
		return;
	}
	if (o->type != MSGPACK_OBJECT_MAP)
		return;
	for (i = 0; i < o->via.map.size; i++) {
		const msgpack_object *k = &o->via.map.ptr[i].key;

		assert_int_equal(k->type, MSGPACK_OBJECT_STR);
		if (i > 0) {
			const msgpack_object *p = &o->via.map.ptr[i - 1].key;
			size_t n = p->via.str.size < k->via.str.size ? p->via.str.size : k->via.str.size;
			int c = memcmp(p->via.str.ptr, k->via.str.ptr, n);

			if (c >= 0 && !(c == 0 && p->via.str.size < k->via.str.size))
				fail_msg("key '%.*s' after '%.*s'", (int)k->via.str.size,
					k->via.str.ptr, (int)p->via.str.size, p->via.str.ptr);
		}
		assert_canonical(&o->via.map.ptr[i].val);
	}
}

/* Unpacks sb (exactly one map) and checks it; returns the map in zone. */
static msgpack_object check_payload(msgpack_sbuffer *sb, msgpack_zone *zone)
{
	msgpack_object o;
	size_t off = 0;

	assert_int_equal(msgpack_unpack(sb->data, sb->size, &off, zone, &o),
		MSGPACK_UNPACK_SUCCESS);
	assert_int_equal(off, sb->size);
	assert_int_equal(o.type, MSGPACK_OBJECT_MAP);
	assert_canonical(&o);
	return o;
}

static const msgpack_object *map_get(const msgpack_object *m, const char *key)
{
	uint32_t i;

	for (i = 0; i < m->via.map.size; i++) {
		const msgpack_object *k = &m->via.map.ptr[i].key;

		if (k->via.str.size == strlen(key) &&
		    memcmp(k->via.str.ptr, key, k->via.str.size) == 0)
			return &m->via.map.ptr[i].val;
	}
	fail_msg("no key '%s'", key);
	return NULL;
}

static void test_payloads_canonical(void **state)
{
	char *argv[] = { "python", "train.py", NULL };
	const char *res[] = { "a", "b" };
	struct sb_agent_run run = {
		.argv = argv, .argc = 2, .results = res, .nresults = 2,
		.metrics = "m.json", .heartbeat_s = 60, .kill_wait_s = 10,
		.run_dir = "/tmp",
	};
	struct sb_key key = { .id = "0123456789abcdef" };
	struct sb_agent_host host = { "cpu", 8, 4, "Linux 6" };
	struct sb_agent_usage u = { 1.5, 0.25, 1024 };
	struct sb_agent_result results[4] = {
		{ .path = "a", .state = SB_RESULT_HASHED, .size = 3, .mtime_ns = 5,
		  .sha256 = "ab" },
		{ .path = "b", .state = SB_RESULT_MISSING },
		{ .path = "c", .state = SB_RESULT_NOT_HASHED, .size = 1 << 30 },
		{ .path = "d", .state = SB_RESULT_ERROR, .error = "not a regular file" },
	};
	struct sb_agent_metric mv[2] = {
		{ .name = "acc", .is_float = 1, .f = 0.5 },
		{ .name = "step", .i = 7 },
	};
	char *skipped[1] = { "name" };
	struct sb_agent_metrics m = { mv, 2, skipped, 1 };
	struct sb_agent_outcome out = { .status = 3 << 8, .wall_s = 2.0, .usage = u };
	struct sb_agent_finish fin = {
		.outcome = &out, .results = results, .nresults = 4, .metrics = &m,
		.records = 5,
	};
	msgpack_sbuffer sb;
	msgpack_zone zone;
	msgpack_object o;

	(void)state;
	msgpack_zone_init(&zone, 4096);

	msgpack_sbuffer_init(&sb);
	assert_int_equal(sb_agent_payload_start(&sb, &run, &key, &host), 0);
	o = check_payload(&sb, &zone);
	assert_int_equal(map_get(&o, "command")->via.array.size, 2);
	assert_int_equal(map_get(&o, "cores")->via.u64, 8);
	msgpack_sbuffer_destroy(&sb);

	msgpack_sbuffer_init(&sb);
	assert_int_equal(sb_agent_payload_heartbeat(&sb, 60.0, &u, NULL, NULL), 0);
	o = check_payload(&sb, &zone);
	assert_int_equal(map_get(&o, "max_rss_kb")->via.u64, 1024);
	assert_int_equal(map_get(&o, "elapsed_s")->type, MSGPACK_OBJECT_FLOAT64);
	assert_int_equal(o.via.map.size, 4); /* no watch_dropped: no watcher ever found */
	msgpack_sbuffer_destroy(&sb);

	msgpack_sbuffer_init(&sb);
	{
		uint64_t dropped = 7;

		assert_int_equal(sb_agent_payload_heartbeat(&sb, 60.0, &u, &m, &dropped), 0);
	}
	o = check_payload(&sb, &zone); /* still canonical, with the keys in place */
	assert_int_equal(map_get(&o, "watch_dropped")->via.u64, 7);
	assert_int_equal(map_get(&o, "metrics")->via.map.size, m.n);
	msgpack_sbuffer_destroy(&sb);

	msgpack_sbuffer_init(&sb);
	assert_int_equal(sb_agent_payload_signal(&sb, SIGTERM, "forwarded"), 0);
	o = check_payload(&sb, &zone);
	assert_int_equal(map_get(&o, "signal")->via.u64, SIGTERM);
	msgpack_sbuffer_destroy(&sb);

	msgpack_sbuffer_init(&sb);
	assert_int_equal(sb_agent_payload_finish(&sb, &fin), 0);
	o = check_payload(&sb, &zone);
	assert_int_equal(map_get(&o, "exit_code")->via.u64, 3);
	assert_int_equal(map_get(&o, "signal")->type, MSGPACK_OBJECT_NIL);
	assert_int_equal(map_get(&o, "results")->via.array.size, 4);
	assert_int_equal(map_get(&o, "records")->via.u64, 5);
	assert_int_equal(map_get(&o, "metrics")->via.map.size, 2);
	msgpack_sbuffer_destroy(&sb);

	/* killed by a signal: exit_code nil, signal set */
	out.status = SIGKILL;
	fin.metrics = NULL;
	msgpack_sbuffer_init(&sb);
	assert_int_equal(sb_agent_payload_finish(&sb, &fin), 0);
	o = check_payload(&sb, &zone);
	assert_int_equal(map_get(&o, "exit_code")->type, MSGPACK_OBJECT_NIL);
	assert_int_equal(map_get(&o, "signal")->via.u64, SIGKILL);
	assert_int_equal(map_get(&o, "metrics")->via.map.size, 0);
	assert_int_equal(o.via.map.size, 13); /* no skipped_records when 0 */
	msgpack_sbuffer_destroy(&sb);

	/* records skipped while the log could not be written: counted, canonical */
	fin.records_skipped = 2;
	msgpack_sbuffer_init(&sb);
	assert_int_equal(sb_agent_payload_finish(&sb, &fin), 0);
	o = check_payload(&sb, &zone);
	assert_int_equal(map_get(&o, "skipped_records")->via.u64, 2);
	assert_int_equal(o.via.map.size, 14);
	msgpack_sbuffer_destroy(&sb);

	/* a checkpoint section: start and finish keep their keys in order */
	{
		struct sb_checkpoint_cfg cfg = { .present = true, .signal = SIGUSR1, .signal_name = "USR1",
						 .before = 90, .requeue_on = SB_REQUEUE_TIMEOUT, .max_restarts = 3 };
		struct sb_agent_ckpt at_start = { .have = false, .error = "checkpoint file 1 of 1: not a regular file" };
		struct sb_agent_ckpt at_end = { .have = true };
		struct sb_agent_interrupt in = { .by = "requeue_signal", .signal = "USR1", .requeue = false,
						 .why_not = "max_restarts", .restart = 3, .max_restarts = 3 };

		memset(at_end.digest, 'a', 64);
		run.checkpoint = &cfg;
		run.resumed_from = &at_start;
		msgpack_sbuffer_init(&sb);
		assert_int_equal(sb_agent_payload_start(&sb, &run, &key, &host), 0);
		o = check_payload(&sb, &zone);
		assert_int_equal(map_get(&o, "resumed_from")->type, MSGPACK_OBJECT_NIL);
		assert_int_equal(map_get(&o, "checkpoint_error")->type, MSGPACK_OBJECT_STR);
		msgpack_sbuffer_destroy(&sb);

		fin.checkpoint = &at_end;
		fin.interrupted = &in;
		msgpack_sbuffer_init(&sb);
		assert_int_equal(sb_agent_payload_finish(&sb, &fin), 0);
		o = check_payload(&sb, &zone);
		assert_int_equal(map_get(&o, "checkpoint")->via.str.size, 64);
		assert_int_equal(map_get(map_get(&o, "interrupted"), "restart")->via.u64, 3);
		assert_int_equal(map_get(map_get(&o, "interrupted"), "why_not")->via.str.size, 12);
		assert_int_equal(map_get(map_get(&o, "interrupted"), "requeue")->via.boolean, false);
		assert_int_equal(o.via.map.size, 16);
		msgpack_sbuffer_destroy(&sb);
	}
	msgpack_zone_destroy(&zone);
}

static const struct sb_agent_metric *metric(const struct sb_agent_metrics *m,
	const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->v[i].name, name) == 0)
			return &m->v[i];
	return NULL;
}

static void test_metrics_json(void **state)
{
	struct sb_agent_metrics m;
	struct sb_error err;
	size_t i;

	(void)state;
	write_file("m.json", "{\"z\": 1, \"a\": 2.5, \"s\": \"x\", \"n\": {\"b\": 0x10},"
		" \"big\": 9223372036854775808, \"min\": -9223372036854775808,"
		" \"z\": 3, \"t\": true, \"e\": 1E3, \"neg\": -0.0}");
	assert_int_equal(sb_agent_metrics_read("m.json", &m, &err), 0);
	for (i = 1; i < m.n; i++)
		assert_true(strcmp(m.v[i - 1].name, m.v[i].name) < 0);
	assert_int_equal(metric(&m, "z")->i, 1); /* the first of a duplicate */
	assert_false(metric(&m, "z")->is_float);
	assert_true(metric(&m, "a")->is_float);
	assert_true(metric(&m, "a")->f == 2.5);
	assert_int_equal(metric(&m, "n.b")->i, 16);
	assert_int_equal(metric(&m, "min")->i, INT64_MIN);
	assert_null(metric(&m, "big")); /* beyond int64 */
	assert_true(metric(&m, "e")->is_float && metric(&m, "e")->f == 1000.0);
	assert_true(metric(&m, "neg")->is_float && !signbit(metric(&m, "neg")->f));
	assert_int_equal(m.nskipped, 4);
	assert_string_equal(m.skipped[0], "s");
	assert_string_equal(m.skipped[1], "big");
	assert_string_equal(m.skipped[2], "t");
	assert_string_equal(m.skipped[3], "z");
	sb_agent_metrics_release(&m);
	sb_agent_metrics_release(NULL);
}

static void test_metrics_yaml_forms(void **state)
{
	static const struct { const char *text; int kind; int64_t i; double f; } cases[] = {
		{ "1", 1, 1, 0 }, { "-7", 1, -7, 0 }, { "+7", 1, 7, 0 },
		{ "0o17", 1, 15, 0 }, { "0x1f", 1, 31, 0 }, { "007", 1, 7, 0 },
		{ "1.5", 2, 0, 1.5 }, { ".5", 2, 0, 0.5 }, { "5.", 2, 0, 5.0 },
		{ "1e2", 2, 0, 100 }, { "-1.5e-2", 2, 0, -0.015 },
		{ ".inf", 0, 0, 0 }, { ".nan", 0, 0, 0 }, { "1e999", 0, 0, 0 },
		{ "0x", 0, 0, 0 }, { "1_000", 0, 0, 0 }, { "'1'", 0, 0, 0 },
		{ "\"1\"", 0, 0, 0 }, { "null", 0, 0, 0 }, { "~", 0, 0, 0 },
		{ "true", 0, 0, 0 }, { "!!int 3", 0, 0, 0 }, { "[1]", 0, 0, 0 },
		{ "1.2.3", 0, 0, 0 }, { "e5", 0, 0, 0 }, { "0b101", 0, 0, 0 },
		/* the edges of the core schema (proto/yamlscalar.h) */
		{ "9223372036854775807", 1, INT64_MAX, 0 },
		{ "-9223372036854775808", 1, INT64_MIN, 0 },
		{ "9223372036854775808", 0, 0, 0 }, { "0x7fffffffffffffff", 1, INT64_MAX, 0 },
		{ "0x8000000000000000", 0, 0, 0 }, { "-0x10", 0, 0, 0 }, { "0o8", 0, 0, 0 },
		{ "0X10", 0, 0, 0 }, { "-.inf", 0, 0, 0 }, { ".NaN", 0, 0, 0 },
		{ "-1e999", 0, 0, 0 }, { "1e", 0, 0, 0 }, { ".", 0, 0, 0 }, { "+", 0, 0, 0 },
		{ "", 0, 0, 0 }, { "TRUE", 0, 0, 0 }, { "Null", 0, 0, 0 },
		{ "-0.0", 2, 0, 0.0 }, { "1e-310", 2, 0, 1e-310 },
		/* rounds to zero from a non-zero text: 0.0, as strtod reads it */
		{ "1e-999", 2, 0, 0.0 }, { "-1e-999", 2, 0, 0.0 },
	};
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sb_agent_metrics m;
		struct sb_error err;
		char text[64];

		snprintf(text, sizeof(text), "v: %s\n", cases[c].text);
		write_file("m.yaml", text);
		assert_int_equal(sb_agent_metrics_read("m.yaml", &m, &err), 0);
		if (cases[c].kind == 0) {
			if (m.n != 0)
				fail_msg("'%s' read as a number", cases[c].text);
			assert_int_equal(m.nskipped, 1);
		} else {
			if (m.n != 1)
				fail_msg("'%s' not read as a number", cases[c].text);
			assert_int_equal(m.v[0].is_float, cases[c].kind == 2);
			if (cases[c].kind == 1)
				assert_int_equal(m.v[0].i, cases[c].i);
			else if (m.v[0].f != cases[c].f || signbit(m.v[0].f) != signbit(cases[c].f))
				fail_msg("'%s' read as %g", cases[c].text, m.v[0].f);
		}
		sb_agent_metrics_release(&m);
	}
}

static void test_metrics_errors(void **state)
{
	struct sb_agent_metrics m;
	struct sb_error err;
	char deep[256] = "", *p = deep;
	int d;

	(void)state;
	assert_int_equal(sb_agent_metrics_read("absent.json", &m, &err), -1);
	assert_non_null(strstr(err.msg, "cannot open metrics file 'absent.json'"));
	write_file("e.json", "");
	assert_int_equal(sb_agent_metrics_read("e.json", &m, &err), -1);
	assert_non_null(strstr(err.msg, "is empty"));
	write_file("s.json", "42\n");
	assert_int_equal(sb_agent_metrics_read("s.json", &m, &err), -1);
	assert_non_null(strstr(err.msg, "is not a mapping"));
	write_file("b.json", "{\"a\": [1, 2}");
	assert_int_equal(sb_agent_metrics_read("b.json", &m, &err), -1);
	assert_non_null(strstr(err.msg, "line 1"));
	write_file("k.yaml", "? [1]\n: 2\n");
	assert_int_equal(sb_agent_metrics_read("k.yaml", &m, &err), -1);
	assert_non_null(strstr(err.msg, "not a scalar"));
	assert_int_equal(mkdir("dir.json", 0700), 0);
	assert_int_equal(sb_agent_metrics_read("dir.json", &m, &err), -1);
	assert_int_equal(m.n, 0);

	/* nesting beyond the depth limit: the subtree is skipped, not an error */
	for (d = 0; d < SB_METRICS_MAX_DEPTH + 2; d++)
		p += sprintf(p, "{\"k%d\": ", d);
	p += sprintf(p, "1");
	for (d = 0; d < SB_METRICS_MAX_DEPTH + 2; d++)
		*p++ = '}';
	*p = '\0';
	write_file("deep.json", deep);
	assert_int_equal(sb_agent_metrics_read("deep.json", &m, &err), 0);
	assert_int_equal(m.n, 0);
	assert_int_equal(m.nskipped, 1);
	sb_agent_metrics_release(&m);

	/* a hostile file: 600 KB of nested sequences (libyaml's cost grows
	 * with the square of the depth): refused at once, before parsing */
	{
		size_t half = 300000, k;
		char *hostile = malloc(2 * half + 16);
		struct timespec t0, t1;
		assert_non_null(hostile);
		k = (size_t)sprintf(hostile, "{\"a\": ");
		memset(hostile + k, '[', half);
		memset(hostile + k + half, ']', half);
		strcpy(hostile + k + 2 * half, "}");
		write_file("hostile.json", hostile);
		free(hostile);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		assert_int_equal(sb_agent_metrics_read("hostile.json", &m, &err), -1);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		assert_non_null(strstr(err.msg, "nests [ and { deeper than 64 levels"));
		assert_true(t1.tv_sec - t0.tv_sec < 2);
	}
	/* 60 levels of flow nesting still parse (the sequence is skipped) */
	{
		char ok[256];
		size_t k = (size_t)sprintf(ok, "{\"x\": 1, \"a\": ");
		memset(ok + k, '[', 60);
		memset(ok + k + 60, ']', 60);
		strcpy(ok + k + 120, "}");
		write_file("ok.json", ok);
		assert_int_equal(sb_agent_metrics_read("ok.json", &m, &err), 0);
		assert_int_equal(m.n, 1);
		sb_agent_metrics_release(&m);
	}
}

static double past_deadline(void *arg)
{
	(void)arg;
	return sb_agent_now() - 1;
}

static void test_results(void **state)
{
	const char *paths[] = { "abc", "nothere", ".", "empty" };
	struct sb_agent_result r[4];

	(void)state;
	write_file("abc", "abc");
	write_file("empty", "");
	sb_agent_results_collect(paths, 4, NULL, NULL, r);
	assert_int_equal(r[0].state, SB_RESULT_HASHED);
	assert_string_equal(r[0].sha256,
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_int_equal(r[0].size, 3);
	assert_true(r[0].mtime_ns > 0);
	assert_int_equal(r[1].state, SB_RESULT_MISSING);
	assert_int_equal(r[2].state, SB_RESULT_ERROR);
	assert_string_equal(r[2].error, "not a regular file");
	assert_string_equal(r[3].sha256,
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

	/* no time left: size and mtime only */
	sb_agent_results_collect(paths, 1, past_deadline, NULL, r);
	assert_int_equal(r[0].state, SB_RESULT_NOT_HASHED);
	assert_int_equal(r[0].size, 3);
	assert_true(r[0].mtime_ns > 0);
}

/* The deadline hook, called before each file and after each chunk: it
 * plays the file's writer (something outside the tree) or Slurm's TERM. */
struct hook {
	int calls, at;        /* act on call number `at` */
	enum { GROW, SHRINK, TERM } what;
	const char *path;
	double deadline;
};

static double hook(void *arg)
{
	struct hook *h = arg;

	if (h->calls++ == h->at) {
		if (h->what == GROW) {
			FILE *f = fopen(h->path, "a");
			assert_non_null(f);
			fputs("more", f);
			fclose(f);
		} else if (h->what == SHRINK) {
			assert_int_equal(truncate(h->path, 1000), 0);
		} else {
			h->deadline = sb_agent_now() + 1e-4;
		}
	}
	return h->deadline;
}

static void write_big(const char *path, size_t mib)
{
	FILE *f = fopen(path, "w");
	static char chunk[1 << 20];
	size_t i;

	assert_non_null(f);
	memset(chunk, 'x', sizeof(chunk));
	for (i = 0; i < mib; i++)
		assert_int_equal(fwrite(chunk, 1, sizeof(chunk), f), sizeof(chunk));
	fclose(f);
}

/* Size, mtime and hash describe the same bytes: a file that grows or
 * shrinks while it is hashed is recorded as an error, not as the first
 * size beside the hash of other bytes.  A termination signal during the
 * hashing stops it: that file and the next ones are not hashed. */
static void test_results_race(void **state)
{
	const char *paths[] = { "big1", "big2" };
	struct sb_agent_result r[2];
	struct hook h;

	(void)state;
	write_big("big1", 3);
	write_big("big2", 1);
	h = (struct hook){ .at = 2, .what = GROW, .path = "big1" };
	sb_agent_results_collect(paths, 1, hook, &h, r);
	assert_int_equal(r[0].state, SB_RESULT_ERROR);
	assert_string_equal(r[0].error, "changed while it was hashed (size or mtime moved)");

	write_big("big1", 3);
	h = (struct hook){ .at = 1, .what = SHRINK, .path = "big1" };
	sb_agent_results_collect(paths, 1, hook, &h, r);
	assert_int_equal(r[0].state, SB_RESULT_ERROR);
	assert_string_equal(r[0].error, "changed while it was hashed (it shrank)");

	write_big("big1", 3);
	h = (struct hook){ .at = 1, .what = TERM };
	sb_agent_results_collect(paths, 2, hook, &h, r);
	assert_int_equal(r[0].state, SB_RESULT_NOT_HASHED);
	assert_int_equal(r[0].size, 3u << 20);
	assert_int_equal(r[1].state, SB_RESULT_NOT_HASHED);
	assert_int_equal(r[1].size, 1u << 20);

	/* undisturbed, both hash */
	h = (struct hook){ .at = -1 };
	sb_agent_results_collect(paths, 2, hook, &h, r);
	assert_int_equal(r[0].state, SB_RESULT_HASHED);
	assert_int_equal(r[1].state, SB_RESULT_HASHED);
	assert_int_equal(r[0].size, 3u << 20);
}

static void test_signal_names(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(sb_agent_signal_name(SIGTERM, buf), "TERM");
	assert_string_equal(sb_agent_signal_name(SIGUSR2, buf), "USR2");
	assert_string_equal(sb_agent_signal_name(SIGRTMIN + 2, buf), "RTMIN+2");
	assert_string_equal(sb_agent_signal_name(0, buf), "SIG0");
}

/* The live watch helper beside sbagent (a build's bin/), else in
 * ../libexec/sbench/ (an installation); only an executable file counts. */
static void touch_exec(const char *path, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_watch_helper_found(void **state)
{
	char root[] = "/tmp/sb-helper-XXXXXX", self[256], p[256], got[256], small[8];

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/bin", root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/libexec", root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/libexec/sbench", root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(self, sizeof(self), "%s/bin/sbagent", root);
	assert_int_equal(sb_agent_watch_find_helper(self, got, sizeof(got)), -1);
	/* installed: ../libexec/sbench/ */
	snprintf(p, sizeof(p), "%s/libexec/sbench/" SB_AGENT_WATCH_HELPER, root);
	touch_exec(p, 0700);
	assert_int_equal(sb_agent_watch_find_helper(self, got, sizeof(got)), 0);
	snprintf(p, sizeof(p), "%s/bin/../libexec/sbench/" SB_AGENT_WATCH_HELPER, root);
	assert_string_equal(got, p);
	/* beside sbagent wins; a file that is not executable does not count */
	snprintf(p, sizeof(p), "%s/bin/" SB_AGENT_WATCH_HELPER, root);
	touch_exec(p, 0600);
	assert_int_equal(sb_agent_watch_find_helper(self, got, sizeof(got)), 0);
	assert_non_null(strstr(got, "/libexec/sbench/"));
	assert_int_equal(chmod(p, 0700), 0);
	assert_int_equal(sb_agent_watch_find_helper(self, got, sizeof(got)), 0);
	assert_string_equal(got, p);
	/* a buffer too small is not found, never a cut path */
	assert_int_equal(sb_agent_watch_find_helper(self, small, sizeof(small)), -1);
	unlink(p);
	snprintf(p, sizeof(p), "%s/libexec/sbench/" SB_AGENT_WATCH_HELPER, root);
	unlink(p);
	snprintf(p, sizeof(p), "%s/libexec/sbench", root);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/libexec", root);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/bin", root);
	rmdir(p);
	rmdir(root);
}

/* A heartbeat carries at most SB_AGENT_HB_MAX_METRICS metrics, the first
 * by name, and says how many it left off; under the bound, no marker. */
static void test_heartbeat_metrics_bound(void **state)
{
	size_t n = SB_AGENT_HB_MAX_METRICS + 7, i;
	struct sb_agent_metric *mv = calloc(n, sizeof(*mv));
	char (*names)[16] = calloc(n, sizeof(*names));
	struct sb_agent_usage u = { 1.5, 0.25, 1024 };
	struct sb_agent_metrics m = { mv, n, NULL, 0 };
	msgpack_sbuffer sb;
	msgpack_zone zone;
	msgpack_object o;
	const msgpack_object *mo;
	uint32_t k;

	(void)state;
	assert_non_null(mv);
	assert_non_null(names);
	for (i = 0; i < n; i++) { /* m.<4 digits>: name order is index order */
		snprintf(names[i], sizeof(names[i]), "m.%04zu", i);
		mv[i].name = names[i];
		mv[i].is_float = (int)(i % 2);
		mv[i].f = (double)i / 4;
		mv[i].i = (int64_t)i;
	}
	msgpack_zone_init(&zone, 1 << 16);

	msgpack_sbuffer_init(&sb);
	assert_int_equal(sb_agent_payload_heartbeat(&sb, 3.0, &u, &m, NULL), 0);
	o = check_payload(&sb, &zone);
	mo = map_get(&o, "metrics");
	assert_int_equal(mo->via.map.size, SB_AGENT_HB_MAX_METRICS);
	for (k = 0; k < mo->via.map.size; k++) { /* the first ones, in order */
		char want[16];

		snprintf(want, sizeof(want), "m.%04u", k);
		assert_int_equal(mo->via.map.ptr[k].key.via.str.size, strlen(want));
		assert_memory_equal(mo->via.map.ptr[k].key.via.str.ptr, want, strlen(want));
	}
	assert_int_equal(map_get(&o, "metrics_left_off")->via.u64, 7);
	assert_int_equal(o.via.map.size, 6);
	assert_true(sb.size < 70 * 1024);
	msgpack_sbuffer_destroy(&sb);

	/* exactly at the bound: all of them, no marker */
	m.n = SB_AGENT_HB_MAX_METRICS;
	msgpack_sbuffer_init(&sb);
	assert_int_equal(sb_agent_payload_heartbeat(&sb, 3.0, &u, &m, NULL), 0);
	o = check_payload(&sb, &zone);
	assert_int_equal(map_get(&o, "metrics")->via.map.size, SB_AGENT_HB_MAX_METRICS);
	assert_int_equal(o.via.map.size, 5);
	for (k = 0; k < o.via.map.size; k++)
		assert_false(o.via.map.ptr[k].key.via.str.size == strlen("metrics_left_off") &&
			     !memcmp(o.via.map.ptr[k].key.via.str.ptr, "metrics_left_off", 16));
	msgpack_sbuffer_destroy(&sb);

	/* a watcher's count after the marker: still canonical */
	m.n = n;
	msgpack_sbuffer_init(&sb);
	{
		uint64_t dropped = 2;

		assert_int_equal(sb_agent_payload_heartbeat(&sb, 3.0, &u, &m, &dropped), 0);
	}
	o = check_payload(&sb, &zone);
	assert_int_equal(o.via.map.size, 7);
	msgpack_sbuffer_destroy(&sb);

	msgpack_zone_destroy(&zone);
	free(names);
	free(mv);
}

/* Bumps path's mtime by a second, so that a rewrite within the file
 * system's timestamp granularity is seen as a change by the test. */
static void touch_later(const char *path, int s)
{
	struct timespec ts[2];
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	ts[1].tv_sec += s;
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* The heartbeats' look at the metrics file: read only when it moved,
 * CHANGED only when its numbers differ, NONE while it does not parse, and
 * the next good read CHANGED again. */
static void test_metrics_track(void **state)
{
	struct sb_agent_metrics_track t = { 0 };

	(void)state;
	assert_int_equal(sb_agent_metrics_track(&t, "track.json"), SB_METRICS_NONE); /* missing */
	assert_int_equal(t.reads, 0);

	write_file("track.json", "{\"loss\": 1.5, \"step\": 1}");
	assert_int_equal(sb_agent_metrics_track(&t, "track.json"), SB_METRICS_CHANGED);
	assert_int_equal(t.last.n, 2);
	assert_int_equal(t.reads, 1);
	/* not moved: not read */
	assert_int_equal(sb_agent_metrics_track(&t, "track.json"), SB_METRICS_SAME);
	assert_int_equal(t.reads, 1);

	/* rewritten with the same numbers: read, SAME */
	write_file("track.json", "{\"step\": 1, \"loss\": 1.50}");
	touch_later("track.json", 1);
	assert_int_equal(sb_agent_metrics_track(&t, "track.json"), SB_METRICS_SAME);
	assert_int_equal(t.reads, 2);

	/* new numbers */
	write_file("track.json", "{\"loss\": 1.25, \"step\": 2}");
	touch_later("track.json", 2);
	assert_int_equal(sb_agent_metrics_track(&t, "track.json"), SB_METRICS_CHANGED);
	assert_true(t.last.v[0].f == 1.25);

	/* half written: none, and not read again while it does not move */
	write_file("track.json", "{\"loss\": 1.0, \"st");
	touch_later("track.json", 3);
	assert_int_equal(sb_agent_metrics_track(&t, "track.json"), SB_METRICS_NONE);
	assert_int_equal(t.reads, 4);
	assert_int_equal(sb_agent_metrics_track(&t, "track.json"), SB_METRICS_NONE);
	assert_int_equal(t.reads, 4);

	/* completed with the numbers of before the failure: CHANGED all the same */
	write_file("track.json", "{\"loss\": 1.25, \"step\": 2}");
	touch_later("track.json", 4);
	assert_int_equal(sb_agent_metrics_track(&t, "track.json"), SB_METRICS_CHANGED);

	/* replaced by a rename (another inode): read */
	write_file("track.tmp", "{\"loss\": 0.5, \"step\": 3}");
	assert_int_equal(rename("track.tmp", "track.json"), 0);
	assert_int_equal(sb_agent_metrics_track(&t, "track.json"), SB_METRICS_CHANGED);
	assert_int_equal(t.reads, 6);

	/* an int that becomes a float of the same value is a change */
	{
		struct sb_agent_metric a1 = { .name = "x", .i = 1 }, b1 = { .name = "x", .is_float = 1, .f = 1.0 };
		struct sb_agent_metrics a = { &a1, 1, NULL, 0 }, b = { &b1, 1, NULL, 0 };

		assert_false(sb_agent_metrics_equal(&a, &b));
		assert_true(sb_agent_metrics_equal(&a, &a));
	}

	/* removed: none */
	assert_int_equal(unlink("track.json"), 0);
	assert_int_equal(sb_agent_metrics_track(&t, "track.json"), SB_METRICS_NONE);
	assert_int_equal(t.last.n, 0);
	sb_agent_metrics_track_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_payloads_canonical),
		cmocka_unit_test(test_heartbeat_metrics_bound),
		cmocka_unit_test(test_metrics_track),
		cmocka_unit_test(test_metrics_json),
		cmocka_unit_test(test_metrics_yaml_forms),
		cmocka_unit_test(test_metrics_errors),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_results_race),
		cmocka_unit_test(test_signal_names),
		cmocka_unit_test(test_watch_helper_found),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
