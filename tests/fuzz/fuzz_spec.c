/* libFuzzer target for the spec parser: any bytes either load into a spec
 * or give an error; a loaded spec of modest size is planned and a few
 * children resolved.  Nothing may crash, leak or read out of bounds. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sbench/plan.h"
#include "sbench/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Children at most, without planning: the grid product times repeats. */
static uint64_t estimate(const struct sb_spec *spec)
{
	uint64_t n = 1;
	size_t i;

	for (i = 0; i < sb_spec_param_count(spec); i++) {
		size_t k = sb_spec_param_value_count(spec, i);
		n *= k > 0 ? k : 1;
		if (n > 1000000)
			return n;
	}
	return n * (uint64_t)sb_spec_repeats(spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_error err = { 0 };
	struct sb_spec *spec;
	struct sb_plan *plan;
	struct sb_child *child;

	spec = sb_spec_load_buffer((const char *)data, size, "fuzz.yaml", &err);
	if (spec == NULL) {
		/* every error names the input */
		if (strncmp(err.msg, "fuzz.yaml", 9) != 0 && strncmp(err.msg, "'fuzz.yaml'", 11) != 0)
			__builtin_trap();
		return 0;
	}
	if (estimate(spec) <= 20000) {
		plan = sb_plan_create(spec, &err);
		if (plan != NULL) {
			size_t n = sb_plan_count(plan);
			child = sb_child_create();
			if (child != NULL && n > 0) {
				sb_plan_child(plan, 0, child, &err);
				sb_plan_child(plan, n - 1, child, &err);
			}
			sb_child_destroy(child);
			sb_plan_destroy(plan);
		}
	}
	sb_spec_destroy(spec);
	return 0;
}
