#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/fsutil.h"

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
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
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

int sb_fs_write_atomic(const char *path, const void *data, size_t len,
		       mode_t mode, int exclusive, struct sb_error *err)
{
	char tmp[PATH_MAX];
	int fd, e;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
		return sb_errorf(err, "cannot write '%s': path too long", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return sb_errorf(err, "cannot create '%s': %s", tmp, strerror(errno));
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		e = errno;
		close(fd);
		unlink(tmp);
		return sb_errorf(err, "cannot write '%s': %s", tmp, strerror(e));
	}
	if (close(fd) < 0) {
		e = errno;
		unlink(tmp);
		return sb_errorf(err, "cannot write '%s': close: %s", tmp, strerror(e));
	}
	if (exclusive) {
		if (link(tmp, path) < 0) {
			e = errno;
			unlink(tmp);
			return sb_errorf(err, "cannot create '%s': %s", path, strerror(e));
		}
		unlink(tmp);
	} else if (rename(tmp, path) < 0) {
		e = errno;
		unlink(tmp);
		return sb_errorf(err, "cannot replace '%s': %s", path, strerror(e));
	}
	if (fsync_dir_of(path) < 0)
		return sb_errorf(err, "cannot sync the directory of '%s': %s", path, strerror(errno));
	return 0;
}

int sb_fs_read_file(const char *path, size_t max, char **data, size_t *len,
		    struct sb_error *err)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

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
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		close(fd);
		return sb_errorf(err, "cannot read '%s': out of memory", path);
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return sb_errorf(err, "cannot read '%s': %s", path, strerror(e));
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*data = buf;
	*len = got;
	return 0;
}

int sb_fs_mkdirs(const char *path, mode_t mode, struct sb_error *err)
{
	char copy[PATH_MAX];
	size_t i, n;

	n = (size_t)snprintf(copy, sizeof(copy), "%s", path);
	if (n >= sizeof(copy))
		return sb_errorf(err, "cannot create '%s': path too long", path);
	for (i = 1; i <= n; i++) {
		if (copy[i] != '/' && copy[i] != '\0')
			continue;
		copy[i] = '\0';
		if (mkdir(copy, mode) < 0 && errno != EEXIST)
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

int sb_fs_lock(const char *path, struct sb_error *err)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return sb_errorf(err, "cannot open lock file '%s': %s", path, strerror(errno));
	while (fcntl(fd, F_SETLKW, &fl) < 0) {
		int e = errno;
		if (e == EINTR)
			continue;
		close(fd);
		if (e == ENOLCK || e == ENOSYS)
			return sb_errorf(err, "cannot lock '%s': %s: this file system does not support "
					 "fcntl locks (mount NFS with lock support, or Lustre with -o flock)",
					 path, strerror(e));
		return sb_errorf(err, "cannot lock '%s': %s", path, strerror(e));
	}
	return fd;
}
