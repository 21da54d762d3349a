/* Key generation (sbctl keygen): 32 random bytes from OpenSSL's generator
 * in a new file of mode 0600.  Apart from key.c so that sbagent, which
 * only loads keys, does not link the generator. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "sbench/key.h"

int sb_key_generate_file(const char *path, struct sb_error *err)
{
	uint8_t bytes[SB_KEY_LEN];
	size_t done = 0;
	int fd, saved;

	if (RAND_bytes(bytes, sizeof(bytes)) != 1)
		return sb_errorf(err, "cannot generate key '%s': openssl has no randomness", path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		saved = errno;
		OPENSSL_cleanse(bytes, sizeof(bytes));
		if (saved == EEXIST)
			sb_error_set(err, SB_ERR_INPUT, "key file '%s' already exists; refusing to "
				     "overwrite it (remove it first, or choose another name)", path);
		else
			sb_errorf(err, "cannot create key file '%s': %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	/* The umask may have removed bits but never adds any; make it exact. */
	if (fchmod(fd, 0600) < 0)
		goto fail;
	while (done < sizeof(bytes)) {
		ssize_t n = write(fd, bytes + done, sizeof(bytes) - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		done += (size_t)n;
	}
	if (fsync(fd) < 0)
		goto fail;
	OPENSSL_cleanse(bytes, sizeof(bytes));
	if (close(fd) < 0) {
		saved = errno;
		unlink(path);
		return sb_errorf(err, "cannot write key file '%s': %s", path, strerror(saved));
	}
	return 0;
fail:
	saved = errno ? errno : EIO;
	OPENSSL_cleanse(bytes, sizeof(bytes));
	close(fd);
	unlink(path);
	return sb_errorf(err, "cannot write key file '%s': %s", path, strerror(saved));
}
