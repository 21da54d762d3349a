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

#include <msgpack.h>

/* Unpacks buf[0..len) when it holds exactly one object that passes
 * sb_mp_check; u must be initialised (msgpack_unpacked_init) and destroyed
 * by the caller.  -1 otherwise. */
int sb_mp_unpack_one(const void *buf, size_t len, msgpack_unpacked *u);

/* The value of the str key `key` in map, or NULL (also when map is NULL or
 * not a map). */
const msgpack_object *sb_mp_get(const msgpack_object *map, const char *key);

#endif
