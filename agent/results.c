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

/* Hashes fd into r->sha256; 1 when the deadline stopped it, -1 on error. */
static int hash_fd(int fd, EVP_MD_CTX *ctx, uint8_t *buf, double deadline,
	struct sb_agent_result *r)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	ssize_t n;

	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		snprintf(r->error, sizeof(r->error), "sha-256 unavailable");
		r->state = SB_RESULT_ERROR;
		return -1;
	}
	for (;;) {
		n = read(fd, buf, SB_HASH_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			set_error(r, "read failed", errno);
			return -1;
		}
		if (n == 0)
			break;
		EVP_DigestUpdate(ctx, buf, (size_t)n);
		if (deadline > 0 && sb_agent_now() > deadline)
			return 1;
	}
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	sb_hex_encode(md, mdlen, r->sha256);
	return 0;
}

void sb_agent_results_collect(const char *const *paths, size_t n,
	double deadline, struct sb_agent_result *out)
{
	EVP_MD_CTX *ctx = NULL;
	uint8_t *buf = NULL;
	double rate = SB_HASH_RATE_GUESS;
	size_t i;

	for (i = 0; i < n; i++) {
		struct sb_agent_result *r = &out[i];
		struct stat st;
		double t0;
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
		r->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		r->state = SB_RESULT_NOT_HASHED;
		t0 = sb_agent_now();
		if (deadline > 0 && t0 + (double)r->size / rate > deadline) {
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
		rc = hash_fd(fd, ctx, buf, deadline, r);
		if (rc == 0) {
			double dt = sb_agent_now() - t0;

			r->state = SB_RESULT_HASHED;
			if (r->size >= SB_HASH_CHUNK && dt > 0)
				rate = (double)r->size / dt;
		}
		close(fd);
	}
	EVP_MD_CTX_free(ctx);
	free(buf);
}
