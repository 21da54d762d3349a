/* The log writer: one signed, chained record per append, each written with
 * one write loop and fdatasync'ed before the append returns.  A record whose
 * write or sync fails stays pending and is written again, byte for byte,
 * before any later one (docs/event-log.md §5.1). */
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
#include "proto/util.h"
#include "sbench/log.h"

struct sb_log_writer {
	int fd;
	char *name;
	struct sb_mac *mac;
	/* the identity, with its strings copied into one allocation */
	struct sb_run_ident id;
	char *strings;
	uint64_t count;           /* records created: the seq of the next one */
	uint8_t prev[SB_LOG_TAG_LEN]; /* tag of the last record created */
	/* The last record created, kept until it is on disk (docs/event-log.md
	 * §5.1): a failed write or sync leaves it pending, and it is written
	 * again, the same bytes at the same offset, before anything else. */
	uint8_t *frame;
	size_t frame_len, frame_cap;
	uint64_t frame_off;       /* where it goes: the end of the records before it */
	bool pending;
	bool reseek;              /* the file offset is not frame_off: seek first */
	bool batch;               /* sync at close, not after every record */
	bool unsynced;            /* records written since the last sync */
	int64_t (*now)(void *arg);
	void *now_arg;
	ssize_t (*sys_write)(int fd, const void *buf, size_t n);
	int (*sys_sync)(int fd);
	sb_log_tap_fn tap;        /* told every frame once it is on disk */
	void *tap_arg;
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
	free(w->frame);
	free(w->strings);
	free(w->name);
	free(w);
}

/* fd is at offset off, where the first record goes. */
static struct sb_log_writer *writer_new(int fd, uint64_t off, const char *name,
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
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	w->fd = fd;
	w->frame_off = off;
	msgpack_sbuffer_init(&w->body);
	w->now = real_now;
	w->sys_write = write;
	w->sys_sync = fdatasync;
	w->name = strdup(name);
	w->mac = sb_mac_create(key->bytes, SB_KEY_LEN, err);
	if (w->name == NULL || w->mac == NULL || copy_ident(w, id) < 0) {
		if (w->mac != NULL)
			sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		close(fd);
		writer_free(w);
		return NULL;
	}
	return w;
}

struct sb_log_writer *sb_log_writer_create_fd(int fd, const char *name,
	const struct sb_key *key, const struct sb_run_ident *id,
	struct sb_error *err)
{
	off_t off = lseek(fd, 0, SEEK_CUR);

	return writer_new(fd, off > 0 ? (uint64_t)off : 0, name, key, id, err);
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
	return writer_new(fd, 0, path, key, id, err); /* a new, empty file */
}

void sb_log_writer_set_clock(struct sb_log_writer *w,
	int64_t (*now)(void *arg), void *arg)
{
	w->now = now != NULL ? now : real_now;
	w->now_arg = now != NULL ? arg : NULL;
}

void sb_log_writer_set_io(struct sb_log_writer *w,
	ssize_t (*write_fn)(int fd, const void *buf, size_t n),
	int (*sync_fn)(int fd))
{
	w->sys_write = write_fn != NULL ? write_fn : write;
	w->sys_sync = sync_fn != NULL ? sync_fn : fdatasync;
}

/* Writes the pending frame at its offset and syncs it.  On failure it stays
 * pending: the bytes already in the file are a prefix of it, and the next
 * try writes the whole frame again from its start (so that a sync that
 * failed, whose pages the kernel may have dropped, is not trusted). */
static int write_pending(struct sb_log_writer *w, struct sb_error *err)
{
	const char *what = "write";
	int e;

	if (w->reseek && lseek(w->fd, (off_t)w->frame_off, SEEK_SET) < 0) {
		what = "seek in";
		goto fail;
	}
	w->reseek = true; /* until the frame is whole */
	if (sb_write_all(w->sys_write, w->fd, w->frame, w->frame_len) < 0)
		goto fail;
	if (!w->batch) {
		int rc, intr = 0;

		while ((rc = w->sys_sync(w->fd)) < 0 && errno == EINTR && ++intr < SB_EINTR_MAX)
			;
		if (rc < 0) {
			what = "fsync";
			goto fail;
		}
	} else {
		w->unsynced = true;
	}
	w->reseek = false;
	w->pending = false;
	w->frame_off += w->frame_len;
	if (w->tap != NULL)
		w->tap(w->tap_arg, w->frame, w->frame_len);
	return 0;
fail:
	e = errno;
	return sb_errorf(err, "cannot %s log '%s' (record %llu): %s", what, w->name,
		(unsigned long long)(w->count - 1), strerror(e));
}

int sb_log_writer_flush(struct sb_log_writer *w, struct sb_error *err)
{
	return w->pending ? write_pending(w, err) : 0;
}

bool sb_log_writer_pending(const struct sb_log_writer *w)
{
	return w->pending;
}

/* Builds the next record's frame in w->frame (it becomes the pending one). */
static int build_frame(struct sb_log_writer *w, const char *type,
	const void *payload, size_t payload_len, struct sb_error *err)
{
	size_t size;

	msgpack_sbuffer_clear(&w->body);
	if (sb_record_encode_body(&w->body, type, &w->id, w->count,
			w->now(w->now_arg), w->count ? w->prev : NULL,
			payload, payload_len, err) < 0)
		return sb_error_prefix(err, "cannot append to log '%s'", w->name);
	if (w->body.size > SB_LOG_BODY_MAX)
		return sb_errorf(err, "cannot append to log '%s': '%s' record is %zu bytes, "
			"above the limit of %u", w->name, type, w->body.size, SB_LOG_BODY_MAX);
	size = SB_LOG_HEADER_LEN + w->body.size + SB_LOG_TAG_LEN;
	if (size > w->frame_cap) {
		uint8_t *p = realloc(w->frame, size);

		if (p == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		w->frame = p;
		w->frame_cap = size;
	}
	memcpy(w->frame, SB_LOG_MAGIC, 4);
	sb_store_be32(w->frame + 4, (uint32_t)w->body.size);
	sb_store_be32(w->frame + 8, sb_crc32c(0, w->body.data, w->body.size));
	memcpy(w->frame + SB_LOG_HEADER_LEN, w->body.data, w->body.size);
	if (sb_mac_compute(w->mac, w->frame, SB_LOG_HEADER_LEN + w->body.size, NULL, 0,
			w->frame + SB_LOG_HEADER_LEN + w->body.size, err) < 0)
		return -1;
	w->frame_len = size;
	memcpy(w->prev, w->frame + size - SB_LOG_TAG_LEN, SB_LOG_TAG_LEN);
	w->count++;
	w->pending = true;
	return 0;
}

int sb_log_writer_append(struct sb_log_writer *w, const char *type,
	const void *payload, size_t payload_len, struct sb_error *err)
{
	if (w->pending && write_pending(w, err) < 0)
		return sb_error_prefix(err, "'%s' record not written, an earlier record is still pending",
			type);
	if (build_frame(w, type, payload, payload_len, err) < 0)
		return -1;
	return write_pending(w, err);
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
	if (w->pending && write_pending(w, err) < 0)
		rc = sb_error_prefix(err, "log closed with its last record not written");
	if (rc == 0 && w->unsynced && w->sys_sync(w->fd) < 0)
		rc = sb_errorf(err, "cannot fsync log '%s': %s", w->name, strerror(errno));
	if (close(w->fd) < 0 && rc == 0)
		rc = sb_errorf(err, "cannot close log '%s': %s", w->name, strerror(errno));
	OPENSSL_cleanse(w->prev, sizeof(w->prev));
	writer_free(w);
	return rc;
}

void sb_log_writer_set_tap(struct sb_log_writer *w, sb_log_tap_fn tap, void *arg)
{
	w->tap = tap;
	w->tap_arg = tap != NULL ? arg : NULL;
}

void sb_log_writer_set_batch(struct sb_log_writer *w, bool batch)
{
	w->batch = batch;
}
