#include <stdlib.h>
#include <string.h>

#include "cli/numarg.h"

int sb_parse_uint(const char *s, uint64_t max, uint64_t *out, struct sb_error *err)
{
	uint64_t v = 0;
	const char *p;

	if (s == NULL || *s == '\0')
		return sb_errorf(err, "an empty string is not a number");
	for (p = s; *p; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (d > 9)
			return sb_errorf(err, "'%s' is not a whole number (digits 0-9 only)", s);
		if (d > max || v > (max - d) / 10)
			return sb_errorf(err, "'%s' is more than %llu", s, (unsigned long long)max);
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int sb_parse_seconds(const char *s, double max, double *out, struct sb_error *err)
{
	size_t whole, frac = 0;
	double d;

	if (s == NULL || *s == '\0')
		return sb_errorf(err, "an empty string is not a number of seconds");
	whole = strspn(s, "0123456789");
	if (s[whole] == '.')
		frac = strspn(s + whole + 1, "0123456789") + 1;
	if (whole == 0 || s[whole + frac] != '\0')
		return sb_errorf(err, "'%s' is not a number of seconds (digits with an optional "
				 "fraction: 30, 0.5)", s);
	d = strtod(s, NULL); /* only digits and one '.': strtod cannot misread it */
	if (!(d <= max))
		return sb_errorf(err, "'%s' is more than %.0f seconds", s, max);
	*out = d;
	return 0;
}
