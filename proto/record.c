#include <string.h>

#include "proto/crc32c.h"
#include "proto/mpcheck.h"
#include "proto/record.h"
#include "proto/recordkeys.h"

enum sb_frame_status sb_frame_parse(const uint8_t *buf, size_t len,
	struct sb_frame *f)
{
	size_t i, n;
	uint32_t body_len;

	for (i = 0; i < len && buf[i] == 0; i++)
		;
	if (i == len)
		return SB_FRAME_ZERO;
	n = len < 4 ? len : 4;
	if (memcmp(buf, SB_LOG_MAGIC, n) != 0)
		return SB_FRAME_BAD_MAGIC;
	if (len < 8)
		return SB_FRAME_SHORT;
	body_len = sb_load_be32(buf + 4);
	if (body_len == 0 || body_len > SB_LOG_BODY_MAX)
		return SB_FRAME_BAD_LENGTH;
	if (len < SB_LOG_HEADER_LEN + (size_t)body_len + SB_LOG_TAG_LEN)
		return SB_FRAME_SHORT;
	if (sb_crc32c(0, buf + SB_LOG_HEADER_LEN, body_len) != sb_load_be32(buf + 8))
		return SB_FRAME_BAD_CRC;
	f->body = buf + SB_LOG_HEADER_LEN;
	f->body_len = body_len;
	f->tag = f->body + body_len;
	f->size = SB_LOG_HEADER_LEN + (size_t)body_len + SB_LOG_TAG_LEN;
	return SB_FRAME_OK;
}

const char *sb_frame_status_describe(enum sb_frame_status s)
{
	switch (s) {
	case SB_FRAME_OK: return "frame is well formed";
	case SB_FRAME_SHORT: return "frame is cut short";
	case SB_FRAME_ZERO: return "only zero bytes follow";
	case SB_FRAME_BAD_MAGIC: return "bad magic (not a record frame)";
	case SB_FRAME_BAD_LENGTH: return "body length out of range";
	case SB_FRAME_BAD_CRC: return "body crc32c does not match";
	}
	return "unknown frame status";
}

static int check_str(const char *what, const char *s, struct sb_error *err)
{
	if (s != NULL && strlen(s) > SB_LOG_STR_MAX)
		return sb_errorf(err, "%s is longer than %d bytes", what, SB_LOG_STR_MAX);
	return 0;
}

int sb_record_check_ident(const struct sb_run_ident *id, struct sb_error *err)
{
	if (check_str("benchmark digest", id->bench, err) < 0 ||
	    check_str("child digest", id->child_digest, err) < 0 ||
	    check_str("cluster name", id->cluster, err) < 0 ||
	    check_str("job id", id->job_id, err) < 0 ||
	    check_str("array job id", id->array_job_id, err) < 0 ||
	    check_str("array task id", id->array_task_id, err) < 0 ||
	    check_str("host name", id->host, err) < 0)
		return -1;
	return 0;
}

static void pack_key(msgpack_packer *pk, const char *k)
{
	size_t n = strlen(k);

	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, k, n);
}

static void pack_str_or_nil(msgpack_packer *pk, const char *k, const char *v)
{
	pack_key(pk, k);
	if (v == NULL) {
		msgpack_pack_nil(pk);
		return;
	}
	msgpack_pack_str(pk, strlen(v));
	msgpack_pack_str_body(pk, v, strlen(v));
}

static void pack_int_or_nil(msgpack_packer *pk, const char *k, int64_t v)
{
	pack_key(pk, k);
	if (v < 0)
		msgpack_pack_nil(pk);
	else
		msgpack_pack_int64(pk, v); /* picks the shortest encoding */
}

int sb_record_encode_body(msgpack_sbuffer *sbuf, const char *type,
	const struct sb_run_ident *id, uint64_t seq, int64_t time_ns,
	const uint8_t *prev, const void *payload, size_t payload_len,
	struct sb_error *err)
{
	msgpack_packer pk;
	const uint8_t *pl = payload;

	if (type == NULL || type[0] == '\0' || strlen(type) > SB_LOG_STR_MAX)
		return sb_errorf(err, "record type is empty or too long");
	if (payload_len == 0 || sb_mp_check(pl, payload_len) != payload_len ||
	    !((pl[0] >= 0x80 && pl[0] <= 0x8f) || pl[0] == 0xde || pl[0] == 0xdf))
		return sb_errorf(err, "payload of a '%s' record is not one msgpack map", type);
	if (sb_record_check_ident(id, err) < 0)
		return -1;
	msgpack_packer_init(&pk, sbuf, msgpack_sbuffer_write);
	/* 17 keys, in the order of their raw UTF-8 bytes (canonical). */
	msgpack_pack_map(&pk, 17);
	pack_str_or_nil(&pk, SB_RK_ARRAY_JOB_ID, id->array_job_id);
	pack_str_or_nil(&pk, SB_RK_ARRAY_TASK_ID, id->array_task_id);
	pack_int_or_nil(&pk, SB_RK_ATTEMPT, id->attempt);
	pack_str_or_nil(&pk, SB_RK_BENCH, id->bench);
	pack_int_or_nil(&pk, SB_RK_CHILD, id->child);
	pack_str_or_nil(&pk, SB_RK_CHILD_DIGEST, id->child_digest);
	pack_str_or_nil(&pk, SB_RK_CLUSTER, id->cluster);
	pack_str_or_nil(&pk, SB_RK_HOST, id->host);
	pack_str_or_nil(&pk, SB_RK_JOB_ID, id->job_id);
	pack_key(&pk, SB_RK_PAYLOAD);
	msgpack_sbuffer_write(sbuf, payload, payload_len);
	pack_int_or_nil(&pk, SB_RK_PID, id->pid);
	pack_key(&pk, SB_RK_PREV);
	if (prev == NULL) {
		msgpack_pack_nil(&pk);
	} else {
		msgpack_pack_bin(&pk, SB_LOG_TAG_LEN);
		msgpack_pack_bin_body(&pk, prev, SB_LOG_TAG_LEN);
	}
	pack_int_or_nil(&pk, SB_RK_RESTART, id->restart);
	pack_key(&pk, SB_RK_SEQ);
	msgpack_pack_uint64(&pk, seq);
	pack_key(&pk, SB_RK_TIME);
	msgpack_pack_int64(&pk, time_ns);
	pack_str_or_nil(&pk, SB_RK_TYPE, type);
	pack_key(&pk, SB_RK_V);
	msgpack_pack_int64(&pk, SB_LOG_VERSION);
	if (sbuf->data == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory encoding a '%s' record", type);
	return 0;
}

/* ---- decoding ---- */

static bool key_is(const msgpack_object *k, const char *name)
{
	size_t n = strlen(name);

	return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
	       memcmp(k->via.str.ptr, name, n) == 0;
}

static int get_str(const msgpack_object *o, msgpack_zone *zone,
	const char **out, const char *what, struct sb_error *err)
{
	char *s;

	if (o->type == MSGPACK_OBJECT_NIL) {
		*out = NULL;
		return 0;
	}
	if (o->type != MSGPACK_OBJECT_STR || o->via.str.size > SB_LOG_STR_MAX ||
	    memchr(o->via.str.ptr, '\0', o->via.str.size) != NULL)
		return sb_errorf(err, "field '%s' is not a string of at most %d bytes",
			what, SB_LOG_STR_MAX);
	s = msgpack_zone_malloc(zone, o->via.str.size + 1);
	if (s == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return SB_RECORD_NOMEM;
	}
	memcpy(s, o->via.str.ptr, o->via.str.size);
	s[o->via.str.size] = '\0';
	*out = s;
	return 0;
}

static int get_int(const msgpack_object *o, int64_t *out, const char *what,
	struct sb_error *err)
{
	if (o->type == MSGPACK_OBJECT_NIL) {
		*out = -1;
		return 0;
	}
	if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > INT64_MAX)
		return sb_errorf(err, "field '%s' is not a non-negative integer", what);
	*out = (int64_t)o->via.u64;
	return 0;
}

enum {
	F_ARRAY_JOB, F_ARRAY_TASK, F_ATTEMPT, F_BENCH, F_CHILD, F_CHILD_DIGEST,
	F_CLUSTER, F_HOST, F_JOB, F_PAYLOAD, F_PID, F_PREV, F_RESTART, F_SEQ,
	F_TIME, F_TYPE, F_V, F_COUNT
};

static const char *const field_names[F_COUNT] = {
	"array_job_id", "array_task_id", "attempt", "bench", "child",
	"child_digest", "cluster", "host", "job_id", "payload", "pid", "prev",
	"restart", "seq", "time", "type", "v",
};

int sb_record_decode_body(const uint8_t *body, size_t len, msgpack_zone *zone,
	struct sb_log_record *rec, struct sb_error *err)
{
	const msgpack_object *f[F_COUNT] = { 0 };
	msgpack_object obj;
	size_t off = 0;
	uint32_t i;
	int k, rc;

	if (sb_mp_check(body, len) != len)
		return sb_errorf(err, "body is not one well-formed msgpack object");
	rc = msgpack_unpack((const char *)body, len, &off, zone, &obj);
	if (rc == MSGPACK_UNPACK_NOMEM_ERROR) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return SB_RECORD_NOMEM;
	}
	if (rc != MSGPACK_UNPACK_SUCCESS || off != len)
		return sb_errorf(err, "body does not decode as msgpack");
	if (obj.type != MSGPACK_OBJECT_MAP)
		return sb_errorf(err, "body is not a msgpack map");
	for (i = 0; i < obj.via.map.size; i++) {
		const msgpack_object_kv *kv = &obj.via.map.ptr[i];
		for (k = 0; k < F_COUNT; k++) {
			if (!key_is(&kv->key, field_names[k]))
				continue;
			if (f[k] != NULL)
				return sb_errorf(err, "body has field '%s' twice", field_names[k]);
			f[k] = &kv->val;
			break;
		}
	}
	if (f[F_V] == NULL || f[F_V]->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return sb_errorf(err, "body has no format version");
	if (f[F_V]->via.u64 != SB_LOG_VERSION)
		return sb_errorf(err, "unsupported format version %llu (this reader knows %d)",
			(unsigned long long)f[F_V]->via.u64, SB_LOG_VERSION);
	for (k = 0; k < F_COUNT; k++)
		if (f[k] == NULL)
			return sb_errorf(err, "body has no field '%s'", field_names[k]);
	memset(rec, 0, sizeof(*rec));
	if ((rc = get_str(f[F_TYPE], zone, &rec->type, SB_RK_TYPE, err)) < 0 ||
	    (rc = get_str(f[F_BENCH], zone, &rec->id.bench, SB_RK_BENCH, err)) < 0 ||
	    (rc = get_str(f[F_CHILD_DIGEST], zone, &rec->id.child_digest, SB_RK_CHILD_DIGEST, err)) < 0 ||
	    (rc = get_str(f[F_CLUSTER], zone, &rec->id.cluster, SB_RK_CLUSTER, err)) < 0 ||
	    (rc = get_str(f[F_JOB], zone, &rec->id.job_id, SB_RK_JOB_ID, err)) < 0 ||
	    (rc = get_str(f[F_ARRAY_JOB], zone, &rec->id.array_job_id, SB_RK_ARRAY_JOB_ID, err)) < 0 ||
	    (rc = get_str(f[F_ARRAY_TASK], zone, &rec->id.array_task_id, SB_RK_ARRAY_TASK_ID, err)) < 0 ||
	    (rc = get_str(f[F_HOST], zone, &rec->id.host, SB_RK_HOST, err)) < 0)
		return rc;
	if (get_int(f[F_CHILD], &rec->id.child, SB_RK_CHILD, err) < 0 ||
	    get_int(f[F_ATTEMPT], &rec->id.attempt, SB_RK_ATTEMPT, err) < 0 ||
	    get_int(f[F_RESTART], &rec->id.restart, SB_RK_RESTART, err) < 0 ||
	    get_int(f[F_PID], &rec->id.pid, SB_RK_PID, err) < 0)
		return -1;
	if (rec->type == NULL || rec->type[0] == '\0')
		return sb_errorf(err, "field 'type' is empty");
	if (f[F_SEQ]->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return sb_errorf(err, "field 'seq' is not a non-negative integer");
	rec->seq = f[F_SEQ]->via.u64;
	if (f[F_TIME]->type == MSGPACK_OBJECT_POSITIVE_INTEGER && f[F_TIME]->via.u64 <= INT64_MAX)
		rec->time_ns = (int64_t)f[F_TIME]->via.u64;
	else if (f[F_TIME]->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		rec->time_ns = f[F_TIME]->via.i64;
	else
		return sb_errorf(err, "field 'time' is not an int64");
	if (f[F_PREV]->type == MSGPACK_OBJECT_BIN && f[F_PREV]->via.bin.size == SB_LOG_TAG_LEN) {
		rec->has_prev = true;
		memcpy(rec->prev, f[F_PREV]->via.bin.ptr, SB_LOG_TAG_LEN);
	} else if (f[F_PREV]->type != MSGPACK_OBJECT_NIL) {
		return sb_errorf(err, "field 'prev' is neither nil nor 32 bytes");
	}
	if (f[F_PAYLOAD]->type != MSGPACK_OBJECT_MAP)
		return sb_errorf(err, "field 'payload' is not a map");
	rec->payload = *f[F_PAYLOAD];
	return 0;
}
