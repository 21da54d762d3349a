#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/util.h"

/*
 * sb_fmt_double's text is defined by the loop it was first written as (the
 * bytes of JSON, CSV and digests depend on it, so it never changes): for
 * p = 0..16, print |v| with "%.*e" (p + 1 significant digits, correctly
 * rounded, ties to even) and stop at the first text that strtod reads back
 * as v; drop the trailing zeros of its digits.  Call c_L the value |v|
 * correctly rounded to L significant digits, and R(v) the reals strtod
 * rounds to |v| (half an ulp on each side, only a quarter below a power
 * of two, the ends included when the significand is even): the text is
 * the first c_L in R(v).  That is not always what a Ryu- or Grisu-style
 * algorithm prints: below a power of two, a c_L can be outside R(v) while
 * another L-digit number is inside, and the loop then goes on to L + 1.
 *
 * For a normal v, only c_15, c_16 and c_17 are needed.  Let E =
 * floor(log10 |v|).  Its ulp is at most |v| 2^-52 < 10^(E+1) 2^-52 <
 * 0.23 * 10^(E-14), so every point of R(v) is within 0.12 * 10^(E-14) of
 * |v|.  For L <= 15, c_L is a multiple of 10^(E-14) (also when rounding
 * carried it to 10^(E+1)); one in R(v) is then the multiple of 10^(E-14)
 * nearest |v|, which is c_15.  So the loop stops before L = 16 exactly when
 * c_15 is in R(v), and then prints c_15's value: c_15's digits without
 * their trailing zeros.  Otherwise it prints c_16 if c_16 is in R(v), else
 * c_17, always in R(v): |c_17 - |v|| <= 0.5 * 10^(E-16), while R(v) reaches
 * at least |v| 2^-54 >= 0.55 * 10^(E-16) on each side (half an ulp, or a
 * quarter of the ulp of a power of two, whose ulp is |v| 2^-52).  The first
 * step fails for subnormals (their ulp is large next to them): they run the
 * loop.
 *
 * c_15, c_16, c_17 and "in R(v)" are computed exactly with 128-bit
 * integers for 10^-16 <= |v| < 2^126, where metrics live; elsewhere
 * snprintf and strtod give the same three candidates.
 */

/* The digits of a "%.*e" text ("1.2500e-07") without the point and the
 * trailing zeros, and its exponent. */
static void e_text_digits(const char *e, char *digits, int *nd, int *exp)
{
	const char *x = strchr(e, 'e');
	int n = 0;

	for (; e < x; e++)
		if (*e != '.')
			digits[n++] = *e;
	while (n > 1 && digits[n - 1] == '0')
		n--;
	*nd = n;
	*exp = atoi(x + 1);
}

/* The loop that defines the text, for a finite a > 0. */
static void shortest_by_loop(double a, char *digits, int *nd, int *exp)
{
	char e[SB_DOUBLE_TEXT_MAX];
	int p;

	for (p = 0; p <= 16; p++) {
		snprintf(e, sizeof(e), "%.*e", p, a);
		if (strtod(e, NULL) == a)
			break;
	}
	e_text_digits(e, digits, nd, exp);
}

/* c_15, c_16, c_17 by snprintf and strtod, for a normal a > 0. */
static void shortest_by_printf(double a, char *digits, int *nd, int *exp)
{
	char e[SB_DOUBLE_TEXT_MAX];
	int p;

	for (p = 14; p < 16; p++) {
		snprintf(e, sizeof(e), "%.*e", p, a);
		if (strtod(e, NULL) == a)
			break;
	}
	if (p == 16)
		snprintf(e, sizeof(e), "%.16e", a);
	e_text_digits(e, digits, nd, exp);
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 sb_u128;

static const uint64_t pow10_u64[20] = {
	1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
	100000000u, 1000000000u, 10000000000u, 100000000000u,
	1000000000000u, 10000000000000u, 100000000000000u,
	1000000000000000u, 10000000000000000u, 100000000000000000u,
	1000000000000000000u, 10000000000000000000u,
};

/* 5^k for k <= 38: 10^k = 5^k 2^k */
static sb_u128 pow5_u128(int k)
{
	if (k <= 19)
		return pow10_u64[k] >> k;
	return (sb_u128)(pow10_u64[19] >> 19) * (pow10_u64[k - 19] >> (k - 19));
}

/* X = |v| 10^(16-E) as n + rem/d, and v's ulp times 10^(16-E), in units
 * of 1/d. */
struct scaled {
	uint64_t n;
	sb_u128 rem, d, ulp;
};

/* X for |v| = m 2^e2 and the exponent guess e10; 0 when the numbers would
 * not fit (n in 64 bits, the others in 128). */
static int scale(uint64_t m, int e2, int e10, struct scaled *x)
{
	int a = 16 - e10;

	if (a >= 0) { /* X = m 5^a 2^(e2+a) */
		sb_u128 p5, p, n;
		int t = e2 + a;

		if (a > 32) /* m 5^a < 2^53 2^75 */
			return 0;
		p5 = pow5_u128(a);
		p = m * p5;
		if (t >= 0) { /* only near 10^16: t <= 5 */
			if (t > 8)
				return 0;
			n = p << t, x->rem = 0, x->d = 1, x->ulp = p5 << t;
		} else { /* d = 2^-t <= 2^80 */
			if (-t > 80)
				return 0;
			x->d = (sb_u128)1 << -t;
			n = p >> -t, x->rem = p & (x->d - 1), x->ulp = p5;
		}
		if (n >> 64)
			return 0;
		x->n = (uint64_t)n;
	} else { /* X = m 2^e2 / 10^-a, an integer's quotient */
		sb_u128 p, n;

		if (e2 > 73 || -a > 22) /* m 2^e2 < 2^126, 10^-a < 2^74 */
			return 0;
		p = (sb_u128)m << e2;
		x->d = -a <= 19 ? (sb_u128)pow10_u64[-a] :
				  (sb_u128)pow10_u64[19] * pow10_u64[-a - 19];
		n = p / x->d;
		if (n >> 64)
			return 0;
		x->n = (uint64_t)n, x->rem = p - n * x->d, x->ulp = (sb_u128)1 << e2;
	}
	return 1;
}

/* c_L for L = 17 - j (j = 0, 1, 2) into *c, as a multiple of 10^j in
 * X's units: 1 if it is in R(v), else 0.  even: v's significand is even
 * (R(v)'s ends are in it); bottom: v is a power of two above the smallest
 * normal (R(v) reaches a quarter ulp below it). */
static int round_in(const struct scaled *x, int j, int even, int bottom, uint64_t *c)
{
	uint64_t p = pow10_u64[j], q = x->n / p;
	sb_u128 r = (sb_u128)(x->n % p) * x->d + x->rem; /* X - q 10^j, in 1/d */
	sb_u128 w = (sb_u128)p * x->d, dist;
	int up = 2 * r > w || (2 * r == w && (q & 1)); /* ties to even */

	dist = up ? w - r : r; /* |c_L - X|, in 1/d */
	dist *= up || !bottom ? 2 : 4; /* against one ulp */
	if (dist > x->ulp || (dist == x->ulp && !even))
		return 0;
	*c = q + (uint64_t)up;
	return 1;
}

/* c_15, c_16, c_17 exactly, for a normal a > 0; 0 when a is out of the
 * 128-bit range. */
static int shortest_exact(double a, char *digits, int *nd, int *exp)
{
	uint64_t bits, m, c = 0;
	int be, e2, e10, k, len, i;
	struct scaled x;

	memcpy(&bits, &a, sizeof(bits));
	be = (int)(bits >> 52 & 0x7ff);
	m = (bits & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
	e2 = be - 1075;
	/* E is floor(log10(2^(be-1023))) or one more: this guess is within
	 * one of the first (1233 / 2^12 ~ log10(2)), corrected below */
	e10 = (int)(((unsigned)(be - 1023 + 4096) * 1233u) >> 12) - 1233;
	if (!scale(m, e2, e10, &x))
		return 0;
	if (x.n < pow10_u64[16] && !scale(m, e2, --e10, &x)) /* guessed high */
		return 0;
	for (k = 0; x.n >= pow10_u64[17]; k++) { /* guessed low: X / 10 */
		if (k == 2)
			return 0;
		x.rem += (sb_u128)(x.n % 10) * x.d;
		x.n /= 10, x.d *= 10, e10++;
	}
	if (x.n < pow10_u64[16])
		return 0;
	for (len = 15; len <= 17; len++)
		if (round_in(&x, 17 - len, !(m & 1), m == UINT64_C(1) << 52 && be > 1, &c))
			break;
	if (len > 17) /* cannot happen (see above); snprintf's path then */
		return 0;
	if (c == pow10_u64[len]) /* 9.99...5 carried to 10.0 */
		c = 1, len = 1, e10++;
	while (len > 1 && c % 10 == 0)
		c /= 10, len--;
	for (i = len - 1; i >= 0; i--, c /= 10)
		digits[i] = (char)('0' + c % 10);
	*nd = len;
	*exp = e10;
	return 1;
}
#endif

char *sb_fmt_double(double v, char buf[SB_DOUBLE_TEXT_MAX])
{
	char digits[20];
	double a = fabs(v);
	int nd, exp, i, o = 0;

	if (isnan(v)) {
		memcpy(buf, "nan", 4);
		return buf;
	}
	if (isinf(v)) {
		snprintf(buf, SB_DOUBLE_TEXT_MAX, "%s", v < 0 ? "-inf" : "inf");
		return buf;
	}
	/* the shortest digits that read back as v: D.DDD times 10^exp */
	if (a == 0) {
		digits[0] = '0', nd = 1, exp = 0;
	} else if (a < DBL_MIN) {
		shortest_by_loop(a, digits, &nd, &exp);
	} else {
#ifdef __SIZEOF_INT128__
		if (!shortest_exact(a, digits, &nd, &exp))
#endif
			shortest_by_printf(a, digits, &nd, &exp);
	}
	if (signbit(v))
		buf[o++] = '-';
	if (exp < -4 || exp >= 16) {
		/* exponent notation, at least two exponent digits: 1e-05, 1.5e+16 */
		int ae = abs(exp);

		buf[o++] = digits[0];
		if (nd > 1) {
			buf[o++] = '.';
			memcpy(buf + o, digits + 1, (size_t)nd - 1);
			o += nd - 1;
		}
		buf[o++] = 'e';
		buf[o++] = exp < 0 ? '-' : '+';
		if (ae >= 100)
			buf[o++] = (char)('0' + ae / 100);
		buf[o++] = (char)('0' + ae / 10 % 10);
		buf[o++] = (char)('0' + ae % 10);
	} else if (exp < 0) { /* 0.000DDD */
		buf[o++] = '0';
		buf[o++] = '.';
		for (i = 0; i < -exp - 1; i++)
			buf[o++] = '0';
		memcpy(buf + o, digits, (size_t)nd);
		o += nd;
	} else { /* DDD.DDD, or DDD000.0 */
		for (i = 0; i <= exp; i++)
			buf[o++] = i < nd ? digits[i] : '0';
		buf[o++] = '.';
		if (nd > exp + 1) {
			memcpy(buf + o, digits + exp + 1, (size_t)(nd - exp - 1));
			o += nd - exp - 1;
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
	return sb_escape_controls_but(s, '\0', out, size);
}

char *sb_escape_controls_but(const char *s, char keep, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (size == 0)
		return out;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t need = (c < 0x20 && c != (unsigned char)keep) || c == 0x7f ? 4 : 1;
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

