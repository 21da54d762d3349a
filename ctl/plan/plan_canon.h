/* The canonical msgpack of plan objects: a child's parameter map and a
 * child's whole description (docs/spec.md "Canonical msgpack").  The plan
 * side of the encoder: ctl/base/canon.h writes values and knows nothing of plans;
 * this header puts plan objects into it. */
#ifndef SB_CTL_PLAN_CANON_H
#define SB_CTL_PLAN_CANON_H

#include <stddef.h>
#include <stdint.h>

#include "base/canon.h"
#include "sbench/plan.h"

/* A child's parameters as a map, names in the spec's sorted order. */
void sb_plan_canon_params(struct sb_canon *c, const struct sb_spec *spec,
			  const struct sb_child *ch);

/* For tests: the canonical msgpack whose SHA-256 is the digest of child
 * index (malloc'd, *len set), or NULL. */
uint8_t *sb_plan_child_canonical(const struct sb_plan *plan, size_t index, size_t *len,
				 struct sb_error *err);

#endif
