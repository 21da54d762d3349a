/* Known-answer tests: HMAC-SHA256 (RFC 4231), SHA-256 (FIPS 180-2),
 * CRC32C (RFC 3720 B.4 and the "123456789" check value); the msgpack
 * bounds check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "proto/crc32c.h"
#include "proto/mac.h"
#include "proto/mpcheck.h"
#include "proto/util.h"

static void hex_of(const uint8_t *b, size_t n, char *out)
{
	sb_hex_encode(b, n, out);
}

static void check_hmac(const uint8_t *key, size_t klen, const void *data,
	size_t dlen, const char *want)
{
	struct sb_mac *m = sb_mac_create(key, klen, NULL);
	uint8_t tag[SB_MAC_LEN], want_b[SB_MAC_LEN];
	char hex[2 * SB_MAC_LEN + 1];
	int round;

	assert_non_null(m);
	/* twice: the reused context must give the same answer */
	for (round = 0; round < 2; round++) {
		assert_int_equal(sb_mac_compute(m, data, dlen, NULL, 0, tag, NULL), 0);
		hex_of(tag, sizeof(tag), hex);
		assert_string_equal(hex, want);
	}
	/* split input gives the same tag */
	if (dlen > 1) {
		assert_int_equal(sb_mac_compute(m, data, 1, (const char *)data + 1,
			dlen - 1, tag, NULL), 0);
		hex_of(tag, sizeof(tag), hex);
		assert_string_equal(hex, want);
	}
	assert_int_equal(sb_hex_decode(want, want_b, SB_MAC_LEN), 0);
	assert_int_equal(sb_mac_verify(m, data, dlen, want_b, NULL), 1);
	want_b[31] ^= 1;
	assert_int_equal(sb_mac_verify(m, data, dlen, want_b, NULL), 0);
	sb_mac_destroy(m);
}

static void test_hmac_rfc4231(void **state)
{
	uint8_t k[131], d[152];
	size_t i;

	(void)state;
	memset(k, 0x0b, 20);
	check_hmac(k, 20, "Hi There", 8,
		"b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	check_hmac((const uint8_t *)"Jefe", 4, "what do ya want for nothing?", 28,
		"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(k, 0xaa, 20);
	memset(d, 0xdd, 50);
	check_hmac(k, 20, d, 50,
		"773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
	for (i = 0; i < 25; i++)
		k[i] = (uint8_t)(i + 1);
	memset(d, 0xcd, 50);
	check_hmac(k, 25, d, 50,
		"82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
	memset(k, 0xaa, 131);
	check_hmac(k, 131, "Test Using Larger Than Block-Size Key - Hash Key First", 54,
		"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	{
		const char *t7 = "This is a test using a larger than block-size key and a "
			"larger than block-size data. The key needs to be hashed before "
			"being used by the HMAC algorithm.";
		check_hmac(k, 131, t7, strlen(t7),
			"9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
	}
}

static void test_sha256(void **state)
{
	uint8_t d[SB_SHA256_LEN];
	char hex[2 * SB_SHA256_LEN + 1];

	(void)state;
	assert_int_equal(sb_sha256("abc", 3, d, NULL), 0);
	hex_of(d, sizeof(d), hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_int_equal(sb_sha256("", 0, d, NULL), 0);
	hex_of(d, sizeof(d), hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_crc32c(void **state)
{
	uint8_t b[64];
	size_t i, cut;
	uint32_t whole;

	(void)state;
	assert_int_equal(sb_crc32c(0, "123456789", 9), 0xe3069283u);
	assert_int_equal(sb_crc32c(0, "", 0), 0);
	memset(b, 0, 32);
	assert_int_equal(sb_crc32c(0, b, 32), 0x8a9136aau);
	memset(b, 0xff, 32);
	assert_int_equal(sb_crc32c(0, b, 32), 0x62a8ab43u);
	for (i = 0; i < 32; i++)
		b[i] = (uint8_t)i;
	assert_int_equal(sb_crc32c(0, b, 32), 0x46dd794eu);
	for (i = 0; i < 32; i++)
		b[i] = (uint8_t)(31 - i);
	assert_int_equal(sb_crc32c(0, b, 32), 0x113fdb5cu);
	/* incremental = whole, at every split and alignment */
	for (i = 0; i < 64; i++)
		b[i] = (uint8_t)(i * 7 + 3);
	whole = sb_crc32c(0, b, 64);
	for (cut = 0; cut <= 64; cut++)
		assert_int_equal(sb_crc32c(sb_crc32c(0, b, cut), b + cut, 64 - cut), whole);
	/* the instruction's path (where the processor has one) and the tables'
	 * agree on every length and alignment, from any starting value */
	{
		uint8_t big[4099];
		uint32_t seed = 0x12345678u;
		for (i = 0; i < sizeof(big); i++) {
			seed = seed * 1103515245u + 12345u;
			big[i] = (uint8_t)(seed >> 16);
		}
		for (size_t off = 0; off < 9; off++)
			for (size_t len = 0; off + len <= sizeof(big); len += len < 40 ? 1 : 97)
				assert_int_equal(sb_crc32c(seed, big + off, len), sb_crc32c_table(seed, big + off, len));
	}
}

static void test_mpcheck(void **state)
{
	static const uint8_t ok_map[] = { 0x81, 0xa1, 'a', 0x01 };
	static const uint8_t huge_array[] = { 0xdd, 0xff, 0xff, 0xff, 0xff, 0x00 };
	static const uint8_t huge_str[] = { 0xdb, 0x7f, 0xff, 0xff, 0xff, 'x' };
	static const uint8_t never[] = { 0xc1 };
	uint8_t deep[40];
	size_t i;

	(void)state;
	assert_int_equal(sb_mp_check(ok_map, sizeof(ok_map)), sizeof(ok_map));
	assert_int_equal(sb_mp_check(ok_map, 3), 0);
	assert_int_equal(sb_mp_check(huge_array, sizeof(huge_array)), 0);
	assert_int_equal(sb_mp_check(huge_str, sizeof(huge_str)), 0);
	assert_int_equal(sb_mp_check(never, 1), 0);
	for (i = 0; i < sizeof(deep) - 1; i++)
		deep[i] = 0x91; /* [[[[...]]]] */
	deep[sizeof(deep) - 1] = 0xc0;
	assert_int_equal(sb_mp_check(deep, sizeof(deep)), 0);
	assert_int_equal(sb_mp_check(deep + sizeof(deep) - 10, 10), 10);
}

/* A message longer than the buffer (a long path in it) is cut visibly. */
static void test_error_cut(void **state)
{
	struct sb_error err;
	char path[3000];

	(void)state;
	memset(path, 'p', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	assert_int_equal(sb_errorf(&err, "cannot open '%s'", path), -1);
	assert_int_equal(strlen(err.msg), SB_ERROR_MAX - 1);
	assert_string_equal(err.msg + SB_ERROR_MAX - 4, "...");
	assert_int_equal(sb_errorf(&err, "short"), -1);
	assert_int_equal(sb_error_prefix(&err, "in '%s'", path), -1);
	assert_string_equal(err.msg + SB_ERROR_MAX - 4, "...");
	assert_int_equal(sb_errorf(&err, "%s", path + 2000), -1);
	assert_int_equal(sb_error_prefix(&err, "in '%.100s'", path), -1);
	assert_int_equal(strlen(err.msg), SB_ERROR_MAX - 1);
	assert_string_equal(err.msg + SB_ERROR_MAX - 4, "...");
	assert_int_equal(sb_errorf(&err, "short"), -1);
	assert_int_equal(sb_error_prefix(&err, "cannot"), -1);
	assert_string_equal(err.msg, "cannot: short");
}

/* A user's string in a message cannot act on a terminal: every control
 * character but the line end is shown as \xNN, in sb_errorf,
 * sb_error_set and sb_error_prefix alike. */
static void test_error_controls(void **state)
{
	struct sb_error err;

	(void)state;
	assert_int_equal(sb_errorf(&err, "no file '%s'", "a\x1b[2Jb\rc\x7f"), -1);
	assert_string_equal(err.msg, "no file 'a\\x1b[2Jb\\x0dc\\x7f'");
	assert_int_equal(sb_error_set(&err, SB_ERR_INPUT, "line one\nline\ttwo"), -1);
	assert_string_equal(err.msg, "line one\nline\\x09two");
	assert_int_equal(sb_error_prefix(&err, "in '%s'", "\x1b]0;x\x07"), -1);
	assert_string_equal(err.msg, "in '\\x1b]0;x\\x07': line one\nline\\x09two");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_cut),
		cmocka_unit_test(test_error_controls),
		cmocka_unit_test(test_hmac_rfc4231),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_mpcheck),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
