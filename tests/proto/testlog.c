#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <msgpack.h>

#include "proto/crc32c.h"
#include "proto/mac.h"
#include "proto/record.h"
#include "tests/proto/testlog.h"

void sbt_golden_key(struct sb_key *key)
{
	uint8_t b[SB_KEY_LEN];
	int i;

	for (i = 0; i < SB_KEY_LEN; i++)
		b[i] = (uint8_t)i;
	sb_key_from_bytes(key, b);
}

struct sb_run_ident sbt_ident(int64_t child, int64_t attempt)
{
	struct sb_run_ident id = {
		.bench = "4f1c0a2b3d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8",
		.child = child,
		.child_digest = "9e8d7c6b5a4938271605f4e3d2c1b0a99e8d7c6b5a4938271605f4e3d2c1b0a9",
		.attempt = attempt,
		.cluster = "testcluster",
		.job_id = "1234",
		.array_job_id = "1230",
		.array_task_id = "4",
		.restart = 0,
		.host = "node001",
		.pid = 4242,
	};
	return id;
}

static void str(msgpack_packer *pk, const char *s)
{
	msgpack_pack_str(pk, strlen(s));
	msgpack_pack_str_body(pk, s, strlen(s));
}

static void start_payload(msgpack_packer *pk, const struct sb_key *key)
{
	msgpack_pack_map(pk, 7);
	str(pk, "command");
	msgpack_pack_array(pk, 3);
	str(pk, "python");
	str(pk, "train.py");
	str(pk, "--lr=0.1");
	str(pk, "cores");
	msgpack_pack_int64(pk, 8);
	str(pk, "cpu_model");
	str(pk, "Test CPU @ 2.0GHz");
	str(pk, "cwd");
	str(pk, "/scratch/runs/4");
	str(pk, "heartbeat_s");
	msgpack_pack_int64(pk, 60);
	str(pk, "kernel");
	str(pk, "6.1.0-test");
	str(pk, "key_id");
	str(pk, key->id);
}

static void heartbeat_payload(msgpack_packer *pk, int i)
{
	msgpack_pack_map(pk, 4);
	str(pk, "elapsed_s");
	msgpack_pack_double(pk, 60.0 * i);
	str(pk, "max_rss_kb");
	msgpack_pack_int64(pk, 1000 + i);
	str(pk, "sys_s");
	msgpack_pack_double(pk, 0.25 * i);
	str(pk, "user_s");
	msgpack_pack_double(pk, 59.5 * i);
}

static void finish_payload(msgpack_packer *pk, int n)
{
	msgpack_pack_map(pk, 12);
	str(pk, "core_dumped");
	msgpack_pack_false(pk);
	str(pk, "error");
	msgpack_pack_nil(pk);
	str(pk, "exit_code");
	msgpack_pack_int64(pk, 0);
	str(pk, "max_rss_kb");
	msgpack_pack_int64(pk, 2048);
	str(pk, "metrics");
	msgpack_pack_map(pk, 2);
	str(pk, "accuracy");
	msgpack_pack_double(pk, 0.9);
	str(pk, "loss");
	msgpack_pack_double(pk, 0.125);
	str(pk, "records");
	msgpack_pack_int64(pk, n);
	str(pk, "results");
	msgpack_pack_array(pk, 2);
	msgpack_pack_map(pk, 4);
	str(pk, "mtime_ns");
	msgpack_pack_int64(pk, 1700000000123456789);
	str(pk, "path");
	str(pk, "metrics.json");
	str(pk, "sha256");
	str(pk, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	str(pk, "size");
	msgpack_pack_int64(pk, 0);
	msgpack_pack_map(pk, 2);
	str(pk, "missing");
	msgpack_pack_true(pk);
	str(pk, "path");
	str(pk, "model.pt");
	str(pk, "signal");
	msgpack_pack_nil(pk);
	str(pk, "skipped_metrics");
	msgpack_pack_array(pk, 1);
	str(pk, "notes");
	str(pk, "sys_s");
	msgpack_pack_double(pk, 0.5);
	str(pk, "user_s");
	msgpack_pack_double(pk, 120.25);
	str(pk, "wall_s");
	msgpack_pack_double(pk, 121.5);
}

/* The payload of record i of n into sb; returns its type. */
static const char *payload(msgpack_sbuffer *sb, const struct sb_key *key, int i, int n)
{
	msgpack_packer pk;

	msgpack_sbuffer_clear(sb);
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	if (i == 0) {
		start_payload(&pk, key);
		return "start";
	}
	if (i == n - 1) {
		finish_payload(&pk, n);
		return "finish";
	}
	heartbeat_payload(&pk, i);
	return "heartbeat";
}

uint8_t *sbt_craft_log(const struct sb_key *key, const struct sb_run_ident *id,
	int n, int64_t t0_ns, size_t *len)
{
	msgpack_sbuffer pl, body;
	struct sb_mac *mac = sb_mac_create(key->bytes, SB_KEY_LEN, NULL);
	uint8_t prev[SB_LOG_TAG_LEN], *out = NULL, *fr;
	size_t at = 0;
	int i;

	msgpack_sbuffer_init(&pl);
	msgpack_sbuffer_init(&body);
	for (i = 0; i < n && mac != NULL; i++) {
		const char *type = payload(&pl, key, i, n);
		msgpack_sbuffer_clear(&body);
		if (sb_record_encode_body(&body, type, id, (uint64_t)i,
				t0_ns + (int64_t)i * 1000000000, i ? prev : NULL,
				pl.data, pl.size, NULL) < 0)
			break;
		out = realloc(out, at + SB_LOG_HEADER_LEN + body.size + SB_LOG_TAG_LEN);
		fr = out + at;
		memcpy(fr, SB_LOG_MAGIC, 4);
		sb_store_be32(fr + 4, (uint32_t)body.size);
		sb_store_be32(fr + 8, sb_crc32c(0, body.data, body.size));
		memcpy(fr + SB_LOG_HEADER_LEN, body.data, body.size);
		sb_mac_compute(mac, fr, SB_LOG_HEADER_LEN + body.size, NULL, 0,
			fr + SB_LOG_HEADER_LEN + body.size, NULL);
		memcpy(prev, fr + SB_LOG_HEADER_LEN + body.size, SB_LOG_TAG_LEN);
		at += SB_LOG_HEADER_LEN + body.size + SB_LOG_TAG_LEN;
	}
	msgpack_sbuffer_destroy(&pl);
	msgpack_sbuffer_destroy(&body);
	sb_mac_destroy(mac);
	*len = at;
	return out;
}

struct clock_state {
	int64_t t;
};

static int64_t fixed_clock(void *arg)
{
	struct clock_state *c = arg;
	int64_t t = c->t;

	c->t += 1000000000;
	return t;
}

int sbt_write_log(const char *path, const struct sb_key *key,
	const struct sb_run_ident *id, int n, int64_t t0_ns, struct sb_error *err)
{
	struct clock_state clock = { t0_ns };
	struct sb_log_writer *w;
	msgpack_sbuffer sb;
	const char *type;
	int i, rc = 0;

	w = sb_log_writer_create(path, key, id, err);
	if (w == NULL)
		return -1;
	sb_log_writer_set_clock(w, fixed_clock, &clock);
	msgpack_sbuffer_init(&sb);
	for (i = 0; i < n && rc == 0; i++) {
		type = payload(&sb, key, i, n);
		rc = sb_log_writer_append(w, type, sb.data, sb.size, err);
	}
	msgpack_sbuffer_destroy(&sb);
	if (sb_log_writer_close(w, rc == 0 ? err : NULL) < 0)
		rc = -1;
	return rc;
}

size_t sbt_frames(const uint8_t *buf, size_t len, size_t *off, size_t max)
{
	struct sb_frame f;
	size_t n = 0, at = 0;

	while (at < len && n < max && sb_frame_parse(buf + at, len - at, &f) == SB_FRAME_OK) {
		off[n++] = at;
		at += f.size;
	}
	if (n < max)
		off[n] = at;
	return n;
}

uint8_t *sbt_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (buf == NULL || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

int sbt_write(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f;

	unlink(path);
	f = fopen(path, "wb");
	if (f == NULL)
		return -1;
	if (len > 0 && fwrite(buf, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}
