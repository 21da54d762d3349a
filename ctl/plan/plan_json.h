/* A spec value as JSON (ctl/plan/plan_json.c), through proto/json.h. */
#ifndef SB_CTL_PLAN_JSON_H
#define SB_CTL_PLAN_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "proto/json.h"

struct sb_value;
/* A parameter value as JSON: int, float (the float text rule), bool, str. */
void sb_json_spec_value(struct sb_json *j, const struct sb_value *v);

#endif
