/* An LD_PRELOAD shim for the sbagent fault tests (agent_faults.sh): fails
 * chosen write(2) or fdatasync(2) calls on one file, for a dynamically
 * linked sbagent (agent_fault_sbagent; the installed sbagent is static).
 *
 *   SBF_PATH   the calls on descriptors whose file name contains this
 *   SBF_OP     write | fdatasync
 *   SBF_NTH    the first failing call, counting matching calls from 1
 *   SBF_TIMES  how many calls from there fail (default 1; -1: all)
 *   SBF_ERRNO  ENOSPC | EIO | EINTR | SHORT (write only: half the bytes) |
 *              FULL (a disk that fills: the first failing write writes half
 *              its bytes, the last free space, and the later ones fail with
 *              ENOSPC, as on a full tmpfs)
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long counter;

static int matches(int fd, const char *op)
{
	const char *want = getenv("SBF_OP"), *path = getenv("SBF_PATH");
	char link[64], name[4096];
	ssize_t n;

	if (want == NULL || path == NULL || strcmp(want, op) != 0 || fd < 3)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, name, sizeof(name) - 1);
	if (n <= 0)
		return 0;
	name[n] = '\0';
	return strstr(name, path) != NULL;
}

/* 0: pass the call through; else the errno to fail with (-1: short). */
static int fault(int fd, const char *op)
{
	const char *nth = getenv("SBF_NTH"), *times = getenv("SBF_TIMES");
	const char *e = getenv("SBF_ERRNO");
	long first, count, k;

	if (!matches(fd, op))
		return 0;
	k = ++counter;
	first = nth ? atol(nth) : 1;
	count = times ? atol(times) : 1;
	if (k < first || (count >= 0 && k >= first + count))
		return 0;
	if (e == NULL || !strcmp(e, "EIO"))
		return EIO;
	if (!strcmp(e, "ENOSPC"))
		return ENOSPC;
	if (!strcmp(e, "EINTR"))
		return EINTR;
	if (!strcmp(e, "FULL") && k > first)
		return ENOSPC;
	return -1;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	int f;

	if (real == NULL)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	f = fault(fd, "write");
	if (f == -1)
		return real(fd, buf, n > 1 ? n / 2 : n);
	if (f != 0) {
		errno = f;
		return -1;
	}
	return real(fd, buf, n);
}

int fdatasync(int fd)
{
	static int (*real)(int);
	int f;

	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	f = fault(fd, "fdatasync");
	if (f > 0) {
		errno = f;
		return -1;
	}
	return real(fd);
}
