#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "proto/util.h"

/* Runs call (an expression that sets rc) again while it fails with EINTR.
 * Only for calls that have no effect when they fail with EINTR, or whose
 * effect a repetition leaves the same (open without O_EXCL, fsync, mkdir
 * whose EEXIST the caller accepts). */
#define RETRY_EINTR(rc, call) \
	do { \
		int intr_ = 0; \
		while (((rc) = (call)) < 0 && errno == EINTR && ++intr_ < SB_EINTR_MAX) \
			; \
	} while (0)


static int fsync_fd(int fd)
{
	int rc;

	RETRY_EINTR(rc, fsync(fd));
	return rc;
}

static int open_dir(const char *path)
{
	int fd;

	RETRY_EINTR(fd, open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	return fd;
}

int sb_fs_sync_dir(const char *path, struct sb_error *err)
{
	int fd = open_dir(path), e;

	if (fd < 0)
		return sb_errorf(err, "cannot open directory '%s' to sync it: %s", path, strerror(errno));
	if (fsync_fd(fd) < 0) {
		e = errno;
		close(fd);
		return sb_errorf(err, "cannot sync directory '%s': %s", path, strerror(e));
	}
	close(fd);
	return 0;
}

static int fsync_dir_of(const char *path)
{
	char copy[PATH_MAX];
	int fd, rc;

	if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open_dir(dirname(copy));
	if (fd < 0)
		return -1;
	rc = fsync_fd(fd);
	close(fd);
	return rc;
}

/* 1 when path is the file tmp_st describes (same device and inode). */
static int is_same_file(const char *path, const struct stat *tmp_st)
{
	struct stat st;

	return lstat(path, &st) == 0 && st.st_dev == tmp_st->st_dev && st.st_ino == tmp_st->st_ino;
}

/* rename(tmp, path) or link(tmp, path), again after an EINTR.  A retry
 * that finds the work done (tmp gone, or path already there) checks that
 * path is tmp's file: then the interrupted call did it. */
static int put_in_place(const char *tmp, const char *path, const struct stat *tmp_st, int exclusive)
{
	int intr = 0;

	for (;;) {
		int rc = exclusive ? link(tmp, path) : rename(tmp, path);
		if (rc == 0)
			return 0;
		if (errno != EINTR) {
			int e = errno;
			if (intr > 0 && (e == ENOENT || e == EEXIST) && is_same_file(path, tmp_st))
				return 0;
			errno = e;
			return -1;
		}
		if (++intr >= SB_EINTR_MAX)
			return -1;
	}
}

int sb_fs_write_atomic(const char *path, const void *data, size_t len,
		       mode_t mode, int exclusive, struct sb_error *err)
{
	char tmp[PATH_MAX];
	struct stat tmp_st;
	int fd, e;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
		return sb_errorf(err, "cannot write '%s': path too long", path);
	/* O_EXCL: a retry after an EINTR that had made the file after all
	 * meets EEXIST, an error; a file is never taken over */
	RETRY_EINTR(fd, open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
	if (fd < 0)
		return sb_errorf(err, "cannot create '%s': %s", tmp, strerror(errno));
	if (sb_write_all(NULL, fd, data, len) < 0 || fsync_fd(fd) < 0 || fstat(fd, &tmp_st) < 0) {
		e = errno;
		close(fd);
		unlink(tmp);
		return sb_errorf(err, "cannot write '%s': %s", tmp, strerror(e));
	}
	/* the data is synced: a close that says EINTR has still closed the
	 * file (Linux), nothing is lost */
	if (close(fd) < 0 && errno != EINTR) {
		e = errno;
		unlink(tmp);
		return sb_errorf(err, "cannot write '%s': close: %s", tmp, strerror(e));
	}
	if (put_in_place(tmp, path, &tmp_st, exclusive) < 0) {
		e = errno;
		unlink(tmp);
		return sb_errorf(err, "cannot %s '%s': %s", exclusive ? "create" : "replace", path,
				 strerror(e));
	}
	if (exclusive)
		unlink(tmp);
	if (fsync_dir_of(path) < 0)
		return sb_errorf(err, "cannot sync the directory of '%s': %s", path, strerror(errno));
	return 0;
}

int sb_fs_rename(const char *from, const char *to, struct sb_error *err)
{
	struct stat st;

	if (lstat(from, &st) < 0 || put_in_place(from, to, &st, 0) < 0)
		return sb_errorf(err, "cannot rename '%s' to '%s': %s", from, to, strerror(errno));
	return 0;
}

FILE *sb_fs_fopen_regular(const char *path)
{
	struct stat st;
	FILE *f;
	int fd;

	RETRY_EINTR(fd, open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 || (f = fdopen(fd, "r")) == NULL) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	return f;
}

int sb_fs_read_file(const char *path, size_t max, char **data, size_t *len,
		    struct sb_error *err)
{
	struct stat st;
	int fd, e;

	RETRY_EINTR(fd, open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
	if (fd < 0)
		return sb_errorf(err, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return sb_errorf(err, "cannot read '%s': not a regular file", path);
	}
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		return sb_errorf(err, "cannot read '%s': %lld bytes, more than the limit of %zu",
				 path, (long long)st.st_size, max);
	}
	e = sb_read_all(fd, max, (size_t)st.st_size, data, len) < 0 ? errno : 0;
	close(fd);
	if (e == EFBIG)
		return sb_errorf(err, "cannot read '%s': it grew past the limit of %zu bytes "
				 "while being read", path, max);
	if (e == ENOMEM)
		return sb_error_set(err, SB_ERR_NOMEM, "cannot read '%s': out of memory", path);
	if (e)
		return sb_errorf(err, "cannot read '%s': %s", path, strerror(e));
	return 0;
}

int sb_fs_mkdirs(const char *path, mode_t mode, struct sb_error *err)
{
	char copy[PATH_MAX];
	size_t i, n;
	int rc;

	n = (size_t)snprintf(copy, sizeof(copy), "%s", path);
	if (n >= sizeof(copy))
		return sb_errorf(err, "cannot create '%s': path too long", path);
	for (i = 1; i <= n; i++) {
		if (copy[i] != '/' && copy[i] != '\0')
			continue;
		copy[i] = '\0';
		RETRY_EINTR(rc, mkdir(copy, mode));
		if (rc < 0 && errno != EEXIST)
			return sb_errorf(err, "cannot create directory '%s': %s", copy, strerror(errno));
		copy[i] = i < n ? '/' : '\0';
	}
	return 0;
}

int sb_fs_check_owned(const char *path, const char *what, struct sb_error *err)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return sb_errorf(err, "cannot use %s '%s': %s", what, path, strerror(errno));
	if (st.st_uid != geteuid())
		return sb_errorf(err, "refusing %s '%s': owned by uid %ld, not by you (uid %ld)",
				 what, path, (long)st.st_uid, (long)geteuid());
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return sb_errorf(err, "refusing %s '%s': writable by group or others (chmod go-w '%s')",
				 what, path, path);
	return 0;
}

/* nftw: removes each entry after its contents (FTW_DEPTH), never following
 * a symbolic link (FTW_PHYS); the errno of the first failure stops it. */
static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	if (remove(path) < 0 && errno != ENOENT)
		return errno ? errno : EIO;
	return 0;
}

int sb_fs_remove_tree(const char *path, struct sb_error *err)
{
	struct stat st;
	int rc;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : sb_errorf(err, "cannot remove '%s': %s", path, strerror(errno));
	rc = nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (rc != 0)
		return sb_errorf(err, "cannot remove '%s': %s", path, strerror(rc > 0 ? rc : errno));
	return 0;
}

/* File system types by statfs(2)'s f_type (linux/magic.h and the vendors'
 * own): the ones known to be local, and the shared ones named. */
static const struct fs_type {
	unsigned long magic;
	const char *name;
	bool shared;
} fs_types[] = {
	{ 0xEF53, "ext4", false },          { 0x58465342, "xfs", false },
	{ 0x9123683E, "btrfs", false },     { 0x01021994, "tmpfs", false },
	{ 0x858458f6, "ramfs", false },     { 0x794c7630, "overlayfs", false },
	{ 0x2fc12fc1, "zfs", false },       { 0xF2F52010, "f2fs", false },
	{ 0x52654973, "reiserfs", false },  { 0x3153464a, "jfs", false },
	{ 0xca451a4e, "bcachefs", false },  { 0x3434, "nilfs", false },
	{ 0x4d44, "vfat", false },          { 0x2011BAB0, "exfat", false },
	{ 0x6969, "nfs", true },            { 0xFF534D42, "cifs", true },
	{ 0xFE534D42, "smb2", true },       { 0x517B, "smb", true },
	{ 0x65735546, "fuse", true },       { 0x0BD00BD0, "lustre", true },
	{ 0x47504653, "gpfs", true },       { 0x00C36400, "ceph", true },
	{ 0x01021997, "9p", true },         { 0x19830326, "beegfs", true },
	{ 0x5346414F, "afs", true },        { 0x7461636f, "ocfs2", true },
	{ 0x01161970, "gfs2", true },       { 0xAAD7AAEA, "panfs", true },
};

bool sb_fs_shared(const char *path, const char **name)
{
	static _Thread_local char unknown[32];
	struct statfs fs;
	char *p = strdup(path && *path ? path : "."), *slash;
	int rc = -1;

	/* a path not made yet: the file system of its nearest existing parent */
	while (p && (rc = statfs(p, &fs)) < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		if ((slash = strrchr(p, '/')) == NULL) {
			rc = statfs(".", &fs);
			break;
		}
		if (slash != p)
			*slash = '\0';
		else if (p[1] != '\0')
			p[1] = '\0';
		else
			break;
	}
	free(p);
	if (!p || rc < 0) {
		if (name)
			*name = "unknown (cannot be examined)";
		return true;
	}
	for (size_t i = 0; i < sizeof(fs_types) / sizeof(fs_types[0]); i++)
		if ((unsigned long)fs.f_type == fs_types[i].magic) {
			if (name)
				*name = fs_types[i].name;
			return fs_types[i].shared;
		}
	snprintf(unknown, sizeof(unknown), "unknown 0x%lx", (unsigned long)fs.f_type);
	if (name)
		*name = unknown;
	return true;
}

int sb_fs_reveal(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd >= 0) {
		close(fd);
		(void)unlink(path);
		return 0;
	}
	if (errno != EEXIST)
		return -1;
	fd = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0600);
	if (fd < 0)
		return -1;
	close(fd);
	return 1;
}

void sb_fs_tidy_path(char *path)
{
	const char *r = path;
	char *w = path;
	int abs = path[0] == '/';

	while (*r) {
		const char *end;
		size_t len;

		while (*r == '/')
			r++;
		end = strchrnul(r, '/');
		len = (size_t)(end - r);
		if (len == 0 || (len == 1 && r[0] == '.')) {
			r = end;
			continue;
		}
		if (w > path || abs)
			*w++ = '/';
		memmove(w, r, len);
		w += len;
		r = end;
	}
	if (w == path)
		*w++ = abs ? '/' : '.';
	*w = '\0';
}
