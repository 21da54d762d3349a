/* The log reader when memory runs out: every allocation the reader makes
 * (its own, msgpack-c's zone, OpenSSL's) is failed in turn, and the answer
 * must be an error ("out of memory"), or, if the failure was absorbed, the
 * right verdict; never a tail class such as `corrupt` (tampering) or a
 * shorter verified prefix.  The allocations are failed by interposing
 * malloc, calloc and realloc in this executable (they forward to the next
 * definition, the C library's or a sanitizer's). */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/proto/testlog.h"

static long fail_at = -1; /* the allocation (counted from arming) to fail */
static long nallocs;
static int armed;

static int should_fail(void)
{
	if (!armed)
		return 0;
	if (nallocs++ == fail_at) {
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

/* While dlsym itself allocates (it should not), a bump arena answers. */
static char early[4096];
static size_t early_used;
static int resolving;

static void *early_alloc(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (early_used + n > sizeof(early))
		return NULL;
	p = early + early_used;
	early_used += n;
	return p;
}

static void *next(const char *name)
{
	void *f;

	resolving = 1;
	f = dlsym(RTLD_NEXT, name);
	resolving = 0;
	return f;
}

void *malloc(size_t n)
{
	static void *(*real)(size_t);

	if (real == NULL) {
		if (resolving)
			return early_alloc(n);
		real = (void *(*)(size_t))next("malloc");
	}
	return should_fail() ? NULL : real(n);
}

void *calloc(size_t k, size_t n)
{
	static void *(*real)(size_t, size_t);

	if (real == NULL) {
		if (resolving)
			return early_alloc(k * n); /* zero already */
		real = (void *(*)(size_t, size_t))next("calloc");
	}
	return should_fail() ? NULL : real(k, n);
}

void *realloc(void *p, size_t n)
{
	static void *(*real)(void *, size_t);

	if (real == NULL)
		real = (void *(*)(void *, size_t))next("realloc");
	return should_fail() ? NULL : real(p, n);
}

static struct sb_key key;

/* Reads buf with allocation number `at` failing; returns the result (or
 * NULL and err) and whether the failure was reached. */
static struct sb_log_result *read_failing(const uint8_t *buf, size_t len, long at,
	int *reached, struct sb_error *err)
{
	struct sb_log_verifier *v = sb_log_verifier_create(&key, err);
	struct sb_log_result *r;

	assert_non_null(v);
	nallocs = 0;
	fail_at = at;
	armed = 1;
	r = sb_log_read_buffer(v, buf, len, NULL, err);
	armed = 0;
	*reached = nallocs > at;
	sb_log_verifier_destroy(v);
	return r;
}

/* A log of n records, and the same with record 3's tag broken (bad_mac,
 * the rest decoded as unverified): each allocation failed in turn. */
static void each_allocation(const uint8_t *buf, size_t len, enum sb_log_tail want_tail,
	size_t want_verified, size_t want_count)
{
	struct sb_log_result *r;
	struct sb_error err;
	int reached = 1, errors = 0;
	long at;

	for (at = 0; reached && at < 100000; at++) {
		err.msg[0] = '\0';
		r = read_failing(buf, len, at, &reached, &err);
		if (r == NULL) {
			if (strstr(err.msg, "out of memory") == NULL &&
			    strstr(err.msg, "openssl") == NULL)
				fail_msg("allocation %ld failed: error '%s'", at, err.msg);
			errors++;
			continue;
		}
		if (sb_log_result_tail(r) != want_tail ||
		    sb_log_result_verified(r) != want_verified ||
		    sb_log_result_count(r) != want_count)
			fail_msg("allocation %ld failed: tail %s, %zu verified of %zu (%s)", at,
				sb_log_tail_name(sb_log_result_tail(r)), sb_log_result_verified(r),
				sb_log_result_count(r), sb_log_result_detail(r));
		sb_log_result_destroy(r);
	}
	assert_false(reached); /* the last run made every allocation it wanted */
	assert_true(errors > 0);
}

static void test_reader_oom(void **state)
{
	struct sb_run_ident id = sbt_ident(3, 1);
	size_t len, off[16];
	uint8_t *buf;

	(void)state;
	sbt_golden_key(&key);
	buf = sbt_craft_log(&key, &id, 6, 1700000000000000000LL, &len);
	assert_non_null(buf);
	each_allocation(buf, len, SB_LOG_TAIL_OK, 6, 6);
	assert_int_equal(sbt_frames(buf, len, off, 16), 6);
	buf[off[4] - 1] ^= 1; /* the tag of record 3 */
	each_allocation(buf, len, SB_LOG_TAIL_BAD_MAC, 3, 6);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_oom),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
