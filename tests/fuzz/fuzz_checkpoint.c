/* Fuzz the task map's checkpoint section as sbagent reads it
 * (proto/checkpoint.c): any msgpack that passes sb_mp_check, as sbagent
 * unpacks the map, is a section within its limits or an error, never a
 * crash or a leak; a section read has 1 to 64 relative paths without NUL,
 * a known signal and bounded numbers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "proto/checkpoint.h"
#include "proto/mpcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_checkpoint_cfg c;
	msgpack_unpacked u;

	msgpack_unpacked_init(&u);
	if (sb_mp_unpack_one(data, size, &u) == 0 && sb_checkpoint_decode(&c, &u.data, NULL) == 0) {
		if (c.present && (c.nfiles == 0 || c.nfiles > SB_CKPT_MAX_FILES || c.signal == 0 ||
				  c.before < 1 || c.before > SB_CKPT_MAX_BEFORE ||
				  c.max_restarts > SB_CKPT_MAX_RESTARTS || c.requeue_on > 7))
			abort();
		for (size_t i = 0; i < c.nfiles; i++)
			if (c.files[i][0] == '\0' || c.files[i][0] == '/' ||
			    strlen(c.files[i]) > SB_CKPT_MAX_PATH)
				abort();
		sb_checkpoint_release(&c);
	}
	msgpack_unpacked_destroy(&u);
	return 0;
}
