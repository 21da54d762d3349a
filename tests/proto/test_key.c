/* Key files: generation, loading, and one test per weakness refused. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sbench/key.h"

static char dir[] = "/tmp/sbtest-key-XXXXXX";

static const char *path(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_raw(const char *p, int len, mode_t mode)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char b[64] = { 7 };

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, (size_t)len), len);
	close(fd);
	assert_int_equal(chmod(p, mode), 0);
}

static void refused(const char *p, const char *needle)
{
	struct sb_key k;
	struct sb_error err = { 0 };

	assert_int_equal(sb_key_load(p, &k, &err), -1);
	if (strstr(err.msg, needle) == NULL)
		fail_msg("message '%s' lacks '%s'", err.msg, needle);
	assert_non_null(strstr(err.msg, p));
}

static void test_generate_and_load(void **state)
{
	struct sb_key a, b;
	struct sb_error err;
	struct stat st;
	uint8_t before[SB_KEY_LEN];
	int fd;

	(void)state;
	assert_int_equal(sb_key_generate_file(path("k1"), &err), 0);
	assert_int_equal(stat(path("k1"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, SB_KEY_LEN);
	assert_int_equal(sb_key_load(path("k1"), &a, &err), 0);
	assert_int_equal(strlen(a.id), SB_KEY_ID_LEN);
	/* a second key differs */
	assert_int_equal(sb_key_generate_file(path("k2"), &err), 0);
	assert_int_equal(sb_key_load(path("k2"), &b, &err), 0);
	assert_memory_not_equal(a.bytes, b.bytes, SB_KEY_LEN);
	assert_string_not_equal(a.id, b.id);
	/* never overwrites: the old key stays */
	memcpy(before, a.bytes, SB_KEY_LEN);
	errno = 0;
	assert_int_equal(sb_key_generate_file(path("k1"), &err), -1);
	assert_int_equal(errno, EEXIST);
	assert_non_null(strstr(err.msg, "already exists"));
	assert_int_equal(sb_key_load(path("k1"), &a, &err), 0);
	assert_memory_equal(a.bytes, before, SB_KEY_LEN);
	/* never follows a symlink */
	assert_int_equal(symlink(path("nowhere"), path("dangling")), 0);
	assert_int_equal(sb_key_generate_file(path("dangling"), &err), -1);
	fd = open(path("nowhere"), O_RDONLY);
	assert_int_equal(fd, -1);
	sb_key_cleanse(&a);
	for (size_t i = 0; i < SB_KEY_LEN; i++)
		assert_int_equal(a.bytes[i], 0);
	sb_key_cleanse(NULL);
}

static void test_key_id(void **state)
{
	struct sb_key k;
	uint8_t bytes[SB_KEY_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < SB_KEY_LEN; i++)
		bytes[i] = (uint8_t)i;
	sb_key_from_bytes(&k, bytes);
	/* first 8 bytes of SHA-256("sbench-key-id" || 00 01 .. 1f) */
	assert_string_equal(k.id, "2b6ead65e3424958");
}

static void test_weak_files(void **state)
{
	(void)state;
	write_raw(path("good"), SB_KEY_LEN, 0600);
	assert_int_equal(symlink(path("good"), path("link")), 0);
	refused(path("link"), "symbolic link");
	write_raw(path("group"), SB_KEY_LEN, 0640);
	refused(path("group"), "chmod 600");
	write_raw(path("other"), SB_KEY_LEN, 0604);
	refused(path("other"), "chmod 600");
	write_raw(path("gw"), SB_KEY_LEN, 0620);
	refused(path("gw"), "group or other");
	write_raw(path("short"), SB_KEY_LEN - 1, 0600);
	refused(path("short"), "31 bytes long, not 32");
	write_raw(path("long"), SB_KEY_LEN + 1, 0600);
	refused(path("long"), "33 bytes long");
	assert_int_equal(mkdir(path("dir"), 0700), 0);
	refused(path("dir"), "not a regular file");
	refused(path("absent"), "cannot open key file");
	if (geteuid() == 0) {
		write_raw(path("nobody"), SB_KEY_LEN, 0600);
		assert_int_equal(chown(path("nobody"), 65534, 65534), 0);
		refused(path("nobody"), "owned by uid 65534, not by you");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generate_and_load),
		cmocka_unit_test(test_key_id),
		cmocka_unit_test(test_weak_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
