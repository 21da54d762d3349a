/* The paths of a benchmark directory and the agents' log names
 * (proto/benchdir.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "proto/benchdir.h"
#include "sbench/log.h"

static int fmt(char *buf, size_t size, const char *dir, const char *f, ...)
	__attribute__((format(printf, 4, 5)));

/* "<dir>/" (when dir is not NULL) then the formatted rest. */
static int fmt(char *buf, size_t size, const char *dir, const char *f, ...)
{
	va_list ap;
	int n = 0, m;

	if (size == 0)
		return -1;
	if (dir) {
		n = snprintf(buf, size, "%s/", dir);
		if (n < 0 || (size_t)n >= size)
			return -1;
	}
	va_start(ap, f);
	m = vsnprintf(buf + n, size - (size_t)n, f, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= size - (size_t)n)
		return -1;
	return n + m;
}

int sb_bdir_key(char *buf, size_t size, const char *dir)
{
	return fmt(buf, size, dir, "%s", SB_BENCH_KEY);
}

int sb_bdir_run(char *buf, size_t size, const char *dir, int64_t child)
{
	return fmt(buf, size, dir, "runs/%" PRId64, child);
}

int sb_bdir_attempt(char *buf, size_t size, const char *dir, int64_t attempt)
{
	return fmt(buf, size, dir, "jobs/a%" PRId64, attempt);
}

int sb_bdir_attempt_tmp(char *buf, size_t size, const char *dir, int64_t attempt)
{
	return fmt(buf, size, dir, "jobs/.a%" PRId64 ".tmp", attempt);
}

int sb_bdir_chunk(char *buf, size_t size, const char *dir, int64_t attempt, int64_t chunk,
		  const char *ext)
{
	return fmt(buf, size, dir, "jobs/a%" PRId64 "/chunk-%" PRId64 ".%s", attempt, chunk, ext);
}

int sb_bdir_chunk_file(char *buf, size_t size, const char *adir, int64_t chunk, const char *ext)
{
	return fmt(buf, size, adir, "chunk-%" PRId64 ".%s", chunk, ext);
}

int sb_bdir_chunk_output(char *buf, size_t size, const char *adir, int64_t chunk)
{
	return fmt(buf, size, adir, "c%" PRId64, chunk);
}

int sb_bdir_slurm_output(char *buf, size_t size, const char *dir, int64_t attempt, int64_t chunk)
{
	return fmt(buf, size, dir, "jobs/a%" PRId64 "/c%" PRId64 "/slurm-%%A_%%a", attempt, chunk);
}

int sb_bdir_log(char *buf, size_t size, const char *dir, int64_t child, int64_t attempt,
		const char *job, int64_t restart)
{
	return fmt(buf, size, dir, "events/%" PRId64 "/%" PRId64 ".a%" PRId64 ".j%s.r%" PRId64 ".log",
		   child / 1000, child, attempt, job, restart);
}

/* ---- log names ---------------------------------------------------------- */

/* Decimal digits at *p into *v (fits int64_t); advances *p. */
static int parse_num(const char **p, int64_t *v)
{
	const char *s = *p;
	int64_t x = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (INT64_MAX - (*s - '0')) / 10)
			return -1;
		x = 10 * x + (*s - '0');
	}
	*v = x;
	*p = s;
	return 0;
}

static int expect(const char **p, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*p, lit, n) != 0)
		return -1;
	*p += n;
	return 0;
}

int sb_log_name_parse(const char *name, struct sb_log_name *out)
{
	struct sb_log_name n;
	const char *p = name;

	if (name == NULL || parse_num(&p, &n.child) < 0 || expect(&p, ".a") < 0 ||
	    parse_num(&p, &n.attempt) < 0 || expect(&p, ".j") < 0)
		return -1;
	n.job = p;
	while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z'))
		p++;
	n.job_len = (size_t)(p - n.job);
	if (n.job_len == 0 || expect(&p, ".r") < 0 || parse_num(&p, &n.restart) < 0 ||
	    strcmp(p, ".log") != 0)
		return -1;
	*out = n;
	return 0;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static bool all_digits(const char *s, size_t n)
{
	return strspn(s, "0123456789") >= n;
}

int sb_log_name_cmp(const struct sb_log_name *a, const struct sb_log_name *b)
{
	size_t n = a->job_len < b->job_len ? a->job_len : b->job_len;
	const char *x = a->job, *y = b->job;
	size_t xn = a->job_len, yn = b->job_len;
	int c;

	if ((c = cmp_i64(a->child, b->child)) != 0 || (c = cmp_i64(a->attempt, b->attempt)) != 0 ||
	    (c = cmp_i64(a->restart, b->restart)) != 0)
		return c;
	if (all_digits(x, xn) && all_digits(y, yn)) {
		/* numerically: without leading zeros, the shorter is smaller */
		for (; xn > 1 && *x == '0'; x++, xn--)
			;
		for (; yn > 1 && *y == '0'; y++, yn--)
			;
		if (xn != yn)
			return xn < yn ? -1 : 1;
		return memcmp(x, y, xn);
	}
	c = memcmp(x, y, n);
	return c != 0 ? c : (xn > yn) - (xn < yn);
}
