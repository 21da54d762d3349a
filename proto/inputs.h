/* A child's input files (docs/spec.md, "Inputs"): the files next to the
 * spec that its command names as "{spec_dir}/PATH", and those the spec's
 * `inputs` key lists.  sbctl hashes them at submit (their digests enter the
 * child digest) and sbagent hashes them again when the job starts (their
 * digests go into the signed start record), with the same rules, here. */
#ifndef SB_PROTO_INPUTS_H
#define SB_PROTO_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "sbench/error.h"

#define SB_INPUTS_REF "{spec_dir}/"
#define SB_INPUTS_MAX_FILES 4096                  /* input files of one child */
#define SB_INPUTS_MAX_BYTES (64ull * 1024 * 1024) /* their bytes together */
#define SB_INPUTS_MAX_PATH 1024                   /* bytes of one relative path */

/* The next "{spec_dir}/PATH" in s[0..len) from *pos: 1 with the PATH
 * text in *path, *plen (possibly empty) and *pos past it; 0 when there is
 * none.  PATH runs to the end of s or to the first white space, quote or
 * one of ` $ ; & | < > ( ) , : = (a shell operator or a list separator). */
int sb_inputs_next(const char *s, size_t len, size_t *pos, const char **path, size_t *plen);

/* PATH as a clean relative path in out: "." components and repeated '/'
 * dropped, ".." taken back lexically.  -1 when it is empty, leaves the
 * directory (with allow_up false; with it true, leading ".." stay),
 * contains a NUL or a control character, or needs size bytes or more. */
int sb_inputs_norm(const char *path, size_t len, int allow_up, char *out, size_t size);

/* SHA-256 of the regular file dir/rel, opened without blocking (a FIFO
 * never hangs it) and following links.  0 with the digest and *size; 1
 * when it is absent or not a regular file (err says "missing" or "not a
 * regular file"); -1 when it is larger than max bytes or cannot be read
 * (err says why, naming no path). */
int sb_inputs_hash(const char *dir, const char *rel, uint64_t max, uint8_t out[32],
		   uint64_t *size, struct sb_error *err);

#endif
