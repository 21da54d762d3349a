/* The log writer under write and sync faults (docs/event-log.md §5.1),
 * injected deterministically through sb_log_writer_set_io: one EINTR, short
 * write, ENOSPC or EIO at every write and every sync of a five-record run,
 * a write that stops half-way, a sync that never succeeds.  After every
 * step the file must read as a prefix of the records created (tail ok or
 * torn_tail, every head seen before still valid), and a transient fault must
 * not lose the finish. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/proto/testlog.h"

enum fault { F_NONE, F_EINTR, F_SHORT, F_ENOSPC, F_EIO, F_HALF_ENOSPC };

static const char *const fault_names[] = {
	"none", "EINTR", "short write", "ENOSPC", "EIO", "half then ENOSPC",
};

/* The plan: the fault for the n-th write call and the n-th sync call
 * (counted from 0); F_NONE beyond. */
#define PLAN_MAX 64
static enum fault write_plan[PLAN_MAX], sync_plan[PLAN_MAX];
static int nwrites, nsyncs;
static int sync_always_fails, sync_always_eintr;

static ssize_t fake_write(int fd, const void *buf, size_t n)
{
	enum fault f = nwrites < PLAN_MAX ? write_plan[nwrites] : F_NONE;

	nwrites++;
	switch (f) {
	case F_EINTR:
		errno = EINTR;
		return -1;
	case F_SHORT:
		return write(fd, buf, n > 1 ? n / 2 : n);
	case F_ENOSPC:
		errno = ENOSPC;
		return -1;
	case F_EIO:
		errno = EIO;
		return -1;
	case F_HALF_ENOSPC: {
		/* half the frame reaches the file, then the disk is full */
		ssize_t k = write(fd, buf, n > 1 ? n / 2 : n);

		if (nwrites < PLAN_MAX)
			write_plan[nwrites] = F_ENOSPC;
		return k;
	}
	case F_NONE:
		break;
	}
	return write(fd, buf, n);
}

static int fake_sync(int fd)
{
	enum fault f = nsyncs < PLAN_MAX ? sync_plan[nsyncs] : F_NONE;

	nsyncs++;
	if (sync_always_eintr) {
		errno = EINTR;
		return -1;
	}
	if (sync_always_fails || f == F_EIO) {
		errno = EIO;
		return -1;
	}
	if (f == F_ENOSPC || f == F_EINTR) {
		errno = f == F_ENOSPC ? ENOSPC : EINTR;
		return -1;
	}
	return fdatasync(fd);
}

static void reset_plan(void)
{
	memset(write_plan, 0, sizeof(write_plan));
	memset(sync_plan, 0, sizeof(sync_plan));
	nwrites = nsyncs = 0;
	sync_always_fails = sync_always_eintr = 0;
}

static char dir[] = "/tmp/sbtest-logfault-XXXXXX";
static struct sb_key key;
static struct sb_log_verifier *ver;

static const char *path_of(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	unlink(buf);
	return buf;
}

static const uint8_t map0[] = { 0x80 };

/* Reads path with the heads seen so far: the tail must be ok or torn_tail
 * and no earlier head may be contradicted.  Returns the verified count and
 * remembers the head. */
static size_t check_prefix(const char *path, struct sb_log_head *heads,
	size_t *nheads, const char *what)
{
	struct sb_log_expect e = { 0 };
	struct sb_log_result *r;
	struct sb_error err;
	size_t i, verified;
	enum sb_log_tail t;

	for (i = 0; i < *nheads; i++) {
		e.head = &heads[i];
		r = sb_log_read_file(ver, path, &e, &err);
		if (r == NULL)
			fail_msg("%s: %s", what, err.msg);
		t = sb_log_result_tail(r);
		if (t != SB_LOG_TAIL_OK && t != SB_LOG_TAIL_TORN)
			fail_msg("%s: head %zu: tail %s (%s)", what, i, sb_log_tail_name(t),
				sb_log_result_detail(r));
		sb_log_result_destroy(r);
	}
	r = sb_log_read_file(ver, path, NULL, &err);
	if (r == NULL)
		fail_msg("%s: %s", what, err.msg);
	t = sb_log_result_tail(r);
	if (t != SB_LOG_TAIL_OK && t != SB_LOG_TAIL_TORN)
		fail_msg("%s: tail %s (%s)", what, sb_log_tail_name(t), sb_log_result_detail(r));
	verified = sb_log_result_verified(r);
	if (verified > 0 && *nheads < 16)
		sb_log_result_head(r, &heads[(*nheads)++]);
	sb_log_result_destroy(r);
	return verified;
}

/* What the agent does: start, three heartbeats (a failed one is reported
 * and the run goes on), finish retried until it is on disk.  Returns the
 * record types that verified, in order, as one letter each. */
static void agent_like_run(const char *path, char *types, const char *what)
{
	static const char *const seq[] = { "start", "heartbeat", "heartbeat", "heartbeat", "finish" };
	struct sb_run_ident id = sbt_ident(7, 0);
	struct sb_log_head heads[16];
	struct sb_log_writer *w;
	struct sb_log_result *r;
	struct sb_error err;
	size_t nheads = 0, i;
	int tries, rc;

	w = sb_log_writer_create(path, &key, &id, &err);
	assert_non_null(w);
	sb_log_writer_set_io(w, fake_write, fake_sync);
	for (i = 0; i < 5; i++) {
		uint64_t before = sb_log_writer_count(w);

		rc = sb_log_writer_append(w, seq[i], map0, 1, &err);
		check_prefix(path, heads, &nheads, what);
		for (tries = 0; rc != 0 && (i == 0 || i == 4) && tries < 5; tries++) {
			rc = sb_log_writer_count(w) > before ? sb_log_writer_flush(w, &err) :
				sb_log_writer_append(w, seq[i], map0, 1, &err);
			check_prefix(path, heads, &nheads, what);
		}
		if (rc != 0 && (i == 0 || i == 4))
			fail_msg("%s: the %s record was never written: %s", what, seq[i], err.msg);
	}
	assert_false(sb_log_writer_pending(w));
	assert_int_equal(sb_log_writer_close(w, &err), 0);
	check_prefix(path, heads, &nheads, what);

	r = sb_log_read_file(ver, path, NULL, &err);
	assert_non_null(r);
	if (sb_log_result_tail(r) != SB_LOG_TAIL_OK)
		fail_msg("%s: final tail %s", what, sb_log_tail_name(sb_log_result_tail(r)));
	for (i = 0; i < sb_log_result_verified(r); i++)
		types[i] = sb_log_result_record(r, i)->type[0];
	types[i] = '\0';
	sb_log_result_destroy(r);
}

/* One transient fault at every write call and every sync call: the log
 * ends ok with start first and finish last, and at most the heartbeat
 * whose turn it was is missing. */
static void test_one_fault_anywhere(void **state)
{
	static const enum fault wf[] = { F_EINTR, F_SHORT, F_ENOSPC, F_EIO, F_HALF_ENOSPC };
	static const enum fault sf[] = { F_EINTR, F_ENOSPC, F_EIO };
	char types[16], what[96];
	size_t k;
	int at;

	(void)state;
	for (k = 0; k < sizeof(wf) / sizeof(wf[0]); k++) {
		for (at = 0; at < 6; at++) {
			reset_plan();
			write_plan[at] = wf[k];
			snprintf(what, sizeof(what), "%s at write %d", fault_names[wf[k]], at);
			agent_like_run(path_of("w.log"), types, what);
			if (strcmp(types, "shhhf") != 0 &&
			    !(wf[k] >= F_ENOSPC && (!strcmp(types, "shhf"))))
				fail_msg("%s: records %s", what, types);
			if (wf[k] <= F_SHORT && strcmp(types, "shhhf") != 0)
				fail_msg("%s: EINTR or a short write lost a record: %s", what, types);
		}
	}
	for (k = 0; k < sizeof(sf) / sizeof(sf[0]); k++) {
		for (at = 0; at < 6; at++) {
			reset_plan();
			sync_plan[at] = sf[k];
			snprintf(what, sizeof(what), "%s at sync %d", fault_names[sf[k]], at);
			agent_like_run(path_of("s.log"), types, what);
			if (strcmp(types, "shhhf") != 0 && strcmp(types, "shhf") != 0)
				fail_msg("%s: records %s", what, types);
		}
	}
}

/* A failed write leaves a torn tail, never anything a reader calls
 * tampering; the pending record is completed in place; a record appended
 * meanwhile is skipped without a gap in the chain. */
static void test_pending_in_place(void **state)
{
	struct sb_run_ident id = sbt_ident(7, 0);
	struct sb_log_writer *w;
	struct sb_log_result *r;
	struct sb_error err;
	const char *p = path_of("p.log");
	uint8_t *buf;
	size_t len;

	(void)state;
	reset_plan();
	write_plan[1] = F_HALF_ENOSPC; /* the heartbeat: half, then ENOSPC */
	write_plan[3] = F_ENOSPC;      /* its first retry (from the next append) */
	w = sb_log_writer_create(p, &key, &id, &err);
	assert_non_null(w);
	sb_log_writer_set_io(w, fake_write, fake_sync);
	assert_int_equal(sb_log_writer_append(w, "start", map0, 1, &err), 0);
	assert_int_equal(sb_log_writer_append(w, "heartbeat", map0, 1, &err), -1);
	assert_non_null(strstr(err.msg, "No space left on device"));
	assert_true(sb_log_writer_pending(w));
	assert_int_equal(sb_log_writer_count(w), 2);
	buf = sbt_read(p, &len);
	r = sb_log_read_buffer(ver, buf, len, NULL, &err);
	assert_int_equal(sb_log_result_tail(r), SB_LOG_TAIL_TORN);
	assert_int_equal(sb_log_result_verified(r), 1);
	sb_log_result_destroy(r);
	free(buf);
	/* the signal record cannot go in while the heartbeat is pending */
	assert_int_equal(sb_log_writer_append(w, "signal", map0, 1, &err), -1);
	assert_non_null(strstr(err.msg, "'signal' record not written"));
	assert_int_equal(sb_log_writer_count(w), 2);
	/* the disk has room again: the heartbeat, then the finish */
	assert_int_equal(sb_log_writer_append(w, "finish", map0, 1, &err), 0);
	assert_false(sb_log_writer_pending(w));
	assert_int_equal(sb_log_writer_close(w, &err), 0);
	buf = sbt_read(p, &len);
	r = sb_log_read_buffer(ver, buf, len, NULL, &err);
	assert_int_equal(sb_log_result_tail(r), SB_LOG_TAIL_OK);
	assert_int_equal(sb_log_result_verified(r), 3);
	assert_string_equal(sb_log_result_record(r, 1)->type, "heartbeat");
	assert_string_equal(sb_log_result_record(r, 2)->type, "finish");
	assert_int_equal(sb_log_result_record(r, 2)->seq, 2);
	sb_log_result_destroy(r);
	free(buf);
}

/* A sync that never succeeds: the append fails, the record stays pending
 * (the bytes are in the file, unproven), close fails too.  The caller (the
 * agent) must not treat such a record as written. */
static void test_sync_never_succeeds(void **state)
{
	struct sb_run_ident id = sbt_ident(7, 0);
	struct sb_log_writer *w;
	struct sb_error err;
	const char *p = path_of("n.log");

	(void)state;
	reset_plan();
	w = sb_log_writer_create(p, &key, &id, &err);
	assert_non_null(w);
	sb_log_writer_set_io(w, fake_write, fake_sync);
	assert_int_equal(sb_log_writer_append(w, "start", map0, 1, &err), 0);
	sync_always_fails = 1;
	assert_int_equal(sb_log_writer_append(w, "finish", map0, 1, &err), -1);
	assert_non_null(strstr(err.msg, "cannot fsync log"));
	assert_true(sb_log_writer_pending(w));
	assert_int_equal(sb_log_writer_flush(w, &err), -1);
	assert_true(sb_log_writer_pending(w));
	assert_int_equal(sb_log_writer_close(w, &err), -1);
	assert_non_null(strstr(err.msg, "not written"));

	/* EINTR for ever (an injected fault): a failure, not a hang */
	reset_plan();
	w = sb_log_writer_create(path_of("i.log"), &key, &id, &err);
	assert_non_null(w);
	sb_log_writer_set_io(w, fake_write, fake_sync);
	sync_always_eintr = 1;
	assert_int_equal(sb_log_writer_append(w, "start", map0, 1, &err), -1);
	assert_non_null(strstr(err.msg, "Interrupted system call"));
	assert_true(sb_log_writer_pending(w));
	sync_always_eintr = 0;
	assert_int_equal(sb_log_writer_flush(w, &err), 0);
	assert_int_equal(sb_log_writer_close(w, &err), 0);
}

static int setup(void **state)
{
	struct sb_error err;

	(void)state;
	if (mkdtemp(dir) == NULL)
		return -1;
	sbt_golden_key(&key);
	ver = sb_log_verifier_create(&key, &err);
	return ver ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[512];

	(void)state;
	sb_log_verifier_destroy(ver);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_fault_anywhere),
		cmocka_unit_test(test_pending_in_place),
		cmocka_unit_test(test_sync_never_succeeds),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
