/* Benchmark-directory file helpers: atomic writes, bounded reads, locks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fsutil.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sb-fsutil.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static char *join(const char *name)
{
	static char buf[256];
	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static int count_entries(void)
{
	char cmd[128];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	if (fscanf(p, "%d", &n) != 1)
		n = -1;
	pclose(p);
	return n;
}

static void test_atomic_write_and_read(void **state)
{
	struct sb_error err;
	struct stat st;
	char *data;
	size_t len;

	(void)state;
	assert_int_equal(sb_fs_write_atomic(join("a"), "hello", 5, 0640, 1, &err), 0);
	assert_int_equal(stat(join("a"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(sb_fs_read_file(join("a"), 100, &data, &len, &err), 0);
	assert_int_equal(len, 5);
	assert_string_equal(data, "hello");
	free(data);

	/* exclusive: refused, the old content is kept, no temporary left */
	assert_int_equal(sb_fs_write_atomic(join("a"), "other", 5, 0640, 1, &err), -1);
	assert_non_null(strstr(err.msg, "File exists"));
	assert_int_equal(sb_fs_read_file(join("a"), 100, &data, &len, &err), 0);
	assert_string_equal(data, "hello");
	free(data);
	assert_int_equal(count_entries(), 1);

	/* not exclusive: replaced */
	assert_int_equal(sb_fs_write_atomic(join("a"), "bye", 3, 0640, 0, &err), 0);
	assert_int_equal(sb_fs_read_file(join("a"), 100, &data, &len, &err), 0);
	assert_string_equal(data, "bye");
	free(data);
	assert_int_equal(count_entries(), 1);
}

static void test_atomic_write_failure_leaves_nothing(void **state)
{
	struct sb_error err;

	(void)state;
	assert_int_equal(sb_fs_write_atomic(join("missing/a"), "x", 1, 0600, 0, &err), -1);
	assert_non_null(strstr(err.msg, "missing/a.tmp"));
	assert_int_equal(count_entries(), 0);
}

static void test_read_limit(void **state)
{
	struct sb_error err;
	char *data;
	size_t len;

	(void)state;
	assert_int_equal(sb_fs_write_atomic(join("big"), "0123456789", 10, 0600, 1, &err), 0);
	assert_int_equal(sb_fs_read_file(join("big"), 9, &data, &len, &err), -1);
	assert_non_null(strstr(err.msg, "10 bytes, more than the limit of 9"));
	assert_int_equal(sb_fs_read_file(dir, 9, &data, &len, &err), -1);
	assert_non_null(strstr(err.msg, "not a regular file"));
	assert_int_equal(sb_fs_read_file(join("nope"), 9, &data, &len, &err), -1);
	assert_non_null(strstr(err.msg, "No such file"));
}

static void test_mkdirs_and_ownership(void **state)
{
	struct sb_error err;

	(void)state;
	assert_int_equal(sb_fs_mkdirs(join("x/y/z"), 0755, &err), 0);
	assert_int_equal(sb_fs_mkdirs(join("x/y/z"), 0755, &err), 0);
	assert_int_equal(sb_fs_check_owned(join("x/y/z"), "benchmark directory", &err), 0);
	chmod(join("x/y/z"), 0775);
	assert_int_equal(sb_fs_check_owned(join("x/y/z"), "benchmark directory", &err), -1);
	assert_non_null(strstr(err.msg, "writable by group or others"));
	if (geteuid() == 0) {
		chmod(join("x/y/z"), 0755);
		assert_int_equal(chown(join("x/y/z"), 65534, 65534), 0);
		assert_int_equal(sb_fs_check_owned(join("x/y/z"), "benchmark directory", &err), -1);
		assert_non_null(strstr(err.msg, "owned by uid 65534"));
	}
}

static void test_lock_is_exclusive_across_processes(void **state)
{
	struct sb_error err;
	int sync_pipe[2], status;
	pid_t child;
	char c;

	(void)state;
	assert_int_equal(pipe(sync_pipe), 0);
	child = fork();
	if (child == 0) {
		int fd = sb_fs_lock(join("lock"), NULL);
		if (fd < 0 || write(sync_pipe[1], "x", 1) != 1)
			_exit(1);
		sleep(30); /* killed by the parent */
		_exit(0);
	}
	assert_int_equal(read(sync_pipe[0], &c, 1), 1);
	{
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		int fd = open(join("lock"), O_RDWR);
		assert_true(fd >= 0);
		assert_int_equal(fcntl(fd, F_GETLK, &fl), 0);
		assert_int_equal(fl.l_type, F_WRLCK);
		assert_int_equal(fl.l_pid, child);
		close(fd);
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	{
		int fd = sb_fs_lock(join("lock"), &err);
		assert_true(fd >= 0);
		close(fd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_atomic_write_and_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_write_failure_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdirs_and_ownership, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_is_exclusive_across_processes, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
