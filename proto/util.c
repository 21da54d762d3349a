#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/util.h"

char *sb_fmt_double(double v, char buf[SB_DOUBLE_TEXT_MAX])
{
	char e[SB_DOUBLE_TEXT_MAX], digits[20], *mant, *x;
	size_t nd = 0, i, o = 0;
	int p, exp;

	if (isnan(v)) {
		memcpy(buf, "nan", 4);
		return buf;
	}
	if (isinf(v)) {
		snprintf(buf, SB_DOUBLE_TEXT_MAX, "%s", v < 0 ? "-inf" : "inf");
		return buf;
	}
	/* the shortest digits that read back as v: "D.DDDe[+-]XX" */
	for (p = 0; p <= 16; p++) {
		snprintf(e, sizeof(e), "%.*e", p, v);
		if (strtod(e, NULL) == v)
			break;
	}
	mant = e[0] == '-' ? e + 1 : e;
	x = strchr(mant, 'e');
	exp = atoi(x + 1);
	for (i = 0; mant + i < x; i++)
		if (mant[i] != '.')
			digits[nd++] = mant[i];
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (e[0] == '-')
		buf[o++] = '-';
	if (exp < -4 || exp >= 16) {
		/* exponent notation, at least two exponent digits: 1e-05, 1.5e+16 */
		buf[o++] = digits[0];
		if (nd > 1) {
			buf[o++] = '.';
			memcpy(buf + o, digits + 1, nd - 1);
			o += nd - 1;
		}
		snprintf(buf + o, SB_DOUBLE_TEXT_MAX - o, "e%c%02d", exp < 0 ? '-' : '+', abs(exp));
		return buf;
	}
	if (exp < 0) { /* 0.000DDD */
		buf[o++] = '0';
		buf[o++] = '.';
		for (i = 0; i < (size_t)(-exp - 1); i++)
			buf[o++] = '0';
		memcpy(buf + o, digits, nd);
		o += nd;
	} else { /* DDD.DDD, or DDD000.0 */
		for (i = 0; i <= (size_t)exp; i++)
			buf[o++] = i < nd ? digits[i] : '0';
		buf[o++] = '.';
		if (nd > (size_t)exp + 1) {
			memcpy(buf + o, digits + exp + 1, nd - (size_t)exp - 1);
			o += nd - (size_t)exp - 1;
		} else {
			buf[o++] = '0';
		}
	}
	buf[o] = '\0';
	return buf;
}

char *sb_fmt_double_short(double v, char buf[SB_DOUBLE_TEXT_MAX])
{
	char r[SB_DOUBLE_TEXT_MAX];

	if (!isfinite(v))
		return sb_fmt_double(v, buf);
	snprintf(r, sizeof(r), "%.6g", v);
	return sb_fmt_double(strtod(r, NULL), buf);
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

int sb_write_all(ssize_t (*wr)(int, const void *, size_t), int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	int intr = 0;

	if (wr == NULL)
		wr = write;
	while (n > 0) {
		ssize_t k = wr(fd, p, n);
		if (k < 0 && errno == EINTR && ++intr < SB_EINTR_MAX)
			continue;
		if (k < 0)
			return -1;
		if (k == 0) {
			errno = EIO;
			return -1;
		}
		intr = 0;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int sb_read_all(int fd, size_t max, size_t hint, char **data, size_t *len)
{
	size_t cap = (hint < max ? hint : max) + 1, got = 0;
	char *buf = malloc(cap + 1), *bigger;
	int intr = 0;

	if (buf == NULL)
		return -1; /* errno ENOMEM */
	for (;;) {
		ssize_t k;

		if (got == cap) { /* full: grow, one byte past max to see more */
			size_t want = cap > (max + 1) / 2 ? max + 1 : cap * 2;
			if (got > max) {
				free(buf);
				errno = EFBIG;
				return -1;
			}
			if ((bigger = realloc(buf, want + 1)) == NULL) {
				free(buf);
				return -1;
			}
			buf = bigger;
			cap = want;
		}
		k = read(fd, buf + got, cap - got);
		if (k < 0 && errno == EINTR && ++intr < SB_EINTR_MAX)
			continue;
		if (k < 0) {
			int e = errno;
			free(buf);
			errno = e;
			return -1;
		}
		if (k == 0)
			break;
		intr = 0;
		got += (size_t)k;
	}
	if (got > max) {
		free(buf);
		errno = EFBIG;
		return -1;
	}
	buf[got] = '\0';
	*data = buf;
	*len = got;
	return 0;
}

char *sb_blank_controls(char *s)
{
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return s;
}

char *sb_escape_controls(const char *s, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (size == 0)
		return out;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t need = c < 0x20 || c == 0x7f ? 4 : 1;
		if (o + need + 1 > size) {
			if (size >= 4)
				memcpy(out + (o + 4 <= size ? o : size - 4), "...", 4);
			else
				out[o] = '\0';
			return out;
		}
		if (need == 4) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
	return out;
}

