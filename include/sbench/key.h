/* sbench — HMAC key files (and Ed25519 key pairs for signed bundles).
 *
 * A key file holds exactly SB_KEY_LEN random bytes, mode 0600, owned by the
 * user.  The key is read from its file (O_NOFOLLOW, then fstat) and is never
 * passed on a command line or in the environment. */
#ifndef SBENCH_KEY_H
#define SBENCH_KEY_H

#include <stdint.h>

#include "sbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_KEY_LEN 32
#define SB_KEY_ID_LEN 16 /* hex characters of the key id */

struct sb_key {
	uint8_t bytes[SB_KEY_LEN];
	/* Lowercase hex of the first 8 bytes of SHA-256("sbench-key-id" || key):
	 * names the key in start records without revealing it. */
	char id[SB_KEY_ID_LEN + 1];
};

/* Writes a new random key to path with mode 0600; refuses (-1) to overwrite
 * an existing file or to follow a symlink (errno is then EEXIST or ELOOP). */
int sb_key_generate_file(const char *path, struct sb_error *err);

/* Writes a new Ed25519 key pair, as `openssl genpkey -algorithm ed25519`
 * would: the private key to path (PEM, PKCS#8, mode 0600) and its public
 * key to path ".pub" (PEM, SubjectPublicKeyInfo, mode 0644).  Each is
 * written to a temporary file beside it, synced, and linked to its name,
 * so that neither ever appears half written.  Refuses (-1, SB_ERR_INPUT) when
 * either name exists already, even as a dangling symbolic link; on any
 * failure neither file is left behind.  These keys sign bundles (sbctl
 * export), not event logs. */
int sb_key_generate_ed25519(const char *path, struct sb_error *err);

/* Loads a key.  Refuses, each with its own message: a symlink, a file that is
 * not a regular file, not owned by the effective user, with any group or
 * other permission bit, or not exactly SB_KEY_LEN bytes long. */
int sb_key_load(const char *path, struct sb_key *key, struct sb_error *err);

/* Fills key from SB_KEY_LEN raw bytes and computes its id (for tests and
 * for callers that hold the bytes already). */
void sb_key_from_bytes(struct sb_key *key, const uint8_t bytes[SB_KEY_LEN]);

/* Wipes the key from memory (OPENSSL_cleanse).  Accepts NULL. */
void sb_key_cleanse(struct sb_key *key);

#ifdef __cplusplus
}
#endif

#endif
