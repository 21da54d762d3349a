#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto/util.h"

char *sb_fmt_double(double v, char buf[SB_DOUBLE_TEXT_MAX])
{
	int n;

	for (n = 1; n <= 17; n++) {
		snprintf(buf, SB_DOUBLE_TEXT_MAX, "%.*g", n, v);
		if (strtod(buf, NULL) == v || isnan(v))
			break;
	}
	if (strpbrk(buf, ".en") == NULL)
		strcat(buf, ".0");
	return buf;
}

void sb_hex_encode(const uint8_t *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int sb_hex_decode(const char *hex, uint8_t *out, size_t n)
{
	size_t i;

	if (strlen(hex) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

char *sb_fmt_time_ns(int64_t ns, char buf[32])
{
	time_t s = (time_t)(ns / 1000000000);
	long frac = (long)(ns % 1000000000);
	struct tm tm;

	if (frac < 0) {
		frac += 1000000000;
		s -= 1;
	}
	char tmp[96];

	gmtime_r(&s, &tm);
	/* int64 ns spans the years 1677..2262, so the text always fits in 31 */
	snprintf(tmp, sizeof(tmp), "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, frac);
	snprintf(buf, 32, "%.31s", tmp);
	return buf;
}
