/* The log writer: one signed, chained record per append, each written with
 * one write loop and fsync'ed before the append returns. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "proto/crc32c.h"
#include "proto/mac.h"
#include "proto/record.h"
#include "sbench/log.h"

struct sb_log_writer {
	int fd;
	char *name;
	struct sb_mac *mac;
	/* the identity, with its strings copied into one allocation */
	struct sb_run_ident id;
	char *strings;
	uint64_t count;
	uint8_t prev[SB_LOG_TAG_LEN];
	bool failed;
	bool batch;       /* sync at close, not after every record */
	bool unsynced;    /* records written since the last sync */
	int64_t (*now)(void *arg);
	void *now_arg;
	msgpack_sbuffer body;
};

static int64_t real_now(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Copies the strings of src into one buffer owned by w. */
static int copy_ident(struct sb_log_writer *w, const struct sb_run_ident *src)
{
	const char *const *in[] = { &src->bench, &src->child_digest, &src->cluster,
		&src->job_id, &src->array_job_id, &src->array_task_id, &src->host };
	const char **out[] = { &w->id.bench, &w->id.child_digest, &w->id.cluster,
		&w->id.job_id, &w->id.array_job_id, &w->id.array_task_id, &w->id.host };
	size_t i, total = 0, len;
	char *p;

	w->id = *src;
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		if (*in[i] != NULL)
			total += strlen(*in[i]) + 1;
	w->strings = p = malloc(total + 1);
	if (p == NULL)
		return -1;
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		if (*in[i] == NULL)
			continue;
		len = strlen(*in[i]) + 1;
		memcpy(p, *in[i], len);
		*out[i] = p;
		p += len;
	}
	return 0;
}

static void writer_free(struct sb_log_writer *w)
{
	if (w == NULL)
		return;
	sb_mac_destroy(w->mac);
	msgpack_sbuffer_destroy(&w->body);
	free(w->strings);
	free(w->name);
	free(w);
}

struct sb_log_writer *sb_log_writer_create_fd(int fd, const char *name,
	const struct sb_key *key, const struct sb_run_ident *id,
	struct sb_error *err)
{
	struct sb_log_writer *w;

	if (sb_record_check_ident(id, err) < 0) {
		sb_error_prefix(err, "cannot write log '%s'", name);
		close(fd);
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL) {
		close(fd);
		sb_errorf(err, "out of memory");
		return NULL;
	}
	w->fd = fd;
	msgpack_sbuffer_init(&w->body);
	w->now = real_now;
	w->name = strdup(name);
	w->mac = sb_mac_create(key->bytes, SB_KEY_LEN, err);
	if (w->name == NULL || w->mac == NULL || copy_ident(w, id) < 0) {
		if (w->mac != NULL)
			sb_errorf(err, "out of memory");
		close(fd);
		writer_free(w);
		return NULL;
	}
	return w;
}

struct sb_log_writer *sb_log_writer_create(const char *path,
	const struct sb_key *key, const struct sb_run_ident *id,
	struct sb_error *err)
{
	int fd;

	if (sb_record_check_ident(id, err) < 0) {
		sb_error_prefix(err, "cannot create log '%s'", path);
		return NULL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0) {
		if (errno == EEXIST)
			sb_errorf(err, "log '%s' already exists (one file per run; it is never appended to)", path);
		else
			sb_errorf(err, "cannot create log '%s': %s", path, strerror(errno));
		return NULL;
	}
	return sb_log_writer_create_fd(fd, path, key, id, err);
}

void sb_log_writer_set_clock(struct sb_log_writer *w,
	int64_t (*now)(void *arg), void *arg)
{
	w->now = now != NULL ? now : real_now;
	w->now_arg = now != NULL ? arg : NULL;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0) {
			errno = EIO;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int sb_log_writer_append(struct sb_log_writer *w, const char *type,
	const void *payload, size_t payload_len, struct sb_error *err)
{
	uint8_t *frame;
	size_t size;
	int rc;

	if (w->failed)
		return sb_errorf(err, "log '%s' had a write error before; refusing to append", w->name);
	msgpack_sbuffer_clear(&w->body);
	if (sb_record_encode_body(&w->body, type, &w->id, w->count,
			w->now(w->now_arg), w->count ? w->prev : NULL,
			payload, payload_len, err) < 0)
		return sb_error_prefix(err, "cannot append to log '%s'", w->name);
	if (w->body.size > SB_LOG_BODY_MAX)
		return sb_errorf(err, "cannot append to log '%s': '%s' record is %zu bytes, "
			"above the limit of %u", w->name, type, w->body.size, SB_LOG_BODY_MAX);
	size = SB_LOG_HEADER_LEN + w->body.size + SB_LOG_TAG_LEN;
	frame = malloc(size);
	if (frame == NULL)
		return sb_errorf(err, "out of memory");
	memcpy(frame, SB_LOG_MAGIC, 4);
	sb_store_be32(frame + 4, (uint32_t)w->body.size);
	sb_store_be32(frame + 8, sb_crc32c(0, w->body.data, w->body.size));
	memcpy(frame + SB_LOG_HEADER_LEN, w->body.data, w->body.size);
	if (sb_mac_compute(w->mac, frame, SB_LOG_HEADER_LEN + w->body.size, NULL, 0,
			frame + SB_LOG_HEADER_LEN + w->body.size, err) < 0) {
		free(frame);
		return -1;
	}
	rc = write_all(w->fd, frame, size);
	if (rc == 0 && !w->batch && fdatasync(w->fd) < 0)
		rc = -2;
	if (rc == 0 && w->batch)
		w->unsynced = true;
	if (rc < 0) {
		w->failed = true;
		sb_errorf(err, "cannot %s log '%s' (record %llu): %s",
			rc == -1 ? "write" : "fsync", w->name,
			(unsigned long long)w->count, strerror(errno));
		free(frame);
		return -1;
	}
	memcpy(w->prev, frame + size - SB_LOG_TAG_LEN, SB_LOG_TAG_LEN);
	w->count++;
	free(frame);
	return 0;
}

uint64_t sb_log_writer_count(const struct sb_log_writer *w)
{
	return w->count;
}

int sb_log_writer_close(struct sb_log_writer *w, struct sb_error *err)
{
	int rc = 0;

	if (w == NULL)
		return 0;
	if (w->unsynced && !w->failed && fdatasync(w->fd) < 0)
		rc = sb_errorf(err, "cannot fsync log '%s': %s", w->name, strerror(errno));
	if (close(w->fd) < 0 && rc == 0)
		rc = sb_errorf(err, "cannot close log '%s': %s", w->name, strerror(errno));
	OPENSSL_cleanse(w->prev, sizeof(w->prev));
	writer_free(w);
	return rc;
}

void sb_log_writer_set_batch(struct sb_log_writer *w, bool batch)
{
	w->batch = batch;
}
