/* Fast paths beside proto/json.h for sbctl plan --json (ctl/plan_json.c):
 * the same bytes as sb_json_strn / sb_json_key / sb_json_uint, written with
 * the stdio _unlocked calls (the caller holds the stream's lock, or the
 * stream is used by one thread).  tests/spec/test_plan.c compares them with
 * proto/json.c. */
#ifndef SB_CTL_PLAN_JSON_H
#define SB_CTL_PLAN_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "proto/json.h"

void sb_plan_json_str(struct sb_json *j, const char *s, size_t n);
void sb_plan_json_key(struct sb_json *j, const char *key);
void sb_plan_json_uint(struct sb_json *j, uint64_t v);

struct sb_value;
/* A parameter value as JSON: int, float (the float text rule), bool, str. */
void sb_json_spec_value(struct sb_json *j, const struct sb_value *v);

#endif
