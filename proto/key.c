#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "proto/mac.h"
#include "proto/util.h"
#include "sbench/key.h"

/* Key files: loading (what sbagent needs) here, generating in keygen.c,
 * so that a static sbagent does not link OpenSSL's random generator and
 * the EVP machinery behind it (docs/sbagent.md, PERFORMANCE). */

static void key_set_id(struct sb_key *key)
{
	uint8_t buf[13 + SB_KEY_LEN], digest[SB_SHA256_LEN];

	memcpy(buf, "sbench-key-id", 13);
	memcpy(buf + 13, key->bytes, SB_KEY_LEN);
	if (sb_sha256(buf, sizeof(buf), digest, NULL) < 0)
		memset(digest, 0, sizeof(digest));
	sb_hex_encode(digest, SB_KEY_ID_LEN / 2, key->id);
	OPENSSL_cleanse(buf, sizeof(buf));
}

int sb_key_load(const char *path, struct sb_key *key, struct sb_error *err)
{
	struct stat st;
	size_t done = 0;
	ssize_t n;
	int fd, saved;

	memset(key, 0, sizeof(*key));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		saved = errno;
		if (saved == ELOOP)
			return sb_errorf(err, "key file '%s' is a symbolic link; refusing it "
				"(use the real file's path, or replace the link with the file)", path);
		return sb_errorf(err, "cannot open key file '%s': %s", path, strerror(saved));
	}
	if (fstat(fd, &st) < 0) {
		saved = errno;
		close(fd);
		return sb_errorf(err, "cannot stat key file '%s': %s", path, strerror(saved));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return sb_errorf(err, "key file '%s' is not a regular file "
			"(create one with 'sbctl keygen FILE')", path);
	}
	if (st.st_uid != geteuid()) {
		close(fd);
		return sb_errorf(err, "key file '%s' is owned by uid %u, not by you (uid %u); "
			"refusing it (only its owner may use it: copy it to a file of your own "
			"with mode 600, or 'chown' it)", path, (unsigned)st.st_uid, (unsigned)geteuid());
	}
	if (st.st_mode & 077) {
		close(fd);
		return sb_errorf(err, "key file '%s' has mode %04o: group or other may "
			"access it; refusing it (fix with 'chmod 600 %s')",
			path, (unsigned)(st.st_mode & 07777), path);
	}
	if (st.st_size != SB_KEY_LEN) {
		close(fd);
		return sb_errorf(err, "key file '%s' is %lld bytes long, not %d "
			"(not a key file; create one with 'sbctl keygen FILE')",
			path, (long long)st.st_size, SB_KEY_LEN);
	}
	while (done < SB_KEY_LEN) {
		n = read(fd, key->bytes + done, SB_KEY_LEN - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			saved = n < 0 ? errno : EIO;
			close(fd);
			sb_key_cleanse(key);
			return sb_errorf(err, "cannot read key file '%s': %s",
				path, n < 0 ? strerror(saved) : "file shrank while reading");
		}
		done += (size_t)n;
	}
	close(fd);
	key_set_id(key);
	return 0;
}

void sb_key_from_bytes(struct sb_key *key, const uint8_t bytes[SB_KEY_LEN])
{
	memmove(key->bytes, bytes, SB_KEY_LEN);
	key_set_id(key);
}

void sb_key_cleanse(struct sb_key *key)
{
	if (key != NULL)
		OPENSSL_cleanse(key, sizeof(*key));
}
