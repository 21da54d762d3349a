/* Result files at finish: size, mtime and SHA-256, or why not. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "agent/agent.h"
#include "proto/util.h"

#define SB_HASH_CHUNK (1u << 20)
/* Assumed until measured: a conservative read+hash rate for the first file. */
#define SB_HASH_RATE_GUESS (200.0 * 1024 * 1024)

static void set_error(struct sb_agent_result *r, const char *what, int e)
{
	r->state = SB_RESULT_ERROR;
	snprintf(r->error, sizeof(r->error), "%s: %s", what, strerror(e));
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* The deadline now, 0 for none. */
static double ask(double (*deadline)(void *arg), void *arg)
{
	return deadline != NULL ? deadline(arg) : 0;
}

/* Hashes the r->size bytes of fd into r->sha256, checking after each chunk
 * that the rest still fits before the deadline at *rate bytes/s (updated
 * from this file once a chunk is done).  0 when hashed, 1 when the deadline
 * stopped it, -1 on error (r says why). */
static int hash_fd(int fd, EVP_MD_CTX *ctx, uint8_t *buf,
	double (*deadline)(void *arg), void *arg, double *rate,
	struct sb_agent_result *r)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	uint64_t done = 0;
	double t0 = sb_agent_now(), d;
	ssize_t n;

	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		snprintf(r->error, sizeof(r->error), "sha-256 unavailable");
		r->state = SB_RESULT_ERROR;
		return -1;
	}
	while (done < r->size) {
		size_t want = r->size - done < SB_HASH_CHUNK ? (size_t)(r->size - done) : SB_HASH_CHUNK;

		n = read(fd, buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			set_error(r, "read failed", errno);
			return -1;
		}
		if (n == 0) {
			snprintf(r->error, sizeof(r->error), "changed while it was hashed (it shrank)");
			r->state = SB_RESULT_ERROR;
			return -1;
		}
		EVP_DigestUpdate(ctx, buf, (size_t)n);
		done += (uint64_t)n;
		if (done >= SB_HASH_CHUNK) {
			double dt = sb_agent_now() - t0;

			if (dt > 0)
				*rate = (double)done / dt;
		}
		d = ask(deadline, arg);
		if (d > 0 && done < r->size &&
		    sb_agent_now() + (double)(r->size - done) / *rate > d)
			return 1;
	}
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	sb_hex_encode(md, mdlen, r->sha256);
	return 0;
}

void sb_agent_results_collect(const char *const *paths, size_t n,
	double (*deadline)(void *arg), void *arg, struct sb_agent_result *out)
{
	EVP_MD_CTX *ctx = NULL;
	uint8_t *buf = NULL;
	double rate = SB_HASH_RATE_GUESS, d;
	size_t i;

	for (i = 0; i < n; i++) {
		struct sb_agent_result *r = &out[i];
		struct stat st, after;
		int fd, rc;

		memset(r, 0, sizeof(*r));
		r->path = paths[i];
		fd = open(paths[i], O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0) {
			if (errno == ENOENT || errno == ENOTDIR)
				r->state = SB_RESULT_MISSING;
			else
				set_error(r, "cannot open", errno);
			continue;
		}
		if (fstat(fd, &st) != 0) {
			set_error(r, "cannot stat", errno);
			close(fd);
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(r->error, sizeof(r->error), "not a regular file");
			r->state = SB_RESULT_ERROR;
			close(fd);
			continue;
		}
		r->size = (uint64_t)st.st_size;
		r->mtime_ns = mtime_ns(&st);
		r->state = SB_RESULT_NOT_HASHED;
		d = ask(deadline, arg);
		if (d > 0 && sb_agent_now() + (double)r->size / rate > d) {
			close(fd);
			continue;
		}
		if (ctx == NULL)
			ctx = EVP_MD_CTX_new();
		if (buf == NULL)
			buf = malloc(SB_HASH_CHUNK);
		if (ctx == NULL || buf == NULL) {
			snprintf(r->error, sizeof(r->error), "out of memory");
			r->state = SB_RESULT_ERROR;
			close(fd);
			continue;
		}
		rc = hash_fd(fd, ctx, buf, deadline, arg, &rate, r);
		if (rc == 0 && fstat(fd, &after) != 0) {
			set_error(r, "cannot stat", errno);
		} else if (rc == 0 && ((uint64_t)after.st_size != r->size ||
			   mtime_ns(&after) != r->mtime_ns)) {
			/* the bytes hashed are not those of one size and mtime */
			snprintf(r->error, sizeof(r->error),
				"changed while it was hashed (size or mtime moved)");
			r->state = SB_RESULT_ERROR;
		} else if (rc == 0) {
			r->state = SB_RESULT_HASHED;
		}
		close(fd);
	}
	EVP_MD_CTX_free(ctx);
	free(buf);
}
