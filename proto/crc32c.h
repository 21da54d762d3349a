/* CRC32C (Castagnoli, reflected polynomial 0x82f63b78), in software. */
#ifndef SB_PROTO_CRC32C_H
#define SB_PROTO_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues the CRC32C `crc` over buf[0..n); start with 0.
 * sb_crc32c(0, "123456789", 9) == 0xe3069283. */
uint32_t sb_crc32c(uint32_t crc, const void *buf, size_t n);

/* The same with the tables alone, whatever the processor (for the tests). */
uint32_t sb_crc32c_table(uint32_t crc, const void *buf, size_t n);

#endif
