/* SHA-256 of a regular file read through an open descriptor: the one hasher
 * of result files, used by sbagent when it records them at finish and by
 * sbctl status when it checks them again.  The size it hashes is the size
 * of one fstat, and the file must keep that size and mtime to the end, so
 * that a size and a hash always describe the same bytes. */
#ifndef SB_PROTO_FILEHASH_H
#define SB_PROTO_FILEHASH_H

#include <stdint.h>
#include <sys/stat.h>

#include "sbench/error.h"

#define SB_FILEHASH_LEN 32
#define SB_FILEHASH_CHUNK (1u << 20)   /* bytes read per chunk at most */

/* Asked after each chunk with the bytes hashed so far of size: non-zero
 * stops the hashing (sbagent: a termination signal's budget is too short
 * for the rest).  It may do other work in between (read signals). */
typedef int (*sb_filehash_between)(void *arg, uint64_t done, uint64_t size);

/* Hashes the st->st_size bytes of fd from offset 0 in chunks, st being an
 * fstat of fd taken before (a regular file).  between may be NULL.  Returns
 * 0 with the digest in out; 1 when between stopped it; -1 with a message
 * that names no path ("read failed: ...", "changed while it was hashed (it
 * shrank)", "changed while it was hashed (size or mtime moved)": an fstat
 * after the last chunk found another size or mtime, "cannot stat: ...",
 * "sha-256 unavailable", "out of memory"). */
int sb_filehash_fd(int fd, const struct stat *st, sb_filehash_between between,
	void *arg, uint8_t out[SB_FILEHASH_LEN], struct sb_error *err);

#endif
