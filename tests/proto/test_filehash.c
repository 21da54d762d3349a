/* proto/filehash: the SHA-256 of a file through its descriptor, in chunks,
 * with the callback between chunks and the checks that size and hash
 * describe the same bytes. */
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

#include "proto/filehash.h"
#include "proto/util.h"

static char path[] = "/tmp/sbtest-filehash-XXXXXX";
static int fd = -1;

static int setup(void **state)
{
	(void)state;
	fd = mkstemp(path);
	return fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	close(fd);
	unlink(path);
	return 0;
}

/* Sets the file to n bytes of 'a'. */
static void fill(size_t n)
{
	char *p = malloc(n + 1);

	assert_non_null(p);
	memset(p, 'a', n);
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, p, n, 0), (ssize_t)n);
	free(p);
}

static int hash_hex(sb_filehash_between between, void *arg, char hex[65],
	struct sb_error *err)
{
	uint8_t md[SB_FILEHASH_LEN];
	struct stat st;
	int rc;

	assert_int_equal(fstat(fd, &st), 0);
	rc = sb_filehash_fd(fd, &st, between, arg, md, err);
	if (rc == 0)
		sb_hex_encode(md, sizeof(md), hex);
	return rc;
}

static void test_known_digests(void **state)
{
	struct sb_error err;
	char hex[65];

	(void)state;
	fill(0);
	assert_int_equal(hash_hex(NULL, NULL, hex, &err), 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	fill(3);
	assert_int_equal(hash_hex(NULL, NULL, hex, NULL), 0);
	assert_string_equal(hex, "9834876dcfb05cb167a5c24953eba58c4ac89b1adf57f28f2f9d09af107ee8f0");
	/* a million 'a': the FIPS 180-2 test vector, in one chunk */
	fill(1000000);
	assert_int_equal(hash_hex(NULL, NULL, hex, &err), 0);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

enum what { COUNT, STOP, GROW, SHRINK };
struct hook {
	enum what what;
	int calls;
	uint64_t last_done, size;
};

static int hook(void *arg, uint64_t done, uint64_t size)
{
	struct hook *h = arg;

	h->calls++;
	h->last_done = done;
	h->size = size;
	switch (h->what) {
	case STOP:
		return 1;
	case GROW:
		if (h->calls == 1)
			assert_int_equal(pwrite(fd, "x", 1, (off_t)size), 1);
		return 0;
	case SHRINK:
		if (h->calls == 1)
			assert_int_equal(ftruncate(fd, (off_t)done), 0);
		return 0;
	default:
		return 0;
	}
}

static void test_chunks_and_callback(void **state)
{
	struct hook h = { COUNT, 0, 0, 0 };
	struct sb_error err;
	char hex[65];

	(void)state;
	fill(2 * SB_FILEHASH_CHUNK + 5);
	assert_int_equal(hash_hex(hook, &h, hex, &err), 0);
	assert_int_equal(h.calls, 3);      /* after each chunk, the last included */
	assert_true(h.last_done == 2 * SB_FILEHASH_CHUNK + 5 && h.size == h.last_done);
	/* a stop after the last chunk is no stop: the file is hashed */
	h = (struct hook){ STOP, 0, 0, 0 };
	fill(10);
	assert_int_equal(hash_hex(hook, &h, hex, &err), 0);
	/* before it, the hashing stops */
	fill(SB_FILEHASH_CHUNK + 1);
	h = (struct hook){ STOP, 0, 0, 0 };
	assert_int_equal(hash_hex(hook, &h, hex, &err), 1);
	assert_int_equal(h.calls, 1);
}

static void test_changed_while_hashed(void **state)
{
	struct hook h = { GROW, 0, 0, 0 };
	struct sb_error err;
	char hex[65];

	(void)state;
	fill(2 * SB_FILEHASH_CHUNK);
	assert_int_equal(hash_hex(hook, &h, hex, &err), -1);
	assert_string_equal(err.msg, "changed while it was hashed (size or mtime moved)");
	fill(2 * SB_FILEHASH_CHUNK);
	h = (struct hook){ SHRINK, 0, 0, 0 };
	assert_int_equal(hash_hex(hook, &h, hex, &err), -1);
	assert_string_equal(err.msg, "changed while it was hashed (it shrank)");
	fill(2 * SB_FILEHASH_CHUNK);
	h = (struct hook){ SHRINK, 0, 0, 0 };
	assert_int_equal(hash_hex(hook, &h, hex, NULL), -1); /* err is optional */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_digests),
		cmocka_unit_test(test_chunks_and_callback),
		cmocka_unit_test(test_changed_while_hashed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
