/* The event log: golden files, round trip, truncation at every offset,
 * every single-bit flip, tampering (CRC recomputed, reorder, delete,
 * duplicate, splice, wrong key, foreign, rollback), writer error paths. */
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

#include "proto/crc32c.h"
#include "proto/record.h"
#include "proto/util.h"
#include "tests/proto/testlog.h"

#define T0 1700000000000000000LL

static char tmpdir[] = "/tmp/sbtest-log-XXXXXX";
static struct sb_key key;
static struct sb_log_verifier *ver;

static const char *tmp(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	unlink(buf[k]);
	return buf[k];
}

/* A fresh log of n records for the given child; returns its bytes. */
static uint8_t *make(int n, int64_t child, int64_t t0, size_t *len)
{
	struct sb_run_ident id = sbt_ident(child, 0);
	struct sb_error err;
	const char *p = tmp("made.log");
	uint8_t *buf;

	if (sbt_write_log(p, &key, &id, n, t0, &err) < 0)
		fail_msg("%s", err.msg);
	buf = sbt_read(p, len);
	assert_non_null(buf);
	return buf;
}

/* What sb_log_read_file_each handed over, to compare with the records of
 * the same bytes read whole. */
struct seen {
	const struct sb_log_result *whole;
	size_t n;
};

static int see(const struct sb_log_record *rec, void *arg, struct sb_error *err)
{
	struct seen *s = arg;
	const struct sb_log_record *w = sb_log_result_record(s->whole, s->n++);

	(void)err;
	assert_non_null(w);
	assert_int_equal(rec->seq, w->seq);
	assert_int_equal(rec->offset, w->offset);
	assert_int_equal(rec->size, w->size);
	assert_int_equal(rec->verified, w->verified);
	assert_string_equal(rec->type, w->type);
	assert_memory_equal(rec->tag, w->tag, SB_LOG_TAG_LEN);
	assert_int_equal(rec->payload.via.map.size, w->payload.via.map.size);
	return 0;
}

/* The streaming reader of the same bytes gives the same verdict, counts,
 * head and records, in order. */
static void same_streamed(const uint8_t *buf, size_t len, const struct sb_log_expect *e,
	const struct sb_log_result *whole)
{
	const char *p = tmp("streamed.log");
	struct seen s = { .whole = whole };
	struct sb_log_head h1, h2;
	struct sb_log_result *r;
	int k1, k2;

	assert_int_equal(sbt_write(p, buf, len), 0);
	r = sb_log_read_file_each(ver, p, e, see, &s, NULL);
	assert_non_null(r);
	assert_int_equal(s.n, sb_log_result_count(whole));
	assert_int_equal(sb_log_result_count(r), sb_log_result_count(whole));
	assert_int_equal(sb_log_result_verified(r), sb_log_result_verified(whole));
	assert_int_equal(sb_log_result_tail(r), sb_log_result_tail(whole));
	assert_int_equal(sb_log_result_tail_offset(r), sb_log_result_tail_offset(whole));
	assert_string_equal(sb_log_result_detail(r), sb_log_result_detail(whole));
	k1 = sb_log_result_head(r, &h1);
	k2 = sb_log_result_head(whole, &h2);
	assert_int_equal(k1, k2);
	if (k1 == 0) {
		assert_int_equal(h1.count, h2.count);
		assert_memory_equal(h1.tag, h2.tag, SB_LOG_TAG_LEN);
	}
	assert_null(sb_log_result_record(r, 1));
	if (sb_log_result_count(whole) > 0) { /* record 0 stays whole */
		const struct sb_log_record *r0 = sb_log_result_record(r, 0);
		const struct sb_log_record *w0 = sb_log_result_record(whole, 0);
		assert_non_null(r0);
		assert_string_equal(r0->type, w0->type);
		assert_true(msgpack_object_equal(r0->payload, w0->payload));
	}
	sb_log_result_destroy(r);
}

static struct sb_log_result *rd(const uint8_t *buf, size_t len,
	const struct sb_log_expect *e)
{
	struct sb_log_result *r = sb_log_read_buffer(ver, buf, len, e, NULL);

	assert_non_null(r);
	same_streamed(buf, len, e, r);
	return r;
}

static int refuse(const struct sb_log_record *rec, void *arg, struct sb_error *err)
{
	size_t *n = arg;

	(void)rec;
	if (++*n < 3)
		return 0;
	return sb_errorf(err, "the caller had enough");
}

/* A failing each() stops the reading with its own error, unprefixed. */
static void test_each_fails(void **state)
{
	size_t len, n = 0;
	uint8_t *a = make(5, 4, T0, &len);
	const char *p = tmp("each.log");
	struct sb_error err = { 0 };

	(void)state;
	assert_int_equal(sbt_write(p, a, len), 0);
	assert_null(sb_log_read_file_each(ver, p, NULL, refuse, &n, &err));
	assert_int_equal(n, 3);
	assert_string_equal(err.msg, "the caller had enough");
	free(a);
}


/* A log of records up to the largest body, several times the streaming
 * reader's window: read in pieces, it gives what the whole read gives,
 * verified or torn, forged or corrupt past the first window. */
static void test_long_log_streamed(void **state)
{
	static const size_t sizes[] = { 300000, SB_LOG_BODY_MAX - 4096, 700000, 5,
					SB_LOG_BODY_MAX - 4096, 900000, 123456, 1000 };
	const size_t n = sizeof(sizes) / sizeof(sizes[0]);
	struct sb_run_ident id = sbt_ident(9, 0);
	const char *p = tmp("long.log");
	struct sb_log_result *r;
	struct sb_log_writer *w;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	char *blob = calloc(1, SB_LOG_BODY_MAX);
	uint8_t *buf;
	size_t len, i, off[16];

	(void)state;
	assert_non_null(blob);
	w = sb_log_writer_create(p, &key, &id, NULL);
	assert_non_null(w);
	msgpack_sbuffer_init(&sb);
	for (i = 0; i < n; i++) {
		memset(blob, 'a' + (int)i, sizes[i]);
		msgpack_sbuffer_clear(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_map(&pk, 1);
		msgpack_pack_str_with_body(&pk, "blob", 4);
		msgpack_pack_bin_with_body(&pk, blob, sizes[i]);
		assert_int_equal(sb_log_writer_append(w, i == 0 ? "start" : "heartbeat", sb.data,
						      sb.size, NULL), 0);
	}
	msgpack_sbuffer_destroy(&sb);
	assert_int_equal(sb_log_writer_close(w, NULL), 0);
	free(blob);
	buf = sbt_read(p, &len);
	assert_non_null(buf);
	assert_true(len > 3 * SB_LOG_BODY_MAX); /* past the window of two frames */
	assert_int_equal(sbt_frames(buf, len, off, 16), n);

	r = rd(buf, len, NULL); /* every record verifies */
	assert_int_equal(sb_log_result_verified(r), n);
	sb_log_result_destroy(r);
	r = rd(buf, off[6] + 100, NULL); /* torn in the seventh */
	assert_int_equal(sb_log_result_tail(r), SB_LOG_TAIL_TORN);
	assert_int_equal(sb_log_result_verified(r), 6);
	sb_log_result_destroy(r);
	buf[off[5] + SB_LOG_HEADER_LEN + 50000] ^= 1; /* a flipped bit in the sixth */
	r = rd(buf, len, NULL);
	assert_int_equal(sb_log_result_verified(r), 5);
	assert_int_not_equal(sb_log_result_tail(r), SB_LOG_TAIL_OK);
	sb_log_result_destroy(r);
	free(buf);
}

static int setup(void **state)
{
	(void)state;
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	sbt_golden_key(&key);
	ver = sb_log_verifier_create(&key, NULL);
	return ver ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	sb_log_verifier_destroy(ver);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- golden files: the format must never drift ---- */

static void golden(int n, const char *name)
{
	char want_path[1024];
	const char *data = getenv("SB_TEST_DATA");
	uint8_t *got, *want;
	size_t glen, wlen;

	if (data == NULL)
		skip();
	got = make(n, 4, T0, &glen);
	snprintf(want_path, sizeof(want_path), "%s/golden/%s", data, name);
	if (getenv("SB_GOLDEN_REGEN") != NULL)
		assert_int_equal(sbt_write(want_path, got, glen), 0);
	{
		/* the writer and the in-memory crafter agree */
		struct sb_run_ident id = sbt_ident(4, 0);
		size_t clen;
		uint8_t *crafted = sbt_craft_log(&key, &id, n, T0, &clen);
		assert_int_equal(clen, glen);
		assert_memory_equal(crafted, got, glen);
		free(crafted);
	}
	want = sbt_read(want_path, &wlen);
	if (want == NULL)
		fail_msg("cannot read %s (regenerate with SB_GOLDEN_REGEN=1)", want_path);
	assert_int_equal(glen, wlen);
	assert_memory_equal(got, want, glen);
	free(got);
	free(want);
}

static void test_golden(void **state)
{
	(void)state;
	golden(1, "log-1.sbe");
	golden(4, "log-4.sbe");
}

/* ---- round trip ---- */

static const msgpack_object *pfield(const msgpack_object *m, const char *k)
{
	uint32_t i;

	for (i = 0; i < m->via.map.size; i++)
		if (m->via.map.ptr[i].key.via.str.size == strlen(k) &&
		    !memcmp(m->via.map.ptr[i].key.via.str.ptr, k, strlen(k)))
			return &m->via.map.ptr[i].val;
	return NULL;
}

static void test_roundtrip(void **state)
{
	size_t len, i;
	uint8_t *buf = make(4, 4, T0, &len);
	struct sb_log_result *r = rd(buf, len, NULL);
	const struct sb_log_record *rec;
	struct sb_log_head head;
	static const char *types[] = { "start", "heartbeat", "heartbeat", "finish" };

	(void)state;
	assert_int_equal(sb_log_result_count(r), 4);
	assert_int_equal(sb_log_result_verified(r), 4);
	assert_int_equal(sb_log_result_tail(r), SB_LOG_TAIL_OK);
	assert_int_equal(sb_log_result_tail_offset(r), len);
	assert_string_equal(sb_log_result_detail(r), "");
	for (i = 0; i < 4; i++) {
		rec = sb_log_result_record(r, i);
		assert_true(rec->verified);
		assert_int_equal(rec->seq, i);
		assert_int_equal(rec->time_ns, T0 + (int64_t)i * 1000000000);
		assert_string_equal(rec->type, types[i]);
		assert_int_equal(rec->id.child, 4);
		assert_int_equal(rec->id.attempt, 0);
		assert_int_equal(rec->id.restart, 0);
		assert_int_equal(rec->id.pid, 4242);
		assert_string_equal(rec->id.host, "node001");
		assert_string_equal(rec->id.job_id, "1234");
		assert_int_equal(rec->has_prev, i > 0);
		if (i > 0)
			assert_memory_equal(rec->prev, sb_log_result_record(r, i - 1)->tag, 32);
	}
	rec = sb_log_result_record(r, 3);
	assert_int_equal(pfield(&rec->payload, "records")->via.u64, 4);
	assert_int_equal(pfield(&rec->payload, "wall_s")->type, MSGPACK_OBJECT_FLOAT64);
	assert_null(sb_log_result_record(r, 4));
	assert_int_equal(sb_log_result_head(r, &head), 0);
	assert_int_equal(head.count, 4);
	assert_memory_equal(head.tag, rec->tag, 32);
	sb_log_result_destroy(r);

	/* decode only: the same records, none verified */
	r = sb_log_decode_buffer(buf, len, NULL);
	assert_non_null(r);
	assert_int_equal(sb_log_result_count(r), 4);
	assert_int_equal(sb_log_result_verified(r), 0);
	assert_int_equal(sb_log_result_tail(r), SB_LOG_TAIL_OK);
	assert_false(sb_log_result_record(r, 0)->verified);
	assert_int_equal(sb_log_result_head(r, &head), -1);
	sb_log_result_destroy(r);

	/* an empty file is a log with no records */
	r = rd(buf, 0, NULL);
	assert_int_equal(sb_log_result_count(r), 0);
	assert_int_equal(sb_log_result_tail(r), SB_LOG_TAIL_OK);
	sb_log_result_destroy(r);
	free(buf);
}

/* ---- truncation at every byte offset ---- */

static void test_truncate_everywhere(void **state)
{
	size_t len, cut, off[8], n, complete, k;
	uint8_t *buf = make(4, 4, T0, &len);
	struct sb_log_result *r;

	(void)state;
	n = sbt_frames(buf, len, off, 7);
	assert_int_equal(n, 4);
	for (cut = 0; cut <= len; cut++) {
		bool boundary = false;
		complete = 0;
		for (k = 0; k <= n; k++) {
			if (off[k] == cut)
				boundary = true;
			if (k > 0 && off[k] <= cut)
				complete = k;
		}
		r = rd(buf, cut, NULL);
		assert_int_equal(sb_log_result_verified(r), complete);
		assert_int_equal(sb_log_result_count(r), complete);
		assert_int_equal(sb_log_result_tail(r),
			boundary ? SB_LOG_TAIL_OK : SB_LOG_TAIL_TORN);
		sb_log_result_destroy(r);
	}
	/* a zero-filled tail (a crash after the size grew) is torn too */
	{
		uint8_t *z = calloc(1, len + 100);
		memcpy(z, buf, len);
		r = rd(z, len + 100, NULL);
		assert_int_equal(sb_log_result_verified(r), 4);
		assert_int_equal(sb_log_result_tail(r), SB_LOG_TAIL_TORN);
		sb_log_result_destroy(r);
		free(z);
	}
	free(buf);
}

/* ---- every single-bit flip is detected ---- */

static void test_bitflip_everywhere(void **state)
{
	size_t len, bit, off[8], n, rec_of_byte;
	uint8_t *buf = make(4, 4, T0, &len);
	struct sb_log_result *r;

	(void)state;
	n = sbt_frames(buf, len, off, 7);
	for (bit = 0; bit < 8 * len; bit++) {
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		r = rd(buf, len, NULL);
		for (rec_of_byte = 0; rec_of_byte + 1 < n && off[rec_of_byte + 1] <= bit / 8;
		     rec_of_byte++)
			;
		/* the records before the damaged one still verify; the damaged
		 * one and everything after it do not */
		assert_int_equal(sb_log_result_verified(r), rec_of_byte);
		assert_int_not_equal(sb_log_result_tail(r), SB_LOG_TAIL_OK);
		sb_log_result_destroy(r);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	free(buf);
}

/* ---- tampering ---- */

static uint8_t *cat_frames(const uint8_t *a, const size_t *aoff, const int *order,
	int count, size_t *len)
{
	uint8_t *out = malloc(65536);
	size_t at = 0;
	int i;

	for (i = 0; i < count; i++) {
		size_t n = aoff[order[i] + 1] - aoff[order[i]];
		memcpy(out + at, a + aoff[order[i]], n);
		at += n;
	}
	*len = at;
	return out;
}

static void expect_tail(const uint8_t *buf, size_t len, size_t verified,
	enum sb_log_tail tail, const struct sb_log_expect *e)
{
	struct sb_log_result *r = rd(buf, len, e);

	assert_string_equal(sb_log_tail_name(sb_log_result_tail(r)), sb_log_tail_name(tail));
	assert_int_equal(sb_log_result_verified(r), verified);
	sb_log_result_destroy(r);
}

static void test_tamper(void **state)
{
	size_t len, len2, len3, tlen, off[8], off2[8];
	uint8_t *a = make(4, 4, T0, &len);
	uint8_t *other_child = make(4, 5, T0, &len2);
	uint8_t *other_run = make(4, 4, T0 + 77, &len3);
	uint8_t *t;
	struct sb_frame f;

	(void)state;
	sbt_frames(a, len, off, 7);
	{ int o[] = { 0, 2, 1, 3 }; t = cat_frames(a, off, o, 4, &tlen);
	  expect_tail(t, tlen, 1, SB_LOG_TAIL_CHAIN_BREAK, NULL); free(t); }
	{ int o[] = { 0, 2, 3 }; t = cat_frames(a, off, o, 3, &tlen);
	  expect_tail(t, tlen, 1, SB_LOG_TAIL_CHAIN_BREAK, NULL); free(t); }
	{ int o[] = { 0, 1, 1, 2, 3 }; t = cat_frames(a, off, o, 5, &tlen);
	  expect_tail(t, tlen, 2, SB_LOG_TAIL_CHAIN_BREAK, NULL); free(t); }
	{ int o[] = { 1, 2, 3 }; t = cat_frames(a, off, o, 3, &tlen);
	  expect_tail(t, tlen, 0, SB_LOG_TAIL_CHAIN_BREAK, NULL); free(t); }
	{ int o[] = { 0, 1, 2 }; t = cat_frames(a, off, o, 3, &tlen);
	  /* dropping the last record is only visible against a head */
	  expect_tail(t, tlen, 3, SB_LOG_TAIL_OK, NULL); free(t); }

	/* splice record 2 of another child's log: foreign */
	sbt_frames(other_child, len2, off2, 7);
	t = malloc(len + len2);
	memcpy(t, a, off[2]);
	memcpy(t + off[2], other_child + off2[2], off2[3] - off2[2]);
	memcpy(t + off[2] + off2[3] - off2[2], a + off[3], len - off[3]);
	expect_tail(t, off[2] + (off2[3] - off2[2]) + (len - off[3]), 2,
		SB_LOG_TAIL_FOREIGN, NULL);
	free(t);

	/* splice record 2 of another run with the same identity: chain break */
	sbt_frames(other_run, len3, off2, 7);
	t = malloc(len + len3);
	memcpy(t, a, off[2]);
	memcpy(t + off[2], other_run + off2[2], off2[3] - off2[2]);
	expect_tail(t, off[2] + off2[3] - off2[2], 2, SB_LOG_TAIL_CHAIN_BREAK, NULL);
	free(t);

	/* body changed, CRC recomputed: bad_mac */
	t = malloc(len);
	memcpy(t, a, len);
	assert_int_equal(sb_frame_parse(t + off[1], len - off[1], &f), SB_FRAME_OK);
	t[off[1] + SB_LOG_HEADER_LEN + 20] ^= 0x20;
	sb_store_be32(t + off[1] + 8, sb_crc32c(0, t + off[1] + SB_LOG_HEADER_LEN, f.body_len));
	expect_tail(t, len, 1, SB_LOG_TAIL_BAD_MAC, NULL);
	{
		/* the records after it still decode, reported unverified */
		struct sb_log_result *r = rd(t, len, NULL);
		assert_int_equal(sb_log_result_count(r), 4);
		assert_false(sb_log_result_record(r, 1)->verified);
		assert_non_null(strstr(sb_log_result_detail(r),
			"record 1 at byte"));
		assert_non_null(strstr(sb_log_result_detail(r),
			"tag does not verify (forged or wrong key)"));
		sb_log_result_destroy(r);
	}
	free(t);

	/* wrong key: bad_mac at record 0 */
	{
		struct sb_key k2;
		uint8_t b[32] = { 1 };
		struct sb_log_verifier *v2;
		struct sb_log_result *r;
		sb_key_from_bytes(&k2, b);
		v2 = sb_log_verifier_create(&k2, NULL);
		r = sb_log_read_buffer(v2, a, len, NULL, NULL);
		assert_int_equal(sb_log_result_tail(r), SB_LOG_TAIL_BAD_MAC);
		assert_int_equal(sb_log_result_verified(r), 0);
		assert_int_equal(sb_log_result_count(r), 4);
		sb_log_result_destroy(r);
		sb_log_verifier_destroy(v2);
	}

	/* expected identity */
	{
		struct sb_run_ident want = { .child = 5, .attempt = -1, .restart = -1, .pid = -1 };
		struct sb_log_expect e = { .id = &want };
		expect_tail(a, len, 0, SB_LOG_TAIL_FOREIGN, &e);
		want.child = 4;
		expect_tail(a, len, 4, SB_LOG_TAIL_OK, &e);
		want.bench = "00";
		expect_tail(a, len, 0, SB_LOG_TAIL_FOREIGN, &e);
		want.bench = NULL;
		want.attempt = 1;
		expect_tail(a, len, 0, SB_LOG_TAIL_FOREIGN, &e);
		want.attempt = 0;
		want.job_id = "999";
		expect_tail(a, len, 0, SB_LOG_TAIL_FOREIGN, &e);
		want.job_id = NULL;
		want.restart = 2;
		expect_tail(a, len, 0, SB_LOG_TAIL_FOREIGN, &e);
	}
	free(a);
	free(other_child);
	free(other_run);
}

static void test_rollback(void **state)
{
	size_t len, off[8];
	uint8_t *a = make(4, 4, T0, &len);
	struct sb_log_result *r = rd(a, len, NULL);
	struct sb_log_head head, h2;
	struct sb_log_expect e = { .head = &head };
	char text[SB_LOG_HEAD_TEXT_MAX];

	(void)state;
	sbt_frames(a, len, off, 7);
	assert_int_equal(sb_log_result_head(r, &head), 0);
	sb_log_result_destroy(r);
	sb_log_head_format(&head, text);
	assert_int_equal(sb_log_head_parse(text, &h2, NULL), 0);
	assert_int_equal(h2.count, 4);
	assert_memory_equal(h2.tag, head.tag, 32);

	expect_tail(a, len, 4, SB_LOG_TAIL_OK, &e);
	expect_tail(a, off[3], 3, SB_LOG_TAIL_ROLLBACK, &e);  /* last record deleted */
	expect_tail(a, off[3] + 5, 3, SB_LOG_TAIL_ROLLBACK, &e); /* torn below the head */
	expect_tail(a, 0, 0, SB_LOG_TAIL_ROLLBACK, &e);
	/* an older head is fine when its tag is the record's */
	h2.count = 2;
	memcpy(h2.tag, sb_log_result_record(r = rd(a, len, NULL), 1)->tag, 32);
	sb_log_result_destroy(r);
	e.head = &h2;
	expect_tail(a, len, 4, SB_LOG_TAIL_OK, &e);
	/* a head of another history */
	h2.tag[0] ^= 1;
	expect_tail(a, len, 4, SB_LOG_TAIL_ROLLBACK, &e);
	free(a);

	assert_int_equal(sb_log_head_parse("0:00", &h2, NULL), -1);
	assert_int_equal(sb_log_head_parse("3", &h2, NULL), -1);
	assert_int_equal(sb_log_head_parse("-3:aa", &h2, NULL), -1);
	assert_int_equal(sb_log_head_parse("3:zz", &h2, NULL), -1);
	memset(text, 'a', 64);
	text[64] = 0;
	{
		char t2[100];
		snprintf(t2, sizeof(t2), "x3:%s", text);
		assert_int_equal(sb_log_head_parse(t2, &h2, NULL), -1);
		snprintf(t2, sizeof(t2), "3:%s", text);
		assert_int_equal(sb_log_head_parse(t2, &h2, NULL), 0);
	}
}

static void test_corrupt_frames(void **state)
{
	size_t len, off[8];
	uint8_t *a = make(4, 4, T0, &len);
	uint8_t *t = malloc(len + 16);

	(void)state;
	sbt_frames(a, len, off, 7);
	/* bad magic at record 2 */
	memcpy(t, a, len);
	t[off[2]] = 'X';
	expect_tail(t, len, 2, SB_LOG_TAIL_CORRUPT, NULL);
	/* garbage after the last record */
	memcpy(t, a, len);
	memcpy(t + len, "garbage", 7);
	expect_tail(t, len + 7, 4, SB_LOG_TAIL_CORRUPT, NULL);
	/* length of record 1 made huge: corrupt, not torn, since a complete
	 * frame follows it */
	memcpy(t, a, len);
	sb_store_be32(t + off[1] + 4, SB_LOG_BODY_MAX);
	expect_tail(t, len, 1, SB_LOG_TAIL_CORRUPT, NULL);
	sb_store_be32(t + off[1] + 4, SB_LOG_BODY_MAX + 1);
	expect_tail(t, len, 1, SB_LOG_TAIL_CORRUPT, NULL);
	free(t);
	free(a);
}

/* ---- the writer ---- */

static void test_writer_errors(void **state)
{
	struct sb_run_ident id = sbt_ident(4, 0);
	struct sb_log_writer *w;
	struct sb_error err;
	const char *p = tmp("w.log");
	static const uint8_t map0[] = { 0x80 };
	int fd;

	(void)state;
	/* ENOSPC through /dev/full */
	fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		w = sb_log_writer_create_fd(fd, "/dev/full", &key, &id, &err);
		assert_non_null(w);
		assert_int_equal(sb_log_writer_append(w, "start", map0, 1, &err), -1);
		assert_non_null(strstr(err.msg, "No space left on device"));
		assert_non_null(strstr(err.msg, "/dev/full"));
		/* the start record stays pending: written again first, skipping this one */
		assert_true(sb_log_writer_pending(w));
		assert_int_equal(sb_log_writer_append(w, "heartbeat", map0, 1, &err), -1);
		assert_non_null(strstr(err.msg, "earlier record is still pending"));
		assert_int_equal(sb_log_writer_count(w), 1);
		assert_int_equal(sb_log_writer_close(w, &err), -1);
		assert_non_null(strstr(err.msg, "not written"));
	}
	/* a read-only descriptor */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	w = sb_log_writer_create_fd(fd, "read-only", &key, &id, &err);
	assert_non_null(w);
	assert_int_equal(sb_log_writer_append(w, "start", map0, 1, &err), -1);
	assert_non_null(strstr(err.msg, "cannot write log 'read-only'"));
	/* close tries the pending record once more, and says it failed */
	assert_int_equal(sb_log_writer_close(w, &err), -1);

	/* exclusive create */
	w = sb_log_writer_create(p, &key, &id, &err);
	assert_non_null(w);
	assert_int_equal(sb_log_writer_append(w, "start", map0, 1, &err), 0);
	/* a payload that is not one map is refused, and does not poison */
	assert_int_equal(sb_log_writer_append(w, "start", "\x01", 1, &err), -1);
	assert_int_equal(sb_log_writer_append(w, "start", "\x81\xa1", 2, &err), -1);
	assert_int_equal(sb_log_writer_append(w, "", map0, 1, &err), -1);
	assert_int_equal(sb_log_writer_append(w, "finish", map0, 1, &err), 0);
	assert_int_equal(sb_log_writer_count(w), 2);
	assert_int_equal(sb_log_writer_close(w, &err), 0);
	assert_null(sb_log_writer_create(p, &key, &id, &err));
	assert_non_null(strstr(err.msg, "already exists"));
	assert_int_equal(sb_log_writer_close(NULL, NULL), 0);

	/* a symlink is not followed */
	{
		const char *l = tmp("link.log");
		assert_int_equal(symlink("/tmp/sbtest-nonexistent-target", l), 0);
		assert_null(sb_log_writer_create(l, &key, &id, &err));
	}
	/* an identity string over the limit */
	{
		char *big = malloc(SB_LOG_STR_MAX + 2);
		memset(big, 'h', SB_LOG_STR_MAX + 1);
		big[SB_LOG_STR_MAX + 1] = 0;
		id.host = big;
		assert_null(sb_log_writer_create(tmp("big.log"), &key, &id, &err));
		assert_non_null(strstr(err.msg, "host name"));
		free(big);
	}
	/* reading a missing file is an error, not a tail class */
	assert_null(sb_log_read_file(ver, tmp("missing.log"), NULL, &err));
	assert_non_null(strstr(err.msg, "missing.log"));
	assert_null(sb_log_read_file(ver, tmpdir, NULL, &err));
	assert_non_null(strstr(err.msg, "not a regular file"));
	sb_log_result_destroy(NULL);
	sb_log_verifier_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_long_log_streamed),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_truncate_everywhere),
		cmocka_unit_test(test_bitflip_everywhere),
		cmocka_unit_test(test_tamper),
		cmocka_unit_test(test_rollback),
		cmocka_unit_test(test_corrupt_frames),
		cmocka_unit_test(test_writer_errors),
		cmocka_unit_test(test_each_fails),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
