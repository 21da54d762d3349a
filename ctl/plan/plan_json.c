#include <stdio.h>
#include <string.h>

#include "plan/plan_json.h"
#include "sbench/spec.h"

void sb_json_spec_value(struct sb_json *j, const struct sb_value *v)
{
	switch (v->type) {
	case SB_VALUE_INT: sb_json_int(j, v->u.i); break;
	case SB_VALUE_FLOAT: sb_json_double(j, v->u.f); break;
	case SB_VALUE_BOOL: sb_json_bool(j, v->u.b); break;
	case SB_VALUE_STR: sb_json_strn(j, v->u.str.s, v->u.str.len); break;
	}
}
