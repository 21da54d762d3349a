/* One event record: its frame (magic, length, CRC32C, body, tag) and its
 * body (a canonical msgpack map).  docs/event-log.md is the normative spec. */
#ifndef SB_PROTO_RECORD_H
#define SB_PROTO_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "sbench/error.h"
#include "sbench/log.h"

enum sb_frame_status {
	SB_FRAME_OK,
	SB_FRAME_SHORT,      /* a prefix of a frame: the input ends inside it */
	SB_FRAME_ZERO,       /* only zero bytes remain */
	SB_FRAME_BAD_MAGIC,
	SB_FRAME_BAD_LENGTH, /* 0 or above SB_LOG_BODY_MAX */
	SB_FRAME_BAD_CRC,
};

struct sb_frame {
	const uint8_t *body;
	uint32_t body_len;
	const uint8_t *tag;  /* SB_LOG_TAG_LEN bytes after the body */
	size_t size;         /* the whole frame */
};

/* Parses the frame at buf[0..len) (len > 0) without a key: magic, length,
 * CRC of the body.  Fills f on SB_FRAME_OK. */
enum sb_frame_status sb_frame_parse(const uint8_t *buf, size_t len,
	struct sb_frame *f);

/* Words for a non-OK status, e.g. "bad magic". */
const char *sb_frame_status_describe(enum sb_frame_status s);

/* Appends the canonical body of one record to sbuf.  prev is NULL for seq
 * 0; payload[0..payload_len) must be one msgpack map. */
int sb_record_encode_body(msgpack_sbuffer *sbuf, const char *type,
	const struct sb_run_ident *id, uint64_t seq, int64_t time_ns,
	const uint8_t *prev, const void *payload, size_t payload_len,
	struct sb_error *err);

/* Checks that a run identity can be encoded (string lengths, no NUL). */
int sb_record_check_ident(const struct sb_run_ident *id, struct sb_error *err);

/* What sb_record_decode_body returns when memory ran out: not a verdict on
 * the body (a reader must not call it corrupt). */
#define SB_RECORD_NOMEM (-2)

/* Decodes a body into rec (all but tag, offset, size, verified), allocating
 * the NUL-terminated strings and the payload from zone.  The payload may
 * point into body, which must outlive rec.  -1 with a message when the body
 * is not a version-1 record; SB_RECORD_NOMEM when an allocation failed. */
int sb_record_decode_body(const uint8_t *body, size_t len, msgpack_zone *zone,
	struct sb_log_record *rec, struct sb_error *err);

/* Big-endian helpers for the frame header. */
static inline uint32_t sb_load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline void sb_store_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

#endif
