/* enospc_shim.so: LD_PRELOAD it to make write, pwrite, fsync and fdatasync
 * fail with ENOSPC on the files under $SB_ENOSPC_DIR (a canonical path),
 * as a full disk would: the disk-full test where no tmpfs can be mounted
 * (tests/e2e/test_status_diskfull.sh).  Not installed. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int full(int fd)
{
	const char *dir = getenv("SB_ENOSPC_DIR");
	char link[64], path[PATH_MAX];
	size_t len;
	ssize_t n;

	if (dir == NULL || dir[0] == '\0')
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return 0;
	path[n] = '\0';
	len = strlen(dir);
	return strncmp(path, dir, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef int (*sync_fn)(int);

/* the libc function the shim stands in front of */
#define REAL(name, type) \
	static type real_##name; \
	if (real_##name == NULL) \
		*(void **)&real_##name = dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t n)
{
	REAL(write, write_fn);
	if (full(fd)) {
		errno = ENOSPC;
		return -1;
	}
	return real_write(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	REAL(pwrite, pwrite_fn);
	if (full(fd)) {
		errno = ENOSPC;
		return -1;
	}
	return real_pwrite(fd, buf, n, off);
}

int fsync(int fd)
{
	REAL(fsync, sync_fn);
	if (full(fd)) {
		errno = ENOSPC;
		return -1;
	}
	return real_fsync(fd);
}

int fdatasync(int fd)
{
	REAL(fdatasync, sync_fn);
	if (full(fd)) {
		errno = ENOSPC;
		return -1;
	}
	return real_fdatasync(fd);
}
