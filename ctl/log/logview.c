#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "log/logview_private.h"
#include "proto/mpcheck.h"
#include "proto/util.h"
#include "proto/recordkeys.h"

static void json_hex(struct sb_json *j, const char *p, size_t n)
{
	char small[2 * 64 + 1], *buf = small;

	if (n > 64 && (buf = malloc(2 * n + 1)) == NULL) {
		sb_json_null(j);
		return;
	}
	sb_hex_encode((const uint8_t *)p, n, buf);
	sb_json_strn(j, buf, 2 * n);
	if (buf != small)
		free(buf);
}

/* A map key as JSON object key text. */
static void json_key(struct sb_json *j, const msgpack_object *k)
{
	char buf[64];

	switch (k->type) {
	case MSGPACK_OBJECT_STR: {
		char *s = malloc(k->via.str.size + 1);
		if (s == NULL) {
			sb_json_key(j, "");
			return;
		}
		memcpy(s, k->via.str.ptr, k->via.str.size);
		s[k->via.str.size] = '\0';
		/* an embedded NUL ends the key: keys are names, not data */
		sb_json_key(j, s);
		free(s);
		return;
	}
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		snprintf(buf, sizeof(buf), "%" PRIu64, k->via.u64);
		break;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		snprintf(buf, sizeof(buf), "%" PRId64, k->via.i64);
		break;
	case MSGPACK_OBJECT_BOOLEAN:
		snprintf(buf, sizeof(buf), "%s", k->via.boolean ? "true" : "false");
		break;
	case MSGPACK_OBJECT_NIL:
		snprintf(buf, sizeof(buf), "null");
		break;
	default:
		snprintf(buf, sizeof(buf), "?");
		break;
	}
	sb_json_key(j, buf);
}

void sb_logview_json_value(struct sb_json *j, const msgpack_object *o)
{
	uint32_t i;

	switch (o->type) {
	case MSGPACK_OBJECT_NIL:
		sb_json_null(j);
		break;
	case MSGPACK_OBJECT_BOOLEAN:
		sb_json_bool(j, o->via.boolean);
		break;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		sb_json_uint(j, o->via.u64);
		break;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		sb_json_int(j, o->via.i64);
		break;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		sb_json_double(j, o->via.f64);
		break;
	case MSGPACK_OBJECT_STR:
		sb_json_strn(j, o->via.str.ptr, o->via.str.size);
		break;
	case MSGPACK_OBJECT_BIN:
		json_hex(j, o->via.bin.ptr, o->via.bin.size);
		break;
	case MSGPACK_OBJECT_EXT:
		json_hex(j, o->via.ext.ptr, o->via.ext.size);
		break;
	case MSGPACK_OBJECT_ARRAY:
		sb_json_arr_begin(j);
		for (i = 0; i < o->via.array.size; i++)
			sb_logview_json_value(j, &o->via.array.ptr[i]);
		sb_json_arr_end(j);
		break;
	case MSGPACK_OBJECT_MAP:
		sb_json_obj_begin(j);
		for (i = 0; i < o->via.map.size; i++) {
			json_key(j, &o->via.map.ptr[i].key);
			sb_logview_json_value(j, &o->via.map.ptr[i].val);
		}
		sb_json_obj_end(j);
		break;
	default:
		sb_json_null(j);
		break;
	}
}

static const char *const envelope[] = {
	"format", "path", "seq", "type", "time", "time_ns", "bench", "child",
	"child_digest", "attempt", "cluster", "job_id", "array_job_id",
	"array_task_id", "restart", "host", "pid", "verified", "tag", "offset",
};

static bool is_envelope(const msgpack_object *k)
{
	size_t i;

	if (k->type != MSGPACK_OBJECT_STR)
		return false;
	for (i = 0; i < sizeof(envelope) / sizeof(envelope[0]); i++)
		if (k->via.str.size > 0 && envelope[i][0] == k->via.str.ptr[0] &&
		    strlen(envelope[i]) == k->via.str.size &&
		    memcmp(envelope[i], k->via.str.ptr, k->via.str.size) == 0)
			return true;
	return false;
}

static void json_opt_int(struct sb_json *j, const char *key, int64_t v)
{
	sb_json_key(j, key);
	if (v < 0)
		sb_json_null(j);
	else
		sb_json_int(j, v);
}

void sb_logview_json_record(struct sb_json *j, const struct sb_log_record *rec,
	const char *path)
{
	char tbuf[32], tag[2 * SB_LOG_TAG_LEN + 1];
	const msgpack_object *pl = &rec->payload;
	uint32_t i;

	sb_json_obj_begin(j);
	sb_json_key(j, "format");
	sb_json_int(j, 1);
	if (path != NULL) {
		sb_json_key(j, "path");
		sb_json_str(j, path);
	}
	sb_json_key(j, "seq");
	sb_json_uint(j, rec->seq);
	sb_json_key(j, "type");
	sb_json_str(j, rec->type);
	sb_json_key(j, "time");
	sb_json_str(j, sb_fmt_time_ns(rec->time_ns, tbuf));
	sb_json_key(j, "time_ns");
	sb_json_int(j, rec->time_ns);
	sb_json_key(j, "bench");
	sb_json_str(j, rec->id.bench);
	json_opt_int(j, "child", rec->id.child);
	sb_json_key(j, "child_digest");
	sb_json_str(j, rec->id.child_digest);
	json_opt_int(j, "attempt", rec->id.attempt);
	sb_json_key(j, "cluster");
	sb_json_str(j, rec->id.cluster);
	sb_json_key(j, "job_id");
	sb_json_str(j, rec->id.job_id);
	sb_json_key(j, "array_job_id");
	sb_json_str(j, rec->id.array_job_id);
	sb_json_key(j, "array_task_id");
	sb_json_str(j, rec->id.array_task_id);
	json_opt_int(j, "restart", rec->id.restart);
	sb_json_key(j, "host");
	sb_json_str(j, rec->id.host);
	json_opt_int(j, "pid", rec->id.pid);
	sb_json_key(j, "verified");
	sb_json_bool(j, rec->verified);
	sb_json_key(j, "tag");
	sb_hex_encode(rec->tag, SB_LOG_TAG_LEN, tag);
	sb_json_str(j, tag);
	sb_json_key(j, "offset");
	sb_json_uint(j, rec->offset);
	for (i = 0; pl->type == MSGPACK_OBJECT_MAP && i < pl->via.map.size; i++) {
		if (is_envelope(&pl->via.map.ptr[i].key))
			continue;
		json_key(j, &pl->via.map.ptr[i].key);
		sb_logview_json_value(j, &pl->via.map.ptr[i].val);
	}
	sb_json_obj_end(j);
}

/* ---- human view ---- */

/* Control characters would let a record rewrite the terminal: '?'. */
static void print_clean(FILE *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		fputc(c < 0x20 || c == 0x7f ? '?' : c, out);
	}
}

/* Prints a scalar in human form; returns false for nil/absent/containers. */
static bool print_scalar(FILE *out, const msgpack_object *o)
{
	if (o == NULL)
		return false;
	switch (o->type) {
	case MSGPACK_OBJECT_BOOLEAN:
		fputs(o->via.boolean ? "true" : "false", out);
		return true;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		fprintf(out, "%" PRIu64, o->via.u64);
		return true;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		fprintf(out, "%" PRId64, o->via.i64);
		return true;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		{
			char t[SB_DOUBLE_TEXT_MAX];
			fputs(sb_fmt_double_short(o->via.f64, t), out); /* for people; JSON is exact */
		}
		return true;
	case MSGPACK_OBJECT_STR:
		print_clean(out, o->via.str.ptr, o->via.str.size);
		return true;
	default:
		return false;
	}
}

static void fact(FILE *out, const msgpack_object *pl, const char *name,
	const char *label, const char *unit)
{
	const msgpack_object *o = sb_mp_get(pl, name);

	if (o == NULL || o->type == MSGPACK_OBJECT_NIL)
		return;
	fprintf(out, " %s", label);
	print_scalar(out, o);
	fputs(unit, out);
}

/* " label{name=value ...}" of a map of scalars (the metrics of a heartbeat
 * or finish, an early stop), at most 8 entries then "..." */
static void map_facts(FILE *out, const msgpack_object *pl, const char *name, const char *label)
{
	const msgpack_object *o = sb_mp_get(pl, name);
	uint32_t i;

	if (o == NULL || o->type != MSGPACK_OBJECT_MAP || o->via.map.size == 0)
		return;
	fprintf(out, " %s{", label);
	for (i = 0; i < o->via.map.size && i < 8; i++) {
		const msgpack_object_kv *kv = &o->via.map.ptr[i];
		if (i)
			fputc(' ', out);
		print_scalar(out, &kv->key);
		fputc('=', out);
		if (!print_scalar(out, &kv->val))
			fputc('?', out);
	}
	fputs(o->via.map.size > 8 ? " ...}" : "}", out);
}

/* " label<first 12 of a digest>" (a checkpoint's), "none" for nil */
static void digest_fact(FILE *out, const msgpack_object *pl, const char *name, const char *label)
{
	const msgpack_object *o = sb_mp_get(pl, name);

	if (o == NULL)
		return;
	fprintf(out, " %s", label);
	if (o->type == MSGPACK_OBJECT_STR)
		print_clean(out, o->via.str.ptr, o->via.str.size < 12 ? o->via.str.size : 12);
	else
		fputs("none", out);
}

void sb_logview_human_record(FILE *out, const struct sb_log_record *rec)
{
	const msgpack_object *pl = &rec->payload, *o;
	char tbuf[32];
	uint32_t i;

	fprintf(out, "%6" PRIu64 "  %s  ", rec->seq, sb_fmt_time_ns(rec->time_ns, tbuf));
	print_clean(out, rec->type, strlen(rec->type));
	fprintf(out, "%*s", strlen(rec->type) < 9 ? (int)(9 - strlen(rec->type)) : 0, "");
	if (!strcmp(rec->type, SB_RT_START)) {
		o = sb_mp_get(pl, SB_RK_COMMAND);
		if (o != NULL && o->type == MSGPACK_OBJECT_ARRAY) {
			fputs(" command:", out);
			for (i = 0; i < o->via.array.size && i < 16; i++) {
				fputc(' ', out);
				print_scalar(out, &o->via.array.ptr[i]);
			}
			if (o->via.array.size > 16)
				fputs(" ...", out);
		}
		fact(out, pl, SB_RK_CWD, "cwd=", "");
		digest_fact(out, pl, SB_RK_RESUMED_FROM, "resumed_from=");
		fact(out, pl, SB_RK_CHECKPOINT_ERROR, "checkpoint_error=", "");
	} else if (!strcmp(rec->type, SB_RT_HEARTBEAT)) {
		fact(out, pl, SB_RK_ELAPSED_S, "elapsed=", "s");
		fact(out, pl, SB_RK_MAX_RSS_KB, "max_rss=", "kB");
		map_facts(out, pl, SB_RK_METRICS, "metrics");
		fact(out, pl, SB_RK_METRICS_LEFT_OFF, "metrics_left_off=", "");
		fact(out, pl, SB_RK_WATCH_DROPPED, "watch_dropped=", "");
	} else if (!strcmp(rec->type, SB_RT_SIGNAL)) {
		fact(out, pl, SB_RK_NAME, "", "");
		fact(out, pl, SB_RK_SIGNAL, "signal=", "");
		fact(out, pl, SB_RK_ACTION, "action=", "");
	} else if (!strcmp(rec->type, SB_RT_FINISH)) {
		fact(out, pl, SB_RK_EXIT_CODE, "exit=", "");
		fact(out, pl, SB_RK_SIGNAL, "killed by signal ", "");
		fact(out, pl, SB_RK_ERROR, "error=", "");
		fact(out, pl, SB_RK_WALL_S, "wall=", "s");
		fact(out, pl, SB_RK_MAX_RSS_KB, "max_rss=", "kB");
		fact(out, pl, SB_RK_RECORDS, "records=", "");
		map_facts(out, pl, SB_RK_EARLY_STOP, "early_stop");
		map_facts(out, pl, SB_RK_INTERRUPTED, "interrupted");
		digest_fact(out, pl, SB_RK_CHECKPOINT, "checkpoint=");
		fact(out, pl, SB_RK_CHECKPOINT_ERROR, "checkpoint_error=", "");
	} else {
		/* sbctl's own records (docs/benchmark-dir.md) */
		fact(out, pl, SB_SK_ATTEMPT_INDEX, "attempt=", "");
		fact(out, pl, SB_SK_CHUNK, "chunk=", "");
		fact(out, pl, SB_SK_CHILD_INDEX, "child=", "");
		fact(out, pl, SB_SK_JOB, "job=", "");
		fact(out, pl, SB_SK_STATE, "state=", "");
		fact(out, pl, SB_SK_ERROR, "error=", "");
	}
	fputs("  host=", out);
	print_clean(out, rec->id.host ? rec->id.host : "-", strlen(rec->id.host ? rec->id.host : "-"));
	fprintf(out, " pid=%" PRId64 "%s\n", rec->id.pid, rec->verified ? "" : "  UNVERIFIED");
}

/* ---- a file, the total ---- */

static void summary_json(FILE *out, const char *path, size_t records,
	size_t verified, enum sb_log_tail tail, const char *detail,
	const struct sb_log_head *head, bool with_head, size_t files)
{
	struct sb_json j;
	char hbuf[SB_LOG_HEAD_TEXT_MAX];

	sb_json_init(&j, out);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "format");
	sb_json_int(&j, 1);
	sb_json_key(&j, "summary");
	sb_json_obj_begin(&j);
	if (path != NULL) {
		sb_json_key(&j, "path");
		sb_json_str(&j, path);
	} else {
		sb_json_key(&j, "files");
		sb_json_uint(&j, files);
	}
	sb_json_key(&j, "records");
	sb_json_uint(&j, records);
	sb_json_key(&j, "verified");
	sb_json_uint(&j, verified);
	sb_json_key(&j, "tail");
	sb_json_str(&j, sb_log_tail_name(tail));
	if (detail != NULL && detail[0] != '\0') {
		sb_json_key(&j, "detail");
		sb_json_str(&j, detail);
	}
	if (with_head) {
		sb_json_key(&j, "head");
		sb_json_str(&j, head ? sb_log_head_format(head, hbuf) : NULL);
	}
	sb_json_obj_end(&j);
	sb_json_obj_end(&j);
	fputc('\n', out);
}

/* Where the records of one file go as they are read. */
struct render {
	FILE *out;
	bool json, many;
	const char *path;
	bool headed;   /* "== PATH" written */
};

static void render_head(struct render *rd)
{
	if (!rd->headed && !rd->json && rd->many)
		fprintf(rd->out, "== %s\n", rd->path);
	rd->headed = true;
}

static int render_record(const struct sb_log_record *rec, void *arg, struct sb_error *err)
{
	struct render *rd = arg;

	(void)err;
	render_head(rd);
	if (rd->json) {
		struct sb_json j;
		sb_json_init(&j, rd->out);
		sb_logview_json_record(&j, rec, rd->many ? rd->path : NULL);
		fputc('\n', rd->out);
	} else {
		sb_logview_human_record(rd->out, rec);
	}
	return 0;
}

struct sb_log_result *sb_logview_read_file(FILE *out, enum sb_format fmt, const char *path,
	bool many, struct sb_log_verifier *v, const struct sb_log_expect *expect,
	struct sb_error *err)
{
	struct render rd = { .out = out, .json = fmt == SB_FORMAT_JSON, .many = many, .path = path };
	struct sb_log_result *r;
	size_t n, nv;
	enum sb_log_tail tail;
	const char *detail;
	char hbuf[SB_LOG_HEAD_TEXT_MAX];
	struct sb_log_head head;
	bool has_head;

	r = sb_log_read_file_each(v, path, expect, out ? render_record : NULL, &rd, err);
	if (r == NULL || out == NULL)
		return r;
	render_head(&rd);
	n = sb_log_result_count(r);
	nv = sb_log_result_verified(r);
	tail = sb_log_result_tail(r);
	detail = sb_log_result_detail(r);
	has_head = sb_log_result_head(r, &head) == 0;
	if (rd.json)
		summary_json(out, many ? path : NULL, n, nv, tail, detail,
			has_head ? &head : NULL, true, 1);
	else if (tail == SB_LOG_TAIL_OK)
		fprintf(out, "summary: %s: %zu records, %zu verified, tail ok (%s)%s%s\n", path,
			n, nv, sb_log_tail_describe(tail), has_head ? "; head " : "",
			has_head ? sb_log_head_format(&head, hbuf) : "");
	else
		fprintf(out, "summary: %s: %zu records, %zu verified, tail %s: %s\n", path,
			n, nv, sb_log_tail_name(tail), detail);
	return r;
}

void sb_logview_total(FILE *out, enum sb_format fmt,
	const struct sb_logview_summary *sum)
{
	if (fmt == SB_FORMAT_JSON)
		summary_json(out, NULL, sum->records, sum->verified, sum->tail, NULL,
			NULL, false, sum->files);
	else
		fprintf(out, "total: %zu files, %zu records, %zu verified, tail %s\n",
			sum->files, sum->records, sum->verified, sb_log_tail_name(sum->tail));
}
