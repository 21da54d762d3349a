/* File-system helpers for the benchmark directory on shared storage
 * (docs/benchmark-dir.md): atomic writes, fcntl locks, ownership checks. */
#ifndef SB_CTL_FSUTIL_H
#define SB_CTL_FSUTIL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "sbench/error.h"

/* Writes data to path atomically: a temporary file beside it
 * (<path>.tmp.<pid>, O_EXCL, mode), one write loop, fsync, rename over path,
 * fsync of the directory.  With exclusive set, an existing path is refused
 * (link(2) instead of rename).  On failure nothing is left behind (unless
 * the process dies first: then <path>.tmp.<pid> stays) and an existing path
 * is unchanged.  Every step is tried again after EINTR (a rename or link
 * whose retry finds the work done checks that path is the temporary file). */
int sb_fs_write_atomic(const char *path, const void *data, size_t len,
		       mode_t mode, int exclusive, struct sb_error *err);

/* rename(2), again after an EINTR (a retry that finds from gone checks
 * that to is what from was).  Neither directory is synced. */
int sb_fs_rename(const char *from, const char *to, struct sb_error *err);

/* fsync of a directory (its entries: files created, renamed, removed). */
int sb_fs_sync_dir(const char *path, struct sb_error *err);

/* Removes path and, when it is a directory, everything in it (symbolic
 * links are removed, never followed).  A path that does not exist is
 * fine. */
int sb_fs_remove_tree(const char *path, struct sb_error *err);

/* The regular file at path opened for reading, as a stream: NULL (errno
 * EINVAL) for anything else, a FIFO included, which is never waited on. */
FILE *sb_fs_fopen_regular(const char *path);

/* Reads a whole regular file of at most max bytes.  *data is NUL-terminated
 * (not counted in *len); the caller frees it. */
int sb_fs_read_file(const char *path, size_t max, char **data, size_t *len,
		    struct sb_error *err);

/* Creates path and its missing parents with mode (existing directories are
 * fine). */
int sb_fs_mkdirs(const char *path, mode_t mode, struct sb_error *err);

/* Refuses (-1) a path not owned by the effective user, or writable by group
 * or others; what names the object in the message ("benchmark directory"). */
int sb_fs_check_owned(const char *path, const char *what, struct sb_error *err);

/* Takes an exclusive fcntl (POSIX record) lock on path, created if needed,
 * waiting for it (flock is local-only on some Lustre and NFS mounts).
 * ENOLCK/ENOSYS is a clear error, never a silent pass.  Returns the fd
 * holding the lock (close it to release), or -1. */
int sb_fs_lock(const char *path, struct sb_error *err);

#endif
