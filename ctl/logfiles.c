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
