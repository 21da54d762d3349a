/* What sb_fmt_double is checked against, shared by its unit test
 * (tests/proto/test_fmt_double.c) and its benchmark
 * (tests/bench/bench_fmt_double.c, whose --check runs millions):
 *   - sb_fmt_double_reference: the function as it was before issue 30,
 *     frozen: its text is the contract (JSON, CSV and digests carry it), and
 *     the fast sb_fmt_double must print the same bytes for every double;
 *   - fmt_sample: doubles of every kind the fast paths treat apart;
 *   - fmt_check_python: the digits and exponent against Python's repr.
 * Everything is static: each program includes this once. */
#ifndef SB_TESTS_FMT_DOUBLE_REF_H
#define SB_TESTS_FMT_DOUBLE_REF_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/util.h"

/* The reference: sb_fmt_double before issue 30, unchanged but for its name
 * (tries precisions 0..16 with snprintf + strtod). */
static char *sb_fmt_double_reference(double v, char buf[SB_DOUBLE_TEXT_MAX])
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

/* splitmix64: a fixed seed gives the same values on every machine */
static uint64_t fmt_rand(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static double fmt_from_bits(uint64_t bits)
{
	double v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

/* v moved by k ulps (k < 0: toward zero) */
static double fmt_ulps(double v, int k)
{
	for (; k > 0; k--)
		v = nextafter(v, INFINITY);
	for (; k < 0; k++)
		v = nextafter(v, 0);
	return v;
}

#define FMT_KINDS 9

/* One double of the given kind (0..FMT_KINDS-1), of either sign. */
static double fmt_sample(uint64_t *s, unsigned kind)
{
	uint64_t r = fmt_rand(s), sign = fmt_rand(s) & UINT64_C(1) << 63;
	char text[48];
	double v;

	switch (kind % FMT_KINDS) {
	case 0: /* any bit pattern (nan and inf too) */
		return fmt_from_bits(r);
	case 1: /* any normal in 1e-17..2^128, the 128-bit exact path */
		r = (r & ((UINT64_C(1) << 52) - 1)) | (uint64_t)(1023 - 57 + fmt_rand(s) % 185) << 52;
		return fmt_from_bits(r | sign);
	case 2: /* a decimal of 1 to 17 digits, as metrics are (0.001249389000008705) */
		snprintf(text, sizeof(text), "%s%llue%d", sign ? "-" : "",
			 (unsigned long long)(r % UINT64_C(100000000000000000) >> (fmt_rand(s) % 57)),
			 (int)(fmt_rand(s) % 60) - 40);
		return strtod(text, NULL);
	case 3: /* an integer, often above 2^53 */
		v = (double)(r >> (fmt_rand(s) % 64));
		return sign ? -v : v;
	case 4: /* near a power of ten, any exponent */
		snprintf(text, sizeof(text), "1e%d", (int)(fmt_rand(s) % 632) - 323);
		v = fmt_ulps(strtod(text, NULL), (int)(r % 7) - 3);
		return sign ? -v : v;
	case 5: /* near a power of two, subnormals too */
		v = fmt_ulps(ldexp(1.0, (int)(r % 2098) - 1074), (int)(fmt_rand(s) % 7) - 3);
		return sign ? -v : v;
	case 6: /* few fraction bits: decimal ties at 15, 16 and 17 digits */
		v = ldexp((double)((r >> 11) | UINT64_C(1) << 52), (int)(fmt_rand(s) % 25) - 64);
		return sign ? -v : v;
	case 7: /* a subnormal */
		return fmt_from_bits((r & ((UINT64_C(1) << 52) - 1)) | sign);
	default: /* a normal outside the 128-bit exact path, and its edges */
		r = (r & ((UINT64_C(1) << 52) - 1)) |
		    (uint64_t)(fmt_rand(s) & 1 ? 1 + fmt_rand(s) % 975 : 1023 + 120 + fmt_rand(s) % 904) << 52;
		return fmt_from_bits(r | sign);
	}
}

/* The significant digits of a text in either layout ("0.00125",
 * "1.25e-03"), without leading or trailing zeros, and the decimal exponent
 * of the first. */
static void fmt_digits(const char *t, char *digits, int *exp)
{
	int n = 0, before = -1, lead = 0; /* digits before the point, zeros before the first */
	const char *c;

	if (*t == '-')
		t++;
	for (c = t; *c && *c != 'e'; c++) {
		if (*c == '.')
			before = (int)(c - t);
		else if (n == 0 && *c == '0')
			lead++;
		else
			digits[n++] = *c;
	}
	if (before < 0)
		before = (int)(c - t);
	*exp = before - lead - 1 + (*c == 'e' ? atoi(c + 1) : 0);
	while (n > 0 && digits[n - 1] == '0')
		n--;
	if (n == 0)
		digits[n++] = '0', *exp = 0;
	digits[n] = '\0';
}

/* Compares sb_fmt_double(v[i]) with Python's repr(v[i]) for the finite
 * values among n: the same sign, significant digits and exponent.  One
 * difference is known and allowed: at 46 powers of two (2^-24, 2^89, ...)
 * the nearest 16-digit decimal falls in the quarter ulp below, outside the
 * rounding interval, and sb_fmt_double goes on to 17 digits where Python
 * finds a shorter text above; those are counted in *pow2.  Returns the
 * number of other differences (each printed to stderr, the first 10), or -1
 * when python3 does not run. */
static long fmt_check_python(const double *v, size_t n, size_t *pow2)
{
	static const char prog[] =
		"import sys\n"
		"w = sys.stdout.write\n"
		"for l in open(sys.argv[1]): w(repr(float.fromhex(l)) + '\\n')\n";
	const char *tmp = getenv("TMPDIR");
	char path[512], cmd[640], line[64], ours[SB_DOUBLE_TEXT_MAX], d1[24], d2[24];
	int fd, e1, e2, e;
	size_t i;
	long bad = 0;
	FILE *f, *py;

	*pow2 = 0;
	snprintf(path, sizeof(path), "%s/sb_fmt_double_XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (!(f = fdopen(fd, "w"))) {
		close(fd);
		unlink(path);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			fprintf(f, "%a\n", v[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 -c \"$SB_FMT_PY\" '%s'", path);
	setenv("SB_FMT_PY", prog, 1);
	py = popen(cmd, "r");
	if (!py) {
		unlink(path);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		if (!fgets(line, sizeof(line), py)) {
			bad = -1; /* no python3, or it failed */
			break;
		}
		line[strcspn(line, "\n")] = '\0';
		sb_fmt_double(v[i], ours);
		fmt_digits(ours, d1, &e1);
		fmt_digits(line, d2, &e2);
		if (!strcmp(d1, d2) && e1 == e2 && (ours[0] == '-') == (line[0] == '-'))
			continue;
		if (frexp(fabs(v[i]), &e) == 0.5 && fabs(v[i]) >= DBL_MIN &&
		    strlen(d2) < strlen(d1) && strtod(line, NULL) == v[i]) {
			++*pow2;
			continue;
		}
		if (bad++ < 10)
			fprintf(stderr, "%a: sb_fmt_double %s, Python %s\n", v[i], ours, line);
	}
	if (pclose(py) != 0 && bad == 0)
		bad = -1;
	unlink(path);
	return bad;
}

#endif
