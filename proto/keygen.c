/* Key generation (sbctl keygen): 32 random bytes from OpenSSL's generator
 * in a new file of mode 0600, or an Ed25519 key pair in PEM.  Apart from key.c so that sbagent, which
 * only loads keys, does not link the generator. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
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

/* --- Ed25519 key pair (sbctl keygen --ed25519) ---------------------------
 * Both files are written to temporary names beside their final ones
 * (mkstemp: O_EXCL, mode 0600), synced, then given their names with link(2),
 * which never replaces an existing name (a dangling symbolic link
 * included): the final names either appear whole or not at all. */

static int pem_of(EVP_PKEY *pkey, int private_key, char **out, size_t *len)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *data;
	long n;
	int ok;

	if (bio == NULL)
		return -1;
	ok = private_key ? PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL, NULL)
			 : PEM_write_bio_PUBKEY(bio, pkey);
	n = BIO_get_mem_data(bio, &data);
	if (ok != 1 || n <= 0 || (*out = malloc((size_t)n)) == NULL) {
		BIO_free(bio);
		return -1;
	}
	memcpy(*out, data, (size_t)n);
	*len = (size_t)n;
	/* the memory BIO held the private key: wipe it before freeing */
	OPENSSL_cleanse(data, (size_t)n);
	BIO_free(bio);
	return 0;
}

static int write_all_fd(int fd, const char *data, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

/* Writes data to a new temporary file beside final (tmp receives its name),
 * mode exactly `mode`, synced.  0, or -1 with errno set and nothing left. */
static int write_temp(const char *final, const char *data, size_t len, mode_t mode, char *tmp,
		      size_t tmp_size)
{
	int fd, saved;

	if ((size_t)snprintf(tmp, tmp_size, "%s.tmp.XXXXXX", final) >= tmp_size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	if (fchmod(fd, mode) < 0 || write_all_fd(fd, data, len) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		saved = errno;
		unlink(tmp);
		errno = saved;
		return -1;
	}
	return 0;
fail:
	saved = errno ? errno : EIO;
	close(fd);
	unlink(tmp);
	errno = saved;
	return -1;
}

/* The directory of path, synced so that the new names are durable. */
static void sync_dir_of(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t n;
	int fd;

	if (slash == NULL) {
		strcpy(dir, ".");
	} else {
		n = slash == path ? 1 : (size_t)(slash - path);
		if (n >= sizeof(dir))
			return;
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

static int refuse_existing(const char *path, struct sb_error *err)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		return sb_error_set(err, SB_ERR_INPUT, "key file '%s' already exists; refusing "
				    "to overwrite it (remove it first, or choose another name)", path);
	return 0;
}

int sb_key_generate_ed25519(const char *path, struct sb_error *err)
{
	char pub[PATH_MAX], tmp_priv[PATH_MAX], tmp_pub[PATH_MAX];
	char *priv_pem = NULL, *pub_pem = NULL;
	size_t priv_len = 0, pub_len = 0;
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *pkey = NULL;
	int rc = -1, saved;

	if (path == NULL || path[0] == '\0')
		return sb_error_set(err, SB_ERR_INPUT, "no key file named");
	if ((size_t)snprintf(pub, sizeof(pub), "%s.pub", path) >= sizeof(pub) ||
	    strlen(path) + sizeof(".pub.tmp.XXXXXX") > sizeof(tmp_pub))
		return sb_error_set(err, SB_ERR_INPUT, "key file name '%.64s...' is too long", path);
	/* a friendly refusal before any work; link() below is the real guard */
	if (refuse_existing(path, err) < 0 || refuse_existing(pub, err) < 0)
		return -1;

	ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
	if (ctx == NULL || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_keygen(ctx, &pkey) != 1) {
		sb_errorf(err, "cannot generate an Ed25519 key for '%s': openssl refused", path);
		goto out;
	}
	if (pem_of(pkey, 1, &priv_pem, &priv_len) < 0 || pem_of(pkey, 0, &pub_pem, &pub_len) < 0) {
		sb_errorf(err, "cannot encode the Ed25519 key for '%s': openssl refused", path);
		goto out;
	}
	if (write_temp(path, priv_pem, priv_len, 0600, tmp_priv, sizeof(tmp_priv)) < 0) {
		sb_errorf(err, "cannot write key file '%s': %s", path, strerror(errno));
		goto out;
	}
	if (write_temp(pub, pub_pem, pub_len, 0644, tmp_pub, sizeof(tmp_pub)) < 0) {
		saved = errno;
		unlink(tmp_priv);
		sb_errorf(err, "cannot write public key file '%s': %s", pub, strerror(saved));
		goto out;
	}
	if (link(tmp_priv, path) < 0) {
		saved = errno;
		unlink(tmp_priv);
		unlink(tmp_pub);
		if (saved == EEXIST)
			sb_error_set(err, SB_ERR_INPUT, "key file '%s' already exists; refusing to "
				     "overwrite it (remove it first, or choose another name)", path);
		else
			sb_errorf(err, "cannot create key file '%s': %s", path, strerror(saved));
		goto out;
	}
	if (link(tmp_pub, pub) < 0) {
		saved = errno;
		unlink(path); /* ours: linked just above */
		unlink(tmp_priv);
		unlink(tmp_pub);
		if (saved == EEXIST)
			sb_error_set(err, SB_ERR_INPUT, "public key file '%s' already exists; refusing "
				     "to overwrite it (remove it first, or choose another name)", pub);
		else
			sb_errorf(err, "cannot create public key file '%s': %s", pub, strerror(saved));
		goto out;
	}
	unlink(tmp_priv);
	unlink(tmp_pub);
	sync_dir_of(path);
	rc = 0;
out:
	if (priv_pem != NULL) {
		OPENSSL_cleanse(priv_pem, priv_len);
		free(priv_pem);
	}
	free(pub_pem);
	EVP_PKEY_free(pkey);
	EVP_PKEY_CTX_free(ctx);
	return rc;
}
