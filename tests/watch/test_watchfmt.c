/* The shared pieces of live watch: endpoint file names and text, the watch
 * key file, the log writer's tap, and sb_log_read_frame (one frame off the
 * wire, verified alone). */
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

#include "proto/watchfmt.h"
#include "sbench/key.h"
#include "sbench/log.h"

static const char Z85[] = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";

static void test_names(void **state)
{
	char host[64];
	int64_t pid;

	(void)state;
	assert_int_equal(sb_watch_name_parse("node-1-4242.endpoint", host, sizeof(host), &pid), 0);
	assert_string_equal(host, "node-1");
	assert_int_equal(pid, 4242);
	assert_int_equal(sb_watch_name_parse(".node-1.tmp", host, sizeof(host), &pid), -1);
	assert_int_equal(sb_watch_name_parse("node.endpoint", host, sizeof(host), &pid), -1);
	assert_int_equal(sb_watch_name_parse("node-.endpoint", host, sizeof(host), &pid), -1);
	assert_int_equal(sb_watch_name_parse("-12.endpoint", host, sizeof(host), &pid), -1);
	assert_int_equal(sb_watch_name_parse("n-1x.endpoint", host, sizeof(host), &pid), -1);
	assert_int_equal(sb_watch_name_parse("n-99999999999999999999.endpoint", host, sizeof(host), &pid), -1);
	assert_int_equal(sb_watch_name_parse("averyverylonghostname-1.endpoint", host, 8, &pid), -1);
}

static void test_endpoint_text(void **state)
{
	struct sb_watch_endpoint e = { 0 }, back;
	struct sb_error err;
	char buf[512];
	int n;

	(void)state;
	snprintf(e.addr, sizeof(e.addr), "tcp://10.0.0.5:40123");
	memcpy(e.server_key, Z85, 40);
	n = sb_watch_endpoint_format(&e, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(sb_watch_endpoint_parse(buf, (size_t)n, &back, &err), 0);
	assert_memory_equal(&e, &back, sizeof(e));
	assert_int_equal(sb_watch_endpoint_format(&e, buf, 10), -1);
	/* lines in another order, others ignored */
	n = snprintf(buf, sizeof(buf), "x y\nserver_key %s\nendpoint tcp://h:1\n", Z85);
	assert_int_equal(sb_watch_endpoint_parse(buf, (size_t)n, &back, &err), 0);
	assert_string_equal(back.addr, "tcp://h:1");
	n = snprintf(buf, sizeof(buf), "endpoint tcp://h:1\n");
	assert_int_equal(sb_watch_endpoint_parse(buf, (size_t)n, &back, &err), -1);
	assert_non_null(strstr(err.msg, "server_key"));
	n = snprintf(buf, sizeof(buf), "endpoint tcp://h:1\nserver_key %.39s \n", Z85);
	assert_int_equal(sb_watch_endpoint_parse(buf, (size_t)n, &back, &err), -1);
	n = snprintf(buf, sizeof(buf), "endpoint tcp://h :1\nserver_key %s\n", Z85);
	assert_int_equal(sb_watch_endpoint_parse(buf, (size_t)n, &back, &err), -1);
}

static void test_key_file(void **state)
{
	char dir[] = "/tmp/sbwatchfmt.XXXXXX", path[64], sec[41];
	struct sb_error err;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/watch.key", dir);
	f = fopen(path, "w");
	fprintf(f, "%s\n", Z85);
	fclose(f);
	chmod(path, 0600);
	assert_int_equal(sb_watch_key_read(path, sec, &err), 0);
	assert_string_equal(sec, Z85);
	chmod(path, 0640);
	assert_int_equal(sb_watch_key_read(path, sec, &err), -1);
	assert_non_null(strstr(err.msg, "refused"));
	chmod(path, 0600);
	f = fopen(path, "w");
	fprintf(f, "short\n");
	fclose(f);
	assert_int_equal(sb_watch_key_read(path, sec, &err), -1);
	unlink(path);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(sb_watch_key_read(path, sec, &err), -1);
	assert_non_null(strstr(err.msg, "symbolic link"));
	unlink(path);
	rmdir(dir);
}

struct tapped {
	uint8_t buf[4096];
	size_t len;
	int calls;
};

static void tap(void *arg, const void *frame, size_t len)
{
	struct tapped *t = arg;

	if (t->len + len <= sizeof(t->buf))
		memcpy(t->buf + t->len, frame, len);
	t->len += len;
	t->calls++;
}

static void test_tap_and_frames(void **state)
{
	char dir[] = "/tmp/sbwatchfmt.XXXXXX", path[64], other[64];
	struct sb_run_ident id = { .bench = "ab", .child = 3, .attempt = 0, .restart = -1,
		.host = "h", .pid = 1 };
	struct sb_run_ident want = { .bench = "ab", .child = -1, .attempt = -1, .restart = -1,
		.pid = -1 }, wrong = want;
	struct sb_log_expect ex = { .id = &want }, exw = { .id = &wrong };
	struct sb_log_verifier *v, *vo;
	struct sb_log_writer *w;
	struct sb_log_result *r;
	struct tapped t = { 0 };
	struct sb_error err;
	struct sb_key key, okey;
	uint8_t file[4096], frame[4096];
	const uint8_t payload[] = { 0x80 }; /* an empty map */
	size_t first;
	ssize_t n;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/k", dir);
	snprintf(other, sizeof(other), "%s/o", dir);
	assert_int_equal(sb_key_generate_file(path, &err), 0);
	assert_int_equal(sb_key_generate_file(other, &err), 0);
	assert_int_equal(sb_key_load(path, &key, &err), 0);
	assert_int_equal(sb_key_load(other, &okey, &err), 0);
	snprintf(path, sizeof(path), "%s/log", dir);
	w = sb_log_writer_create(path, &key, &id, &err);
	assert_non_null(w);
	sb_log_writer_set_tap(w, tap, &t);
	assert_int_equal(sb_log_writer_append(w, "start", payload, 1, &err), 0);
	first = t.len;
	assert_int_equal(sb_log_writer_append(w, "heartbeat", payload, 1, &err), 0);
	assert_int_equal(sb_log_writer_close(w, &err), 0);
	/* the tap saw every frame, the file's very bytes */
	fd = open(path, O_RDONLY);
	n = read(fd, file, sizeof(file));
	close(fd);
	assert_int_equal(t.calls, 2);
	assert_int_equal((size_t)n, t.len);
	assert_memory_equal(file, t.buf, t.len);

	v = sb_log_verifier_create(&key, &err);
	vo = sb_log_verifier_create(&okey, &err);
	/* the second frame alone verifies (no chain to check) */
	r = sb_log_read_frame(v, t.buf + first, t.len - first, &ex, &err);
	assert_non_null(r);
	assert_int_equal(sb_log_result_verified(r), 1);
	assert_int_equal(sb_log_result_record(r, 0)->seq, 1);
	assert_string_equal(sb_log_result_record(r, 0)->type, "heartbeat");
	sb_log_result_destroy(r);
	/* a flipped tag byte, another key: bad_mac */
	memcpy(frame, t.buf + first, t.len - first);
	frame[t.len - first - 1] ^= 1;
	r = sb_log_read_frame(v, frame, t.len - first, &ex, &err);
	assert_int_equal(sb_log_result_verified(r), 0);
	assert_int_equal(sb_log_result_tail(r), SB_LOG_TAIL_BAD_MAC);
	sb_log_result_destroy(r);
	r = sb_log_read_frame(vo, t.buf, first, &ex, &err);
	assert_int_equal(sb_log_result_tail(r), SB_LOG_TAIL_BAD_MAC);
	sb_log_result_destroy(r);
	/* another benchmark's: foreign */
	wrong.bench = "cd";
	r = sb_log_read_frame(v, t.buf, first, &exw, &err);
	assert_int_equal(sb_log_result_tail(r), SB_LOG_TAIL_FOREIGN);
	sb_log_result_destroy(r);
	/* two frames, or a torn one, are not one frame */
	r = sb_log_read_frame(v, t.buf, t.len, &ex, &err);
	assert_int_equal(sb_log_result_tail(r), SB_LOG_TAIL_CORRUPT);
	assert_int_equal(sb_log_result_verified(r), 1);
	sb_log_result_destroy(r);
	r = sb_log_read_frame(v, t.buf, first - 1, &ex, &err);
	assert_int_equal(sb_log_result_tail(r), SB_LOG_TAIL_TORN);
	assert_int_equal(sb_log_result_verified(r), 0);
	sb_log_result_destroy(r);
	r = sb_log_read_frame(v, t.buf, 0, &ex, &err);
	assert_int_equal(sb_log_result_verified(r), 0);
	assert_int_not_equal(sb_log_result_tail(r), SB_LOG_TAIL_OK);
	sb_log_result_destroy(r);
	sb_log_verifier_destroy(v);
	sb_log_verifier_destroy(vo);
	sb_key_cleanse(&key);
	sb_key_cleanse(&okey);
	unlink(path);
	snprintf(path, sizeof(path), "%s/k", dir);
	unlink(path);
	unlink(other);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_endpoint_text),
		cmocka_unit_test(test_key_file),
		cmocka_unit_test(test_tap_and_frames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
