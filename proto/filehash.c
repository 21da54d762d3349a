/* SHA-256 of a result file through its descriptor, on OpenSSL's low-level
 * SHA-256 (no EVP provider start-up in sbagent: see proto/mac.c). */
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "proto/filehash.h"

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* The chunks: 0 when all size bytes were hashed, 1 when stopped. */
static int hash_chunks(int fd, uint64_t size, SHA256_CTX *ctx, uint8_t *buf,
	sb_filehash_between between, void *arg, struct sb_error *err)
{
	uint64_t done = 0;

	while (done < size) {
		size_t want = size - done < SB_FILEHASH_CHUNK ? (size_t)(size - done)
			: SB_FILEHASH_CHUNK;
		ssize_t n = pread(fd, buf, want, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sb_errorf(err, "read failed: %s", strerror(errno));
		if (n == 0)
			return sb_errorf(err, "changed while it was hashed (it shrank)");
		if (SHA256_Update(ctx, buf, (size_t)n) != 1)
			return sb_errorf(err, "sha-256 unavailable");
		done += (uint64_t)n;
		if (between != NULL && between(arg, done, size) != 0 && done < size)
			return 1;
	}
	return 0;
}

int sb_filehash_fd(int fd, const struct stat *st, sb_filehash_between between,
	void *arg, uint8_t out[SB_FILEHASH_LEN], struct sb_error *err)
{
	uint64_t size = st->st_size > 0 ? (uint64_t)st->st_size : 0;
	SHA256_CTX ctx;
	uint8_t *buf = malloc(size < SB_FILEHASH_CHUNK ? (size_t)size + 1 : SB_FILEHASH_CHUNK);
	struct stat after;
	int rc;

	if (buf == NULL) {
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (SHA256_Init(&ctx) != 1) {
		rc = sb_errorf(err, "sha-256 unavailable");
		goto out;
	}
	rc = hash_chunks(fd, size, &ctx, buf, between, arg, err);
	if (rc != 0)
		goto out;
	if (fstat(fd, &after) != 0)
		rc = sb_errorf(err, "cannot stat: %s", strerror(errno));
	else if (after.st_size != st->st_size || mtime_ns(&after) != mtime_ns(st))
		/* the bytes hashed are not those of one size and mtime */
		rc = sb_errorf(err, "changed while it was hashed (size or mtime moved)");
	else if (SHA256_Final(out, &ctx) != 1)
		rc = sb_errorf(err, "sha-256 unavailable");
out:
	OPENSSL_cleanse(&ctx, sizeof(ctx));
	free(buf);
	return rc;
}
