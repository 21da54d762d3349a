#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proto/yamlscalar.h"

static bool all_digits(const char *p, const char *set)
{
	if (*p == '\0')
		return false;
	for (; *p; p++)
		if (strchr(set, *p) == NULL)
			return false;
	return true;
}

static bool is_core_float(const char *p)
{
	if (*p == '+' || *p == '-')
		p++;
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	} else {
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '.') {
			p++;
			while (*p >= '0' && *p <= '9')
				p++;
		}
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

static bool mantissa_nonzero(const char *p)
{
	for (; *p && *p != 'e' && *p != 'E'; p++)
		if (*p >= '1' && *p <= '9')
			return true;
	return false;
}

static bool one_of(const char *t, const char *a, const char *b, const char *c)
{
	return !strcmp(t, a) || !strcmp(t, b) || !strcmp(t, c);
}

/* 0o... or 0x...: digits after the prefix, no sign. */
static enum sb_yamlscalar_kind based_int(const char *t, struct sb_yamlscalar *out)
{
	int base = t[1] == 'o' ? 8 : 16;
	uint64_t acc = 0;
	const char *p;

	out->base = base;
	for (p = t + 2; *p; p++) {
		unsigned d = (unsigned)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
		if (acc > ((uint64_t)INT64_MAX - d) / (uint64_t)base)
			return out->kind = SB_YAMLSCALAR_INT_RANGE;
		acc = acc * (uint64_t)base + d;
	}
	out->u.i = (int64_t)acc;
	return out->kind = SB_YAMLSCALAR_INT;
}

static enum sb_yamlscalar_kind decimal_int(const char *t, struct sb_yamlscalar *out)
{
	bool neg = t[0] == '-';
	uint64_t acc = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	const char *p = t + (t[0] == '+' || t[0] == '-');

	out->base = 10;
	for (; *p; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (acc > (lim - d) / 10)
			return out->kind = SB_YAMLSCALAR_INT_RANGE;
		acc = acc * 10 + d;
	}
	out->u.i = neg ? (int64_t)(0 - acc) : (int64_t)acc;
	return out->kind = SB_YAMLSCALAR_INT;
}

enum sb_yamlscalar_kind sb_yamlscalar_resolve(const char *t, struct sb_yamlscalar *out)
{
	const char *unsigned_t = t + (t[0] == '+' || t[0] == '-');

	memset(out, 0, sizeof(*out));
	if (!strcmp(t, "") || !strcmp(t, "~") || one_of(t, "null", "Null", "NULL"))
		return out->kind = SB_YAMLSCALAR_NULL;
	if (one_of(t, "true", "True", "TRUE") || one_of(t, "false", "False", "FALSE")) {
		out->u.b = t[0] == 't' || t[0] == 'T';
		return out->kind = SB_YAMLSCALAR_BOOL;
	}
	if ((t[0] == '0' && t[1] == 'o' && all_digits(t + 2, "01234567")) ||
	    (t[0] == '0' && t[1] == 'x' && all_digits(t + 2, "0123456789abcdefABCDEF")))
		return based_int(t, out);
	if (all_digits(unsigned_t, "0123456789"))
		return decimal_int(t, out);
	if (one_of(unsigned_t, ".inf", ".Inf", ".INF"))
		return out->kind = SB_YAMLSCALAR_INF;
	if (one_of(t, ".nan", ".NaN", ".NAN"))
		return out->kind = SB_YAMLSCALAR_NAN;
	if (is_core_float(t)) {
		double d = strtod(t, NULL);
		if (isinf(d))
			return out->kind = SB_YAMLSCALAR_FLOAT_RANGE;
		if (d == 0 && mantissa_nonzero(t))
			return out->kind = SB_YAMLSCALAR_FLOAT_ZERO;
		out->u.f = d == 0 ? 0.0 : d; /* -0.0 is 0.0 */
		return out->kind = SB_YAMLSCALAR_FLOAT;
	}
	return out->kind = SB_YAMLSCALAR_STR;
}
