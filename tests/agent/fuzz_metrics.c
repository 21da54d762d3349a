/* libFuzzer target: the metrics parser (any bytes as a JSON/YAML document).
 * Built into BUILD/fuzz/ with -DSB_FUZZ=ON; tests/fuzz/run.sh runs it. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "agent/agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_agent_metrics m;
	struct sb_error err;
	size_t i;

	if (sb_agent_metrics_parse((const char *)data, size, "fuzz", &m, &err) == 0) {
		for (i = 1; i < m.n; i++)
			if (strcmp(m.v[i - 1].name, m.v[i].name) >= 0)
				__builtin_trap(); /* must be sorted, without duplicates */
		sb_agent_metrics_release(&m);
	}
	return 0;
}
