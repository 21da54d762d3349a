/* The log reader: the longest verified prefix, then one tail class
 * (docs/event-log.md §5 is the algorithm this follows step by step). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "proto/mac.h"
#include "proto/record.h"
#include "proto/util.h"
#include "sbench/log.h"

#define LATER_FRAME_PROBES 64

struct sb_log_verifier {
	struct sb_mac *mac;
};

struct sb_log_result {
	/* the bytes read: the whole log, or (streaming a file) a window of it
	 * that slides on, data[0] being the file's byte base */
	uint8_t *data;
	size_t len;                      /* bytes in data */
	uint64_t base;
	int fd;                          /* streaming: the file, else -1 */
	size_t cap;                      /* room in data (streaming) */
	bool eof;                        /* every byte of the log is in or past data */
	const char *path;                /* streaming: for a read error */
	msgpack_zone *zone;
	struct sb_log_record *recs;
	size_t count, nrecs, verified;
	enum sb_log_tail tail;
	uint64_t tail_offset;
	bool lone;                       /* one frame alone: no chain to check */
	uint8_t last_tag[SB_LOG_TAG_LEN]; /* of the last verified record */
	uint64_t last_end;               /* the byte after it */
	const struct sb_log_head *want;  /* a head seen before, or NULL */
	uint8_t at_want_tag[SB_LOG_TAG_LEN]; /* record want->count - 1: its tag */
	uint64_t at_want_off;            /* and offset */
	/* streaming (sb_log_read_file_each): record 0 stays, every later one
	 * takes slot 1 and the scratch zone, both reused once each() saw it */
	bool stream;
	msgpack_zone *scratch;
	sb_log_each_fn each;
	void *arg;
	bool each_failed;                /* each() or a read failed: its error stands */
	char detail[SB_ERROR_MAX + 256]; /* fits the prefix, the words and a why */
};

const char *sb_log_tail_name(enum sb_log_tail tail)
{
	switch (tail) {
	case SB_LOG_TAIL_OK: return "ok";
	case SB_LOG_TAIL_TORN: return "torn_tail";
	case SB_LOG_TAIL_CORRUPT: return "corrupt";
	case SB_LOG_TAIL_BAD_MAC: return "bad_mac";
	case SB_LOG_TAIL_CHAIN_BREAK: return "chain_break";
	case SB_LOG_TAIL_FOREIGN: return "foreign";
	case SB_LOG_TAIL_ROLLBACK: return "rollback";
	}
	return "unknown";
}

const char *sb_log_tail_describe(enum sb_log_tail tail)
{
	switch (tail) {
	case SB_LOG_TAIL_OK:
		return "every record verifies";
	case SB_LOG_TAIL_TORN:
		return "the last record is incomplete (the writer died or is still writing; not tampering)";
	case SB_LOG_TAIL_CORRUPT:
		return "record is damaged (bad magic, length, crc or body)";
	case SB_LOG_TAIL_BAD_MAC:
		return "tag does not verify (forged or wrong key)";
	case SB_LOG_TAIL_CHAIN_BREAK:
		return "record is out of chain (reordered, deleted, duplicated or spliced)";
	case SB_LOG_TAIL_FOREIGN:
		return "record belongs to another benchmark, child or run";
	case SB_LOG_TAIL_ROLLBACK:
		return "log ends before, or disagrees with, a head seen before (rolled back)";
	}
	return "unknown tail class";
}

int sb_log_head_parse(const char *text, struct sb_log_head *head,
	struct sb_error *err)
{
	const char *colon = strchr(text, ':');
	char *end;
	unsigned long long n;

	if (colon == NULL || colon == text || text[0] < '0' || text[0] > '9')
		return sb_errorf(err, "bad head '%s': expected COUNT:TAGHEX", text);
	errno = 0;
	n = strtoull(text, &end, 10);
	if (errno != 0 || end != colon || n == 0)
		return sb_errorf(err, "bad head '%s': COUNT must be a positive integer", text);
	if (sb_hex_decode(colon + 1, head->tag, SB_LOG_TAG_LEN) < 0)
		return sb_errorf(err, "bad head '%s': TAGHEX must be %d hex digits",
			text, 2 * SB_LOG_TAG_LEN);
	head->count = n;
	return 0;
}

char *sb_log_head_format(const struct sb_log_head *head,
	char buf[SB_LOG_HEAD_TEXT_MAX])
{
	char hex[2 * SB_LOG_TAG_LEN + 1];

	sb_hex_encode(head->tag, SB_LOG_TAG_LEN, hex);
	snprintf(buf, SB_LOG_HEAD_TEXT_MAX, "%" PRIu64 ":%s", head->count, hex);
	return buf;
}

struct sb_log_verifier *sb_log_verifier_create(const struct sb_key *key,
	struct sb_error *err)
{
	struct sb_log_verifier *v = calloc(1, sizeof(*v));

	if (v == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	v->mac = sb_mac_create(key->bytes, SB_KEY_LEN, err);
	if (v->mac == NULL) {
		free(v);
		return NULL;
	}
	return v;
}

void sb_log_verifier_destroy(struct sb_log_verifier *v)
{
	if (v == NULL)
		return;
	sb_mac_destroy(v->mac);
	free(v);
}

/* ---- the walk ---- */

static bool str_eq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Why rec is not of the run of first / expect, or NULL when it is. */
static const char *foreign_reason(const struct sb_run_ident *r,
	const struct sb_run_ident *first, const struct sb_run_ident *want)
{
	if (want != NULL) {
		if (want->bench != NULL && !str_eq(want->bench, r->bench))
			return "benchmark differs from the expected one";
		if (want->child >= 0 && want->child != r->child)
			return "child differs from the expected one";
		if (want->attempt >= 0 && want->attempt != r->attempt)
			return "attempt differs from the expected one";
		if (want->job_id != NULL && !str_eq(want->job_id, r->job_id))
			return "job id differs from the expected one";
		if (want->restart >= 0 && want->restart != r->restart)
			return "restart count differs from the expected one";
	}
	if (first == NULL)
		return NULL;
	if (!str_eq(first->bench, r->bench) || !str_eq(first->child_digest, r->child_digest) ||
	    first->child != r->child)
		return "benchmark or child differs from record 0's";
	if (first->attempt != r->attempt || first->restart != r->restart ||
	    !str_eq(first->cluster, r->cluster) || !str_eq(first->job_id, r->job_id) ||
	    !str_eq(first->array_job_id, r->array_job_id) ||
	    !str_eq(first->array_task_id, r->array_task_id))
		return "run (attempt, restart, cluster or job) differs from record 0's";
	if (!str_eq(first->host, r->host) || first->pid != r->pid)
		return "writer (host or pid) differs from record 0's";
	return NULL;
}

static struct sb_log_record *add_record(struct sb_log_result *r)
{
	if (r->stream) { /* recs has 2 slots */
		if (r->count > 0)
			msgpack_zone_clear(r->scratch);
		return &r->recs[r->count++ > 0];
	}
	if (r->count == r->nrecs) {
		size_t cap = r->nrecs ? 2 * r->nrecs : 8;
		struct sb_log_record *p = realloc(r->recs, cap * sizeof(*p));
		if (p == NULL)
			return NULL;
		r->recs = p;
		r->nrecs = cap;
	}
	return &r->recs[r->count++];
}

static void set_tail(struct sb_log_result *r, enum sb_log_tail tail,
	size_t index, uint64_t off, const char *why)
{
	r->tail = tail;
	r->tail_offset = off;
	snprintf(r->detail, sizeof(r->detail), "record %zu at byte %" PRIu64 ": %s%s%s",
		index, off, sb_log_tail_describe(tail), why ? ": " : "", why ? why : "");
}

/* A short frame is a torn tail only if no complete, CRC-valid frame starts
 * anywhere after it: such a frame proves the writer went on writing. */
static bool later_frame(const uint8_t *p, size_t n)
{
	struct sb_frame f;
	const uint8_t *hit;
	int probes = 0;

	while (n > 4 && probes++ < LATER_FRAME_PROBES) {
		hit = memmem(p + 1, n - 1, SB_LOG_MAGIC, 4);
		if (hit == NULL)
			return false;
		n -= (size_t)(hit - p);
		p = hit;
		if (sb_frame_parse(p, n, &f) == SB_FRAME_OK)
			return true;
	}
	return false;
}

/* Decodes the frame at off into a new record.  NULL when it cannot: the
 * body is not a v1 record (*nomem false, why says so), or memory ran out
 * (*nomem true), which says nothing about the file. */
static struct sb_log_record *decode_at(struct sb_log_result *r, uint64_t off,
	const struct sb_frame *f, bool *nomem, struct sb_error *why)
{
	struct sb_log_record *rec;
	const uint8_t *body;
	int rc;

	*nomem = false;
	rec = add_record(r);
	if (rec == NULL) {
		*nomem = true;
		return NULL;
	}
	body = f->body;
	if (r->stream && r->count == 1) {
		/* record 0 stays, its payload pointing into its body: a copy, as the
		 * window moves on */
		uint8_t *copy = msgpack_zone_malloc(r->zone, f->body_len ? f->body_len : 1);
		if (copy == NULL) {
			r->count--;
			*nomem = true;
			return NULL;
		}
		memcpy(copy, f->body, f->body_len);
		body = copy;
	}
	rc = sb_record_decode_body(body, f->body_len,
		r->stream && r->count > 1 ? r->scratch : r->zone, rec, why);
	if (rc < 0) {
		*nomem = rc == SB_RECORD_NOMEM;
		r->count--;
		return NULL;
	}
	memcpy(rec->tag, f->tag, SB_LOG_TAG_LEN);
	rec->offset = off;
	rec->size = f->size;
	rec->verified = false;
	return rec;
}

/* Hands a record to each() when streaming.  -1 when each() failed. */
static int emit(struct sb_log_result *r, const struct sb_log_record *rec, struct sb_error *err)
{
	if (r->each != NULL && r->each(rec, r->arg, err) < 0) {
		r->each_failed = true;
		return -1;
	}
	return 0;
}

/* Records rec as the next of the verified prefix. */
static int mark_verified(struct sb_log_result *r, struct sb_log_record *rec,
	struct sb_error *err)
{
	rec->verified = true;
	r->verified++;
	memcpy(r->last_tag, rec->tag, SB_LOG_TAG_LEN);
	r->last_end = rec->offset + rec->size;
	if (r->want != NULL && r->verified == r->want->count) {
		memcpy(r->at_want_tag, rec->tag, SB_LOG_TAG_LEN);
		r->at_want_off = rec->offset;
	}
	return emit(r, rec, err);
}

/* The largest frame: a whole one always fits in the window. */
#define FRAME_MAX ((size_t)SB_LOG_HEADER_LEN + SB_LOG_BODY_MAX + SB_LOG_TAG_LEN)

/* The bytes from the log's byte off on (off at or past r->base), at least
 * a whole frame of them unless the log ends first: *p and *n.  Streaming a
 * file, the window slides to off and reads on when fewer are left in it,
 * so that the log is never held whole.  -1 (and err) when reading fails. */
static int window(struct sb_log_result *r, uint64_t off, const uint8_t **p, size_t *n,
	struct sb_error *err)
{
	size_t rel = (size_t)(off - r->base);
	int intr = 0;

	if (!r->eof && r->len - rel < FRAME_MAX) {
		memmove(r->data, r->data + rel, r->len - rel);
		r->len -= rel;
		r->base = off;
		rel = 0;
		while (!r->eof && r->len < FRAME_MAX) {
			ssize_t k;
			if (r->len == r->cap) { /* a small file that grew */
				size_t want = r->cap < FRAME_MAX ? 2 * r->cap : 2 * FRAME_MAX;
				uint8_t *bigger = realloc(r->data, want);
				if (bigger == NULL)
					return sb_error_set(err, SB_ERR_NOMEM, "out of memory reading log '%s'",
						r->path);
				r->data = bigger;
				r->cap = want;
			}
			k = read(r->fd, r->data + r->len, r->cap - r->len);
			if (k < 0 && errno == EINTR && ++intr < SB_EINTR_MAX)
				continue;
			if (k < 0)
				return sb_errorf(err, "cannot read log '%s': %s", r->path, strerror(errno));
			intr = 0;
			r->eof = k == 0;
			r->len += (size_t)k;
			if (r->base + r->len > SB_LOG_FILE_MAX)
				return sb_errorf(err, "log '%s' is larger than the limit of %u bytes",
					r->path, SB_LOG_FILE_MAX);
		}
	}
	*p = r->data + rel;
	*n = r->len - rel;
	return 0;
}

/* After the verified prefix: add the records that still decode.  -1 when
 * memory ran out (or each() or a read failed). */
static int decode_rest(struct sb_log_result *r, uint64_t off, struct sb_error *err)
{
	struct sb_frame f;
	struct sb_log_record *rec;
	const uint8_t *p = NULL;
	size_t n = 0;
	bool nomem = false;

	for (;;) {
		if (window(r, off, &p, &n, err) < 0) {
			r->each_failed = true;
			return -1;
		}
		if (n == 0 || sb_frame_parse(p, n, &f) != SB_FRAME_OK ||
		    (rec = decode_at(r, off, &f, &nomem, NULL)) == NULL)
			break;
		if (emit(r, rec, err) < 0)
			return -1;
		off += f.size;
	}
	return nomem ? sb_error_set(err, SB_ERR_NOMEM, "out of memory") : 0;
}

/* The walk of §7.1.  -1 (and err) only when memory ran out or OpenSSL
 * failed: then there is no verdict at all, never a tail class. */
static int walk(struct sb_log_result *r, struct sb_mac *mac,
	const struct sb_log_expect *expect, struct sb_error *err)
{
	const struct sb_run_ident *want = expect ? expect->id : NULL;
	struct sb_error why;
	struct sb_frame f;
	struct sb_log_record *rec;
	enum sb_frame_status st;
	uint64_t off = 0;
	const uint8_t *p = NULL;
	size_t n = 0;
	const char *reason;
	char buf[128];
	bool nomem;
	int ok;

	r->tail = SB_LOG_TAIL_OK;
	r->want = expect ? expect->head : NULL;
	for (;;) {
		size_t i = r->count;
		if (window(r, off, &p, &n, err) < 0) {
			r->each_failed = true;
			return -1;
		}
		if (n == 0)
			break;
		if (r->lone && i > 0) {
			set_tail(r, SB_LOG_TAIL_CORRUPT, i, off, "bytes after the frame");
			return 0;
		}
		st = sb_frame_parse(p, n, &f);
		if (st == SB_FRAME_SHORT && later_frame(p, n))
			st = SB_FRAME_BAD_LENGTH;
		if (st == SB_FRAME_SHORT || st == SB_FRAME_ZERO) {
			set_tail(r, SB_LOG_TAIL_TORN, i, off, NULL);
			return 0;
		}
		if (st != SB_FRAME_OK) {
			set_tail(r, SB_LOG_TAIL_CORRUPT, i, off, sb_frame_status_describe(st));
			return 0;
		}
		if (mac != NULL) {
			ok = sb_mac_verify(mac, p, SB_LOG_HEADER_LEN + f.body_len,
				f.tag, err);
			if (ok < 0)
				return -1;
			if (ok == 0) {
				set_tail(r, SB_LOG_TAIL_BAD_MAC, i, off, NULL);
				return decode_rest(r, off, err);
			}
		}
		rec = decode_at(r, off, &f, &nomem, &why);
		if (rec == NULL && nomem)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		if (rec == NULL) {
			set_tail(r, SB_LOG_TAIL_CORRUPT, i, off, why.msg);
			return 0;
		}
		if (mac == NULL) {
			if (emit(r, rec, err) < 0)
				return -1;
			off += f.size;
			continue;
		}
		reason = foreign_reason(&rec->id, i ? &r->recs[0].id : NULL, want);
		if (reason != NULL) {
			set_tail(r, SB_LOG_TAIL_FOREIGN, i, off, reason);
			return emit(r, rec, err) < 0 ? -1 : decode_rest(r, off + f.size, err);
		}
		if (r->lone) {
			if (mark_verified(r, rec, err) < 0)
				return -1;
			off += f.size;
			continue;
		}
		if (rec->seq != i) {
			snprintf(buf, sizeof(buf), "seq is %" PRIu64 ", expected %zu", rec->seq, i);
			set_tail(r, SB_LOG_TAIL_CHAIN_BREAK, i, off, buf);
			return emit(r, rec, err) < 0 ? -1 : decode_rest(r, off + f.size, err);
		}
		if (i == 0 ? rec->has_prev :
		    !rec->has_prev || CRYPTO_memcmp(rec->prev, r->last_tag, SB_LOG_TAG_LEN) != 0) {
			set_tail(r, SB_LOG_TAIL_CHAIN_BREAK, i, off,
				i == 0 ? "the first record names a previous one" :
				"prev is not the tag of the record before");
			return emit(r, rec, err) < 0 ? -1 : decode_rest(r, off + f.size, err);
		}
		if (mark_verified(r, rec, err) < 0)
			return -1;
		off += f.size;
	}
	r->tail_offset = off;
	return 0;
}

static void check_head(struct sb_log_result *r, const struct sb_log_head *head)
{
	char buf[160];

	if (r->tail != SB_LOG_TAIL_OK && r->tail != SB_LOG_TAIL_TORN)
		return; /* a tamper class says more than rollback */
	if (r->verified < head->count) {
		uint64_t off = r->verified ? r->last_end : 0;
		snprintf(buf, sizeof(buf), "%zu verified records, the head has %" PRIu64,
			r->verified, head->count);
		set_tail(r, SB_LOG_TAIL_ROLLBACK, r->verified, off, buf);
		return;
	}
	if (CRYPTO_memcmp(r->at_want_tag, head->tag, SB_LOG_TAG_LEN) != 0)
		set_tail(r, SB_LOG_TAIL_ROLLBACK, (size_t)head->count - 1, r->at_want_off,
			"its tag differs from the head's (a different history)");
}

static struct sb_log_result *result_new(uint8_t *data, size_t len,
	struct sb_error *err)
{
	struct sb_log_result *r = calloc(1, sizeof(*r));

	if (r != NULL)
		r->zone = msgpack_zone_new(2048);
	if (r == NULL || r->zone == NULL) {
		free(r);
		free(data);
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	r->data = data;
	r->len = len;
	r->fd = -1;
	r->eof = true;
	return r;
}

/* What sb_log_read_file_each streams to. */
struct each_cfg {
	sb_log_each_fn each;
	void *arg;
};

/* Reads r (its bytes, or its file through the window) with v, streaming
 * to ec when not NULL.  Destroys r and returns NULL when there is no
 * verdict. */
static struct sb_log_result *stream_walk(struct sb_log_result *r, struct sb_log_verifier *v,
	const struct sb_log_expect *expect, const struct each_cfg *ec, struct sb_error *err)
{
	if (ec != NULL) {
		r->stream = true;
		r->each = ec->each;
		r->arg = ec->arg;
		r->scratch = msgpack_zone_new(2048);
		r->recs = calloc(2, sizeof(*r->recs));
		r->nrecs = 2;
		if (r->scratch == NULL || r->recs == NULL) {
			sb_log_result_destroy(r);
			sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			return NULL;
		}
	}
	if (walk(r, v ? v->mac : NULL, expect, err) < 0) {
		/* not a verdict on the file: the caller must not see a tail class */
		if (!r->each_failed)
			sb_error_prefix(err, "cannot verify the log");
		sb_log_result_destroy(r);
		return NULL;
	}
	if (v != NULL && expect != NULL && expect->head != NULL)
		check_head(r, expect->head);
	return r;
}

static struct sb_log_result *read_owned(struct sb_log_verifier *v,
	uint8_t *data, size_t len, const struct sb_log_expect *expect,
	const struct each_cfg *ec, struct sb_error *err)
{
	struct sb_log_result *r = result_new(data, len, err);

	return r ? stream_walk(r, v, expect, ec, err) : NULL;
}

static uint8_t *copy_buffer(const void *buf, size_t len, struct sb_error *err)
{
	uint8_t *data;

	if (len > SB_LOG_FILE_MAX) {
		sb_errorf(err, "log of %zu bytes is larger than the limit of %u", len, SB_LOG_FILE_MAX);
		return NULL;
	}
	data = malloc(len ? len : 1);
	if (data == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (len)
		memcpy(data, buf, len);
	return data;
}

struct sb_log_result *sb_log_read_buffer(struct sb_log_verifier *v,
	const void *buf, size_t len, const struct sb_log_expect *expect,
	struct sb_error *err)
{
	uint8_t *data = copy_buffer(buf, len, err);

	return data ? read_owned(v, data, len, expect, NULL, err) : NULL;
}

struct sb_log_result *sb_log_read_frame(struct sb_log_verifier *v,
	const void *buf, size_t len, const struct sb_log_expect *expect,
	struct sb_error *err)
{
	uint8_t *data = copy_buffer(buf, len, err);
	struct sb_log_result *r;

	if (data == NULL)
		return NULL;
	r = result_new(data, len, err);
	if (r == NULL)
		return NULL;
	r->lone = true;
	if (walk(r, v->mac, expect, err) < 0) {
		sb_log_result_destroy(r);
		return NULL;
	}
	if (r->tail == SB_LOG_TAIL_OK && r->count == 0)
		set_tail(r, SB_LOG_TAIL_TORN, 0, 0, "no frame");
	return r;
}

struct sb_log_result *sb_log_decode_buffer(const void *buf, size_t len,
	struct sb_error *err)
{
	uint8_t *data = copy_buffer(buf, len, err);

	return data ? read_owned(NULL, data, len, NULL, NULL, err) : NULL;
}

/* Streams the open log fd through a window (window()): never the whole
 * file in memory, whatever its size.  Takes fd. */
static struct sb_log_result *stream_file(struct sb_log_verifier *v, int fd,
	const char *path, size_t size, const struct sb_log_expect *expect,
	const struct each_cfg *ec, struct sb_error *err)
{
	size_t cap = size < 2 * FRAME_MAX ? size + 1 : 2 * FRAME_MAX;
	uint8_t *data = malloc(cap);
	struct sb_log_result *r;

	if (data == NULL) {
		close(fd);
		sb_error_set(err, SB_ERR_NOMEM, "out of memory reading log '%s'", path);
		return NULL;
	}
	if ((r = result_new(data, 0, err)) == NULL) {
		close(fd);
		return NULL;
	}
	r->fd = fd;
	r->cap = cap;
	r->eof = false;
	r->path = path;
	r = stream_walk(r, v, expect, ec, err);
	if (r != NULL) { /* the window's bytes go with the file */
		close(r->fd);
		r->fd = -1;
		free(r->data);
		r->data = NULL;
		r->len = 0;
	}
	return r;
}

static struct sb_log_result *read_file(struct sb_log_verifier *v,
	const char *path, const struct sb_log_expect *expect,
	const struct each_cfg *ec, struct sb_error *err)
{
	struct stat st;
	char *data;
	size_t len = 0;
	int fd, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		sb_errorf(err, "cannot open log '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		saved = errno;
		close(fd);
		sb_errorf(err, "cannot stat log '%s': %s", path, strerror(saved));
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > SB_LOG_FILE_MAX) {
		close(fd);
		if (!S_ISREG(st.st_mode))
			sb_errorf(err, "log '%s' is not a regular file", path);
		else
			sb_errorf(err, "log '%s' is larger than the limit of %u bytes", path, SB_LOG_FILE_MAX);
		return NULL;
	}
	if (ec != NULL)
		return stream_file(v, fd, path, (size_t)st.st_size, expect, ec, err);
	if (sb_read_all(fd, SB_LOG_FILE_MAX, (size_t)st.st_size, &data, &len) < 0) {
		saved = errno;
		close(fd);
		if (saved == EFBIG)
			sb_errorf(err, "log '%s' is larger than the limit of %u bytes", path, SB_LOG_FILE_MAX);
		else if (saved == ENOMEM)
			sb_error_set(err, SB_ERR_NOMEM, "out of memory reading log '%s'", path);
		else
			sb_errorf(err, "cannot read log '%s': %s", path, strerror(saved));
		return NULL;
	}
	close(fd);
	return read_owned(v, (uint8_t *)data, len, expect, ec, err);
}

struct sb_log_result *sb_log_read_file(struct sb_log_verifier *v,
	const char *path, const struct sb_log_expect *expect,
	struct sb_error *err)
{
	return read_file(v, path, expect, NULL, err);
}

struct sb_log_result *sb_log_read_file_each(struct sb_log_verifier *v,
	const char *path, const struct sb_log_expect *expect,
	sb_log_each_fn each, void *arg, struct sb_error *err)
{
	struct each_cfg ec = { .each = each, .arg = arg };

	return read_file(v, path, expect, &ec, err);
}

size_t sb_log_result_count(const struct sb_log_result *r) { return r->count; }
size_t sb_log_result_verified(const struct sb_log_result *r) { return r->verified; }
enum sb_log_tail sb_log_result_tail(const struct sb_log_result *r) { return r->tail; }
uint64_t sb_log_result_tail_offset(const struct sb_log_result *r) { return r->tail_offset; }
const char *sb_log_result_detail(const struct sb_log_result *r) { return r->detail; }

const struct sb_log_record *sb_log_result_record(const struct sb_log_result *r,
	size_t i)
{
	if (r->stream) /* only record 0 is kept */
		return i == 0 && r->count > 0 ? &r->recs[0] : NULL;
	return i < r->count ? &r->recs[i] : NULL;
}

int sb_log_result_head(const struct sb_log_result *r, struct sb_log_head *head)
{
	if (r->verified == 0)
		return -1;
	head->count = r->verified;
	memcpy(head->tag, r->last_tag, SB_LOG_TAG_LEN);
	return 0;
}

void sb_log_result_destroy(struct sb_log_result *r)
{
	if (r == NULL)
		return;
	if (r->fd >= 0)
		close(r->fd);
	msgpack_zone_free(r->zone);
	if (r->scratch != NULL)
		msgpack_zone_free(r->scratch);
	free(r->recs);
	free(r->data);
	free(r);
}
