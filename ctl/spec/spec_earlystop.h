/* The spec key early_stop (docs/spec.md "Early stop"): rules declared
 * before submission that sbagent checks at every heartbeat against the
 * metrics file the command keeps writing.  Loading and checking the rules,
 * and their canonical msgpack (in the child digest when there are rules,
 * and in the task map sbagent reads). */
#ifndef SB_CTL_SPEC_EARLYSTOP_H
#define SB_CTL_SPEC_EARLYSTOP_H

#include <stdbool.h>
#include <stddef.h>

#include "sbench/error.h"
#include "sbench/spec.h"

/* the limits and keys of a rule, shared with sbagent */
#include "proto/earlystop.h"

/* One rule: stop when metric is above (or below) threshold once the
 * command has run at least after seconds. */
struct sb_early_rule {
	const char *metric;
	bool above;
	struct sb_value threshold;   /* SB_VALUE_INT or SB_VALUE_FLOAT */
	struct sb_value after;       /* SB_VALUE_INT or SB_VALUE_FLOAT, >= 0 */
	int line, col;
};

struct sb_spec;
struct sb_ynode;
struct sb_canon;

/* Loads the value node of early_stop into spec (its arena): a list of
 * mappings {metric, above | below, after}.  -1 with "PATH:LINE:COL:
 * message" in err. */
int sb_spec_load_early_stop(struct sb_spec *spec, const struct sb_ynode *n,
			    struct sb_error *err);

/* The rules as canonical msgpack: an array of maps, keys sorted ("above" or
 * "below", "after", "metric"). */
void sb_early_stop_canon(struct sb_canon *c, const struct sb_spec *spec);

/* The number of rules (0: the spec has no early_stop). */
size_t sb_spec_early_stop_count(const struct sb_spec *spec);

#endif
