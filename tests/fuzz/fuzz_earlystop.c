/* Fuzz the task map's early-stop rules as sbagent reads them
 * (proto/earlystop.c): any msgpack that passes sb_mp_check, as sbagent
 * unpacks the map, is rules within the limits or an error,
 * never a crash; every rule read has a metric and a finite threshold. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "proto/earlystop.h"
#include "proto/mpcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sb_early_stop_rules es;
	msgpack_unpacked u;
	char text[64];

	msgpack_unpacked_init(&u);
	/* unpacked as sbagent unpacks a task map: checked first (no claimed size
	 * beyond the bytes there) */
	if (sb_mp_unpack_one(data, size, &u) == 0 &&
	    sb_early_stop_rules_decode(&es, &u.data, NULL) == 0) {
		if (es.n > SB_EARLY_STOP_MAX_RULES)
			abort();
		for (size_t i = 0; i < es.n; i++)
			if (es.v[i].metric[0] == '\0' || !isfinite(es.v[i].threshold) || es.v[i].after_s < 0 ||
			    sb_early_stop_rule_text(&es.v[i], text, sizeof(text))[0] == '\0')
				abort();
	}
	msgpack_unpacked_destroy(&u);
	return 0;
}
