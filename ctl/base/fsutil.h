/* File-system helpers for the benchmark directory on shared storage
 * (docs/benchmark-dir.md): atomic writes, fcntl locks, ownership checks. */
#ifndef SB_CTL_FSUTIL_H
#define SB_CTL_FSUTIL_H

#include <stdbool.h>
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

/* Whether path is on a file system shared through a network, or one sbench
 * cannot tell is not (docs/shared-storage.md): NFS, Lustre, GPFS, CIFS,
 * Ceph, BeeGFS, 9p, FUSE (sshfs...) and any type not known to be local.
 * Its clients cache attributes, names and contents, so what another node
 * wrote may show late.  name (may be NULL) gets the type's name ("nfs",
 * "ext4", "unknown 0x1234abcd" in a static buffer).  A path that cannot be
 * examined is taken as shared. */
bool sb_fs_shared(const char *path, const char **name);

/* Asks the file server whether the regular file at path exists, when this
 * client said it does not: a network client may keep a name's absence
 * (NFS's lookup cache, FUSE's negative_timeout) for up to its timeout
 * after another node made the file.  An exclusive create goes to the
 * server: EEXIST means the file is there, and an open with O_CREAT (of a
 * file that exists: nothing is made) leaves this client its name.  When
 * the server has no such file either, the empty file the question made is
 * removed at once, so only call this where no other process creates the
 * file exclusively at the same moment (docs/shared-storage.md).
 * 1 the file shows now, 0 it does not exist, -1 (errno). */
int sb_fs_reveal(const char *path);

/* Tidies path in place, by its letters alone: "." components and repeated
 * or trailing slashes go ("/a/./b//c/" is "/a/b/c", "./x" is "x").  ".."
 * stays (what it means depends on symbolic links). */
void sb_fs_tidy_path(char *path);

#endif
