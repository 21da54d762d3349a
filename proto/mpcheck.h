/* A bounds check for untrusted msgpack, run before msgpack_unpack: it
 * proves that buf holds one complete object whose containers do not claim
 * more elements than there are bytes left, nested at most SB_MP_MAX_DEPTH
 * deep.  (msgpack_unpack allocates a container's elements before reading
 * them, so an unchecked 4-byte count could ask for gigabytes.) */
#ifndef SB_PROTO_MPCHECK_H
#define SB_PROTO_MPCHECK_H

#include <stddef.h>
#include <stdint.h>

#define SB_MP_MAX_DEPTH 16

/* Returns the length of the one object at buf[0..len), or 0 when it is
 * incomplete, malformed (0xc1), or too deeply nested. */
size_t sb_mp_check(const uint8_t *buf, size_t len);

#endif
