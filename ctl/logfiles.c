/* The log files of a path and their order (ctl/logfiles.h). */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl/logfiles.h"

#define MAX_DEPTH 16
#define MAX_FILES ((size_t)10000000)

void sb_logfiles_note(sb_logview_note_fn fn, void *arg, enum sb_logview_note kind,
	const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	if (fn == NULL)
		return;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	fn(arg, kind, msg);
	free(msg);
}

/* ---- names ------------------------------------------------------------ */

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

/* ---- listing ---------------------------------------------------------- */

char *sb_logfiles_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	bool slash = la > 0 && a[la - 1] == '/';
	char *s = malloc(la + strlen(b) + 2);

	if (s != NULL)
		sprintf(s, "%s%s%s", a, slash ? "" : "/", b);
	return s;
}

static bool exists(const char *dir, const char *name)
{
	char *p = sb_logfiles_join(dir, name);
	struct stat st;
	bool ok = p != NULL && stat(p, &st) == 0;

	free(p);
	return ok;
}

/* Cuts the last component off an absolute path; false at "/". */
static bool up(char *dir)
{
	char *slash = strrchr(dir, '/');

	if (slash == NULL || (slash == dir && dir[1] == '\0'))
		return false;
	*(slash == dir ? slash + 1 : slash) = '\0';
	return true;
}

char *sb_logfiles_benchdir(const char *path)
{
	char *dir = realpath(path, NULL);
	struct stat st;

	if (dir == NULL)
		return NULL;
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		up(dir);
	do {
		if (exists(dir, "benchmark.msgpack") || exists(dir, "keys"))
			return dir;
	} while (up(dir));
	free(dir);
	return NULL;
}

static void nomem(struct sb_logfiles *f)
{
	if (!f->nomem)
		sb_logfiles_note(f->note, f->note_arg, SB_LOGVIEW_NOTE_IO_ERROR,
				 "out of memory listing the log files");
	f->nomem = true;
	f->errors++;
}

int sb_logfiles_add(struct sb_logfiles *f, char *path)
{
	const char *base;
	struct sb_logfile *lf;

	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		struct sb_logfile *v = realloc(f->v, cap * sizeof(*v));
		if (v == NULL) {
			free(path);
			nomem(f);
			return -1;
		}
		f->v = v;
		f->cap = cap;
	}
	lf = &f->v[f->n++];
	lf->path = path;
	base = strrchr(path, '/');
	lf->named = sb_log_name_parse(base ? base + 1 : path, &lf->name) == 0;
	return 0;
}

static void walk(struct sb_logfiles *f, const char *dir, int depth)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	char *p;

	if (depth > MAX_DEPTH) {
		sb_logfiles_note(f->note, f->note_arg, SB_LOGVIEW_NOTE_IO_ERROR,
			"'%s' is nested more than %d directories deep; not read", dir, MAX_DEPTH);
		f->errors++;
		return;
	}
	d = opendir(dir);
	if (d == NULL) {
		sb_logfiles_note(f->note, f->note_arg, SB_LOGVIEW_NOTE_IO_ERROR,
			"cannot read directory '%s': %s", dir, strerror(errno));
		f->errors++;
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = sb_logfiles_join(dir, e->d_name);
		if (p == NULL) {
			nomem(f);
			continue;
		}
		if (lstat(p, &st) < 0) {
			sb_logfiles_note(f->note, f->note_arg, SB_LOGVIEW_NOTE_IO_ERROR,
				"cannot stat '%s': %s", p, strerror(errno));
			f->errors++;
			free(p);
		} else if (S_ISDIR(st.st_mode)) {
			walk(f, p, depth + 1);
			free(p);
		} else if (!S_ISREG(st.st_mode)) {
			sb_logfiles_note(f->note, f->note_arg, SB_LOGVIEW_NOTE_SKIPPED,
				"skipping '%s': not a regular file", p);
			free(p);
		} else if (f->n >= MAX_FILES) {
			if (!f->full)
				sb_logfiles_note(f->note, f->note_arg, SB_LOGVIEW_NOTE_IO_ERROR,
					"more than %zu log files; '%s' and the rest not read",
					MAX_FILES, p);
			f->full = true;
			f->errors++;
			free(p);
		} else {
			sb_logfiles_add(f, p);
		}
	}
	closedir(d);
}

void sb_logfiles_walk(struct sb_logfiles *f, const char *dir)
{
	walk(f, dir, 0);
}

void sb_logfiles_keep_child(struct sb_logfiles *f, int64_t child)
{
	size_t i, k = 0;

	for (i = 0; i < f->n; i++) {
		if (f->v[i].named && f->v[i].name.child == child)
			f->v[k++] = f->v[i];
		else
			free(f->v[i].path);
	}
	f->n = k;
}

static int cmp_file(const void *pa, const void *pb)
{
	const struct sb_logfile *a = pa, *b = pb;
	int c;

	if (a->named != b->named)
		return a->named ? -1 : 1;
	if (a->named && (c = sb_log_name_cmp(&a->name, &b->name)) != 0)
		return c;
	return strcmp(a->path, b->path);
}

void sb_logfiles_sort(struct sb_logfiles *f)
{
	if (f->n > 1)
		qsort(f->v, f->n, sizeof(f->v[0]), cmp_file);
}

void sb_logfiles_release(struct sb_logfiles *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i].path);
	free(f->v);
	f->v = NULL;
	f->n = f->cap = 0;
}
