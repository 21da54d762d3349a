/* Benchmark-directory file helpers: atomic writes, bounded reads, the
 * kind of file system. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
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

static void test_shared_file_systems(void **state)
{
	const char *name = NULL;

	(void)state;
	/* tmpfs is local; a path not made yet is judged by its parent */
	if (sb_fs_shared("/dev/shm", &name) == false) {
		assert_string_equal(name, "tmpfs");
		assert_false(sb_fs_shared("/dev/shm/not/made/yet", &name));
		assert_string_equal(name, "tmpfs");
	}
	/* a type not known to be local (proc) is taken as shared, named */
	assert_true(sb_fs_shared("/proc/self", &name));
	assert_string_equal(name, "unknown 0x9fa0");
	assert_true(sb_fs_shared("/proc/self", NULL));
}

static void test_reveal(void **state)
{
	struct stat st;
	int fd;

	(void)state;
	/* absent on the server too: 0, and the question leaves no file */
	assert_int_equal(sb_fs_reveal(join("absent")), 0);
	assert_int_equal(count_entries(), 0);
	/* there: 1, its bytes and mode untouched */
	fd = open(join("key"), O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	close(fd);
	assert_int_equal(sb_fs_reveal(join("key")), 1);
	assert_int_equal(stat(join("key"), &st), 0);
	assert_int_equal(st.st_size, 10);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* a directory or a symbolic link is no file: -1, nothing made */
	assert_int_equal(mkdir(join("d"), 0755), 0);
	assert_int_equal(sb_fs_reveal(join("d")), -1);
	assert_int_equal(symlink("absent-target", join("link")), 0);
	assert_int_equal(sb_fs_reveal(join("link")), -1);
	assert_int_equal(count_entries(), 3);
	/* a parent that is not there: -1 (ENOENT) */
	assert_int_equal(sb_fs_reveal(join("no/such")), -1);
	assert_int_equal(errno, ENOENT);
}

static void tidied(const char *in, const char *want)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s", in);
	sb_fs_tidy_path(buf);
	assert_string_equal(buf, want);
}

static void test_tidy_path(void **state)
{
	(void)state;
	tidied("/tmp/sm/./sbench-runs/x-1", "/tmp/sm/sbench-runs/x-1");
	tidied("/a//b///c/", "/a/b/c");
	tidied("./x/./y/.", "x/y");
	tidied("/./", "/");
	tidied("/", "/");
	tidied(".", ".");
	tidied("./", ".");
	tidied("a/../b", "a/../b");
	tidied("/a/.b/..c/.", "/a/.b/..c");
	tidied("", ".");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_atomic_write_and_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_write_failure_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdirs_and_ownership, setup, teardown),
		cmocka_unit_test(test_shared_file_systems),
		cmocka_unit_test_setup_teardown(test_reveal, setup, teardown),
		cmocka_unit_test(test_tidy_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
