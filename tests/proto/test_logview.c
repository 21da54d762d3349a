/* The JSON and human views of records (ctl/log/logview.c), and the library
 * operation sb_logview_verify (include/sbench/logview.h) called directly. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "log/logview_private.h"
#include "sbench/logview.h"

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

/* ---- sb_log_name_parse, sb_log_name_cmp ---- */

static void test_log_names(void **state)
{
	struct sb_log_name a, b;
	static const char *const bad[] = {
		"", "3.a0.j1.r0", "3.a0.j1.r0.logx", "3.a0.j.r0.log", "3.a0.jAB.r0.log",
		"-1.a0.j1.r0.log", "+1.a0.j1.r0.log", " 1.a0.j1.r0.log", "3.a-1.j1.r0.log",
		"3.a0.j1.r.log", "99999999999999999999.a0.j1.r0.log", "c3-a0-r0.log",
		"3.a0.j1_2.r0.log", "1.000-h-1.log",
	};
	size_t i;

	(void)state;
	assert_int_equal(sb_log_name_parse("12.a3.j98765.r4.log", &a), 0);
	assert_int_equal(a.child, 12);
	assert_int_equal(a.attempt, 3);
	assert_int_equal(a.restart, 4);
	assert_int_equal(a.job_len, 5);
	assert_memory_equal(a.job, "98765", 5);
	assert_int_equal(sb_log_name_parse("9223372036854775807.a0.jnone.r0.log", &b), 0);
	assert_int_equal(b.child, INT64_MAX);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b.child = -7;
		assert_int_equal(sb_log_name_parse(bad[i], &b), -1);
		assert_int_equal(b.child, -7); /* unchanged */
	}
	/* child, attempt, restart numerically, then the job */
#define ORDER(x, y) do { \
		assert_int_equal(sb_log_name_parse(x, &a), 0); \
		assert_int_equal(sb_log_name_parse(y, &b), 0); \
		assert_true(sb_log_name_cmp(&a, &b) < 0); \
		assert_true(sb_log_name_cmp(&b, &a) > 0); \
	} while (0)
	ORDER("2.a0.j1.r0.log", "10.a0.j1.r0.log");
	ORDER("2.a9.j1.r0.log", "10.a0.j1.r0.log");
	ORDER("2.a2.j1.r0.log", "2.a10.j1.r0.log");
	ORDER("2.a0.j1.r2.log", "2.a0.j1.r10.log");
	ORDER("2.a0.j99.r0.log", "2.a0.j100.r0.log");
	ORDER("2.a0.j100.r0.log", "2.a0.jnone.r0.log");
	assert_int_equal(sb_log_name_parse("2.a0.j7.r0.log", &a), 0);
	assert_int_equal(sb_log_name_parse("2.a0.j007.r0.log", &b), 0);
	assert_int_equal(sb_log_name_cmp(&a, &b), 0);
}

/* ---- sb_logview_verify ---- */

static char dir[64];

static char *pathf(const char *rel)
{
	static char buf[2][256];
	static int k;

	k = !k;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, rel);
	return buf[k];
}

static void write_log(const struct sb_key *key, const char *rel, int64_t child, int records)
{
	struct sb_run_ident id = { .bench = "ab", .child = child, .attempt = 0, .restart = 0,
				   .host = "h", .pid = 7 };
	struct sb_log_writer *w = sb_log_writer_create(pathf(rel), key, &id, NULL);
	int i;

	assert_non_null(w);
	for (i = 0; i < records; i++)
		assert_int_equal(sb_log_writer_append(w, i ? "heartbeat" : "start", "\x80", 1, NULL), 0);
	assert_int_equal(sb_log_writer_close(w, NULL), 0);
}

/* A benchmark-like directory (keys/, no benchmark record): children 0..11
 * in shard 0 written backwards, child 1000 in shard 1, a torn log of child
 * 5's restart, and a file that is not an agent's log. */
static int make_dir(void **state)
{
	struct sb_key key;
	char rel[64];
	int c, fd;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_logview.XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(mkdir(pathf("keys"), 0700), 0);
	assert_int_equal(mkdir(pathf("events"), 0700), 0);
	assert_int_equal(mkdir(pathf("events/0"), 0700), 0);
	assert_int_equal(mkdir(pathf("events/1"), 0700), 0);
	assert_int_equal(sb_key_generate_file(pathf("keys/hmac.key"), NULL), 0);
	assert_int_equal(sb_key_load(pathf("keys/hmac.key"), &key, NULL), 0);
	for (c = 11; c >= 0; c--) {
		snprintf(rel, sizeof(rel), "events/0/%d.a0.j1234.r0.log", c);
		write_log(&key, rel, c, 2);
	}
	write_log(&key, "events/1/1000.a0.j1234.r0.log", 1000, 2);
	write_log(&key, "events/notes.log", 3, 1);
	fd = open(pathf("events/0/5.a0.j1234.r1.log"), O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "SBE1", 4), 4); /* a frame cut short */
	close(fd);
	sb_key_cleanse(&key);
	return 0;
}

static int remove_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

struct notes {
	int n, problems;
	char last[512];
};

static void collect(void *arg, enum sb_logview_note kind, const char *msg)
{
	struct notes *ns = arg;

	ns->n++;
	ns->problems += kind == SB_LOGVIEW_NOTE_PROBLEM;
	snprintf(ns->last, sizeof(ns->last), "%s", msg);
}

/* Runs the buffer variant with stdout and stderr sent to a file, and checks
 * that the library wrote nothing to either. */
static int verify_quiet(const char *path, const struct sb_logview_opts *o, char **buf,
	size_t *len, struct sb_logview_summary *sum, struct sb_error *err)
{
	int saved_out = dup(1), saved_err = dup(2), fd, rc;
	struct stat st;

	fflush(stdout);
	fflush(stderr);
	fd = open(pathf("printed"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0 && saved_out >= 0 && saved_err >= 0);
	dup2(fd, 1);
	dup2(fd, 2);
	rc = sb_logview_verify_buffer(path, o, buf, len, sum, err);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	assert_int_equal(st.st_size, 0);
	unlink(pathf("printed"));
	return rc;
}

static void test_verify_dir(void **state)
{
	struct sb_logview_opts o = { 0 };
	struct sb_logview_summary sum;
	struct sb_error err = { 0 };
	struct notes ns = { 0 };
	char *buf = NULL, *p, want[4096] = "", line[256];
	size_t len = 0, lines = 0;
	int c;

	(void)state;
	o.note = collect;
	o.note_arg = &ns;
	assert_int_equal(verify_quiet(dir, &o, &buf, &len, &sum, &err), 0);
	assert_non_null(buf);
	assert_int_equal(strlen(buf), len);
	assert_int_equal(sum.files, 15);
	assert_int_equal(sum.records, 2 * 13 + 1);
	assert_int_equal(sum.verified, 2 * 13 + 1);
	assert_int_equal(sum.tail, SB_LOG_TAIL_TORN);
	assert_int_equal(sum.io_errors, 0);
	assert_int_equal(ns.n, 1);
	assert_int_equal(ns.problems, 1);
	assert_non_null(strstr(ns.last, "events/0/5.a0.j1234.r1.log: record 0 at byte 0"));
	assert_non_null(strstr(ns.last, "(torn_tail)"));
	/* child order: 0..11 (5's restart after its first run), 1000, the rest */
	for (c = 0; c < 12; c++) {
		snprintf(line, sizeof(line), "== %s/events/0/%d.a0.j1234.r0.log\n", dir, c);
		strcat(want, line);
		if (c == 5) {
			snprintf(line, sizeof(line), "== %s/events/0/5.a0.j1234.r1.log\n", dir);
			strcat(want, line);
		}
	}
	snprintf(line, sizeof(line), "== %s/events/1/1000.a0.j1234.r0.log\n== %s/events/notes.log\n",
		 dir, dir);
	strcat(want, line);
	{
		char got[4096] = "";
		for (p = buf; (p = strstr(p, "== ")) != NULL; p = strchr(p, '\n') + 1)
			strncat(got, p, (size_t)(strchr(p, '\n') + 1 - p));
		assert_string_equal(got, want);
	}
	assert_non_null(strstr(buf, "\ntotal: 15 files, 27 records, 27 verified, tail torn_tail\n"));
	sb_logview_free(buf);

	/* JSON lines: one a record, one summary a file, the total last */
	o.format = SB_FORMAT_JSON;
	assert_int_equal(verify_quiet(dir, &o, &buf, NULL, &sum, &err), 0);
	for (p = buf; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 27 + 15 + 1);
	assert_non_null(strstr(buf, "{\"format\":1,\"summary\":{\"files\":15,\"records\":27,"
		"\"verified\":27,\"tail\":\"torn_tail\"}}\n"));
	sb_logview_free(buf);

	/* the summary alone */
	assert_int_equal(sb_logview_verify(dir, NULL, NULL, &sum, &err), 0);
	assert_int_equal(sum.files, 15);
}

static void test_verify_errors(void **state)
{
	struct sb_logview_opts o = { 0 };
	struct sb_logview_summary sum;
	struct sb_error err = { 0 };
	char *buf = (char *)"x";

	(void)state;
	assert_int_equal(verify_quiet(pathf("nosuch"), &o, &buf, NULL, &sum, &err), -1);
	assert_null(buf);
	assert_int_equal(err.code, SB_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "cannot read '"));
	assert_int_equal(sum.files, 0);

	o.head = "1:00";
	assert_int_equal(verify_quiet(dir, &o, &buf, NULL, &sum, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	o.head = "nothead";
	assert_int_equal(verify_quiet(pathf("events/0/0.a0.j1234.r0.log"), &o, &buf, NULL,
		&sum, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	o.head = NULL;

	/* a child needs a benchmark record, and a directory */
	o.has_child = true;
	o.child = 3;
	assert_int_equal(verify_quiet(dir, &o, &buf, NULL, &sum, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_non_null(strstr(err.msg, "benchmark.msgpack"));
	assert_int_equal(verify_quiet(pathf("events/0/3.a0.j1234.r0.log"), &o, &buf, NULL,
		&sum, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	o.has_child = false;

	/* outside a benchmark directory a key must be given */
	{
		char outside[] = "/tmp/test_logview_nokey.XXXXXX";
		assert_non_null(mkdtemp(outside));
		assert_int_equal(verify_quiet(outside, &o, &buf, NULL, &sum, &err), -1);
		rmdir(outside);
	}
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_non_null(strstr(err.msg, "no key"));
	/* err may be NULL */
	assert_int_equal(sb_logview_verify(pathf("nosuch"), NULL, NULL, NULL, NULL), -1);
}

static void test_verify_file(void **state)
{
	struct sb_logview_summary sum;
	struct sb_error err = { 0 };
	char *buf;

	(void)state;
	assert_int_equal(verify_quiet(pathf("events/1/1000.a0.j1234.r0.log"), NULL, &buf, NULL,
		&sum, &err), 0);
	assert_int_equal(sum.files, 1);
	assert_int_equal(sum.records, 2);
	assert_int_equal(sum.verified, 2);
	assert_int_equal(sum.tail, SB_LOG_TAIL_OK);
	assert_null(strstr(buf, "== "));
	assert_non_null(strstr(buf, "1000.a0.j1234.r0.log: 2 records, 2 verified, tail ok"));
	sb_logview_free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_values),
		cmocka_unit_test(test_json_record),
		cmocka_unit_test(test_log_names),
		cmocka_unit_test_setup_teardown(test_verify_dir, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_verify_errors, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_verify_file, make_dir, remove_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
