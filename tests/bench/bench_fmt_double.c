/* What the text of a float costs (issue 30: sb_fmt_double was 12% of
 * `sbctl status --json`): ns per call of sb_fmt_double (proto/util.c)
 * beside sb_fmt_double_reference, the loop over precisions 0..16 it
 * replaced (tests/proto/fmt_double_ref.h), on sets of values like those
 * JSON carries, each checked to give the same bytes.
 * usage: build/tests/bench_fmt_double [--check N [--python]] [--seed S]
 *   --check N   also compares the two on N values of every kind (random bit
 *               patterns, subnormals, near powers of two and ten, integers
 *               above 2^53, decimal ties, ...), about 10 us each
 *   --python    and compares the same N with Python's repr (digits and
 *               exponent; the known difference at 46 powers of two apart) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto/util.h"
#include "tests/proto/fmt_double_ref.h"
#include "tests/bench/bench_clock.h"

#define SET 4096
#define ROUNDS 5

/* a uniform double in [0, 1) with 53 random bits */
static double unit(uint64_t *s)
{
	return (double)(fmt_rand(s) >> 11) / 9007199254740992.0;
}

/* value i of a set */
static double make(const char *set, uint64_t *s, unsigned i)
{
	char text[32];

	if (!strcmp(set, "metrics")) /* computed: 0.001249389000008705, 0.7071067811865476 */
		return exp(-10 * unit(s)) * (i % 2 ? 1 : 3.7);
	if (!strcmp(set, "integers")) /* counts, bytes, epochs: 42.0, 1048576.0 */
		return (double)(fmt_rand(s) % (UINT64_C(10) << (i % 24)));
	if (!strcmp(set, "short")) { /* 0.5, 0.001, 2.5e-07, 1e-7 */
		snprintf(text, sizeof(text), "%llue%d", (unsigned long long)(fmt_rand(s) % 1000 + 1),
			 (int)(fmt_rand(s) % 12) - 10);
		return strtod(text, NULL);
	}
	if (!strcmp(set, "large")) /* 1.5e+16 .. 1e+30 */
		return pow(10, 16 + 14 * unit(s));
	if (!strcmp(set, "tiny")) /* 1e-40 .. 1e-17: snprintf's 15/16/17 path */
		return pow(10, -40 + 23 * unit(s));
	return fmt_sample(s, i); /* "every": every kind, subnormals too */
}

static double ns_per_call(char *(*fmt)(double, char *), const double *v)
{
	char buf[SB_DOUBLE_TEXT_MAX];
	volatile char sink = 0;
	double t0 = now(), t;
	long reps = 0;

	do {
		for (unsigned i = 0; i < SET; i++)
			sink ^= fmt(v[i], buf)[0];
		reps++;
	} while ((t = now() - t0) < 0.05);
	(void)sink;
	return t * 1e9 / (double)(reps * SET);
}

static int timing(uint64_t seed)
{
	static const char *sets[] = { "metrics", "integers", "short", "large", "tiny", "every" };
	static double v[SET];
	char a[SB_DOUBLE_TEXT_MAX], b[SB_DOUBLE_TEXT_MAX];
	int bad = 0;

	printf("%-10s %12s %12s %8s   (ns per call, median of %d; %d values a set)\n",
	       "values", "reference", "sb_fmt_double", "speedup", ROUNDS, SET);
	for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
		double old[ROUNDS], new[ROUNDS];
		uint64_t s = seed + k;

		for (unsigned i = 0; i < SET; i++) {
			v[i] = make(sets[k], &s, i);
			if (strcmp(sb_fmt_double_reference(v[i], a), sb_fmt_double(v[i], b)) != 0 && bad++ < 10)
				fprintf(stderr, "MISMATCH %a: reference %s, sb_fmt_double %s\n", v[i], a, b);
		}
		for (int r = 0; r < ROUNDS; r++) {
			old[r] = ns_per_call(sb_fmt_double_reference, v);
			new[r] = ns_per_call(sb_fmt_double, v);
		}
		qsort(old, ROUNDS, sizeof(double), cmp_double);
		qsort(new, ROUNDS, sizeof(double), cmp_double);
		printf("%-10s %12.0f %12.0f %7.1fx   e.g. %s\n", sets[k], old[ROUNDS / 2], new[ROUNDS / 2],
		       old[ROUNDS / 2] / new[ROUNDS / 2], sb_fmt_double(v[5], b));
	}
	return bad;
}

static int check(uint64_t seed, long n, int python)
{
	enum { CHUNK = 1 << 20 };
	char a[SB_DOUBLE_TEXT_MAX], b[SB_DOUBLE_TEXT_MAX];
	double *v = malloc(CHUNK * sizeof(*v)), t0 = now();
	long done = 0, bad = 0, pybad = 0;
	size_t pow2 = 0, p2;
	uint64_t s = seed;

	if (v == NULL)
		return 1;
	while (done < n) {
		size_t m = (size_t)(n - done < CHUNK ? n - done : CHUNK), i;

		for (i = 0; i < m; i++) {
			v[i] = fmt_sample(&s, (unsigned)(done + (long)i));
			if (strcmp(sb_fmt_double_reference(v[i], a), sb_fmt_double(v[i], b)) != 0 && bad++ < 10)
				fprintf(stderr, "MISMATCH %a: reference %s, sb_fmt_double %s\n", v[i], a, b);
		}
		if (python) {
			long r = fmt_check_python(v, m, &p2);

			if (r < 0) {
				fprintf(stderr, "python3 did not run\n");
				free(v);
				return 1;
			}
			pybad += r, pow2 += p2;
		}
		done += (long)m;
	}
	free(v);
	printf("check: %ld values (seed %llu), %ld differ from the reference (%.1f s)\n", n,
	       (unsigned long long)seed, bad, now() - t0);
	if (python)
		printf("check: %ld differ from Python's repr, beside %zu powers of two where it is shorter\n",
		       pybad, pow2);
	return bad != 0 || pybad != 0;
}

int main(int argc, char **argv)
{
	uint64_t seed = 30;
	long n = 0;
	int python = 0, bad;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--check") && i + 1 < argc)
			n = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--python"))
			python = 1;
		else {
			fprintf(stderr, "usage: %s [--check N [--python]] [--seed S]\n", argv[0]);
			return 2;
		}
	}
	bad = timing(seed);
	if (n > 0)
		bad |= check(seed, n, python);
	return bad ? 1 : 0;
}
