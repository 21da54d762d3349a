#include <string.h>

#include "proto/mpcheck.h"

static uint64_t load_be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Returns the end of the object at p, or NULL. */
static const uint8_t *check(const uint8_t *p, const uint8_t *end, int depth)
{
	uint64_t n, items = 0, skip = 0, i;
	uint8_t c;
	int w = 0;

	if (p >= end || depth > SB_MP_MAX_DEPTH)
		return NULL;
	c = *p++;
	if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3)
		return p;
	if (c >= 0x80 && c <= 0x8f)
		items = 2u * (c & 0x0f);
	else if (c >= 0x90 && c <= 0x9f)
		items = c & 0x0f;
	else if (c >= 0xa0 && c <= 0xbf)
		skip = c & 0x1f;
	else {
		switch (c) {
		case 0xc4: case 0xd9: w = 1; break;          /* bin8, str8 */
		case 0xc5: case 0xda: w = 2; break;          /* bin16, str16 */
		case 0xc6: case 0xdb: w = 4; break;          /* bin32, str32 */
		case 0xc7: w = 1; skip = 1; break;           /* ext8 (+type) */
		case 0xc8: w = 2; skip = 1; break;
		case 0xc9: w = 4; skip = 1; break;
		case 0xca: skip = 4; break;                  /* float32 */
		case 0xcb: skip = 8; break;                  /* float64 */
		case 0xcc: case 0xd0: skip = 1; break;
		case 0xcd: case 0xd1: skip = 2; break;
		case 0xce: case 0xd2: skip = 4; break;
		case 0xcf: case 0xd3: skip = 8; break;
		case 0xd4: skip = 2; break;                  /* fixext: type + data */
		case 0xd5: skip = 3; break;
		case 0xd6: skip = 5; break;
		case 0xd7: skip = 9; break;
		case 0xd8: skip = 17; break;
		case 0xdc: case 0xdd: case 0xde: case 0xdf:
			w = (c == 0xdc || c == 0xde) ? 2 : 4;
			if ((uint64_t)(end - p) < (uint64_t)w)
				return NULL;
			n = load_be(p, w);
			p += w;
			items = (c >= 0xde) ? 2 * n : n;
			w = 0;
			break;
		default:
			return NULL;                          /* 0xc1 */
		}
	}
	if (w > 0) {
		if ((uint64_t)(end - p) < (uint64_t)w)
			return NULL;
		skip += load_be(p, w);
		p += w;
	}
	if (skip > (uint64_t)(end - p) || items > (uint64_t)(end - p))
		return NULL;
	p += skip;
	for (i = 0; i < items && p != NULL; i++)
		p = check(p, end, depth + 1);
	return p;
}

size_t sb_mp_check(const uint8_t *buf, size_t len)
{
	const uint8_t *e = check(buf, buf + len, 1);

	return e == NULL ? 0 : (size_t)(e - buf);
}

int sb_mp_unpack_one(const void *buf, size_t len, msgpack_unpacked *u)
{
	size_t off = 0;

	if (len == 0 || sb_mp_check(buf, len) != len)
		return -1;
	if (msgpack_unpack_next(u, buf, len, &off) != MSGPACK_UNPACK_SUCCESS || off != len)
		return -1;
	return 0;
}

const msgpack_object *sb_mp_get(const msgpack_object *map, const char *key)
{
	size_t n = strlen(key);
	uint32_t i;

	if (map == NULL || map->type != MSGPACK_OBJECT_MAP)
		return NULL;
	for (i = 0; i < map->via.map.size; i++) {
		const msgpack_object *k = &map->via.map.ptr[i].key;
		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
		    memcmp(k->via.str.ptr, key, n) == 0)
			return &map->via.map.ptr[i].val;
	}
	return NULL;
}
