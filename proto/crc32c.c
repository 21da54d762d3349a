/* CRC32C: the processor's crc32 instruction where there is one (x86-64
 * with SSE4.2: 8 bytes a cycle or so), else slicing-by-8 with eight
 * 256-entry tables, built once on first use.  Both give the same value;
 * tests/proto/test_crypto.c checks them against each other. */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "proto/crc32c.h"

#define POLY 0x82f63b78u

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_init(void)
{
	uint32_t i, k, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
		table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xff];
}

static uint32_t load_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_HW 1
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const unsigned char *p, size_t n)
{
	uint64_t c = ~crc;

	for (; n >= 8; p += 8, n -= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
	}
	for (; n > 0; p++, n--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p);
	return ~(uint32_t)c;
}

static bool hw_ok;
static pthread_once_t hw_once = PTHREAD_ONCE_INIT;

static void hw_init(void)
{
	__builtin_cpu_init();
	hw_ok = __builtin_cpu_supports("sse4.2");
}
#endif

uint32_t sb_crc32c_table(uint32_t crc, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	pthread_once(&table_once, table_init);
	crc = ~crc;
	while (n >= 8) {
		uint32_t lo = load_le32(p) ^ crc, hi = load_le32(p + 4);

		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^
		      table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
		      table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

uint32_t sb_crc32c(uint32_t crc, const void *buf, size_t n)
{
#ifdef HAVE_HW
	pthread_once(&hw_once, hw_init);
	if (hw_ok)
		return crc32c_hw(crc, buf, n);
#endif
	return sb_crc32c_table(crc, buf, n);
}
