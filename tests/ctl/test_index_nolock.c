/* The local index on a file system without fcntl locks (NFS without lockd:
 * fcntl fails with ENOLCK, which SQLite would take for "busy" and retry for
 * its whole busy timeout): sb_index_open fails at once with a message that
 * says what is wrong and what to do.  fcntl is wrapped at link time
 * (-Wl,--wrap=fcntl) to fail the way such a file system does. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/index_private.h"

int __real_fcntl(int fd, int cmd, ...);
int __wrap_fcntl(int fd, int cmd, ...);
int __real_fcntl64(int fd, int cmd, ...);
int __wrap_fcntl64(int fd, int cmd, ...);

static int wrapped(int fd, int cmd, void *arg, int is64)
{
	if (cmd == F_GETLK || cmd == F_SETLK || cmd == F_SETLKW) {
		errno = ENOLCK;
		return -1;
	}
	return is64 ? __real_fcntl64(fd, cmd, arg) : __real_fcntl(fd, cmd, arg);
}

int __wrap_fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return wrapped(fd, cmd, arg, 0);
}

int __wrap_fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return wrapped(fd, cmd, arg, 1);
}

static void test_no_locks_fails_at_once(void **state)
{
	char dir[64] = "/tmp/sb-nolock.XXXXXX", path[128], cmd[128];
	struct sb_error err;
	struct timespec a, b;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/index.sqlite", dir);
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_null(sb_index_open(path, NULL, &err));
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true(b.tv_sec - a.tv_sec < 3);
	assert_non_null(strstr(err.msg, "its file system gives no fcntl locks"));
	assert_non_null(strstr(err.msg, "put the index on a local disk (SB_INDEX or XDG_STATE_HOME)"));
	assert_non_null(strstr(err.msg, path));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_locks_fails_at_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
