/* The SHA-256 of a declared result file as status checks it, for a
 * benchmark's own results (ctl/status/status_logs.c) and reused ones
 * (ctl/submit/reuse.c): from the local index's cache while the file's size,
 * times and inode are unchanged, else hashed again. */
#ifndef SB_CTL_RESULTHASH_H
#define SB_CTL_RESULTHASH_H

#include <stdbool.h>

#include "sbench/error.h"

struct sb_index;

/* Hashes the result at path (opened without following a symbolic link,
 * EINTR retried) into hex (64 lowercase digits and a NUL).  idx may be
 * NULL (no cache); rehash ignores the cache (and refreshes it).
 *   0   hashed
 *   1   it is not there any more as a regular file (gone, replaced by a
 *       link or a directory, or changed while it was hashed): evidence
 *       that changed
 *   -1  it cannot be read (EIO, EACCES, EMFILE...): no verdict can rest
 *       on it, err says why */
int sb_result_hash(const char *path, struct sb_index *idx, bool rehash, char hex[65],
		   struct sb_error *err);

#endif
