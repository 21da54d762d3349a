/* The log files of a path and their order (ctl/log/logfiles.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/logfiles.h"
#include "proto/util.h"
#include "sbench/log.h"

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

/* ---- reading ---------------------------------------------------------- */

/* Makes room for want bytes; -1 when out of memory. */
static int logbuf_reserve(struct sb_logbuf *b, size_t want)
{
	char *bigger;

	if (want <= b->cap)
		return 0;
	if ((bigger = realloc(b->data, want)) == NULL)
		return -1;
	b->data = bigger;
	b->cap = want;
	return 0;
}

/* Reads fd to its end into b (at most SB_LOG_FILE_MAX + 1 bytes), starting
 * with room for hint + 1 bytes: the one byte more sees a file that grew.
 * A short read of a regular file is its end (as the kernel reads one).
 * -1 with errno (EFBIG past the limit). */
static int logbuf_fill(struct sb_logbuf *b, int fd, size_t hint)
{
	size_t max = (size_t)SB_LOG_FILE_MAX + 1;
	int intr = 0;

	b->len = 0;
	if (logbuf_reserve(b, (hint < max ? hint : max) + 1) < 0)
		return errno = ENOMEM, -1;
	for (;;) {
		size_t room;
		ssize_t k;

		if (b->len == b->cap && logbuf_reserve(b, b->cap > max / 2 ? max : b->cap * 2) < 0)
			return errno = ENOMEM, -1;
		room = b->cap - b->len;
		if (room == 0)
			return errno = EFBIG, -1; /* cap is max: the file is over the limit */
		k = read(fd, b->data + b->len, room);
		if (k < 0 && errno == EINTR && ++intr < SB_EINTR_MAX)
			continue;
		if (k < 0)
			return -1;
		b->len += (size_t)k;
		if (k == 0 || (size_t)k < room)
			break;
		intr = 0;
	}
	if (b->len > SB_LOG_FILE_MAX)
		return errno = EFBIG, -1;
	return 0;
}

int sb_logbuf_read_at(struct sb_logbuf *b, int dirfd, const char *rel, const char *shown_dir,
		      struct stat *st, struct sb_error *err)
{
	const char *sep = shown_dir ? "/" : "", *dir = shown_dir ? shown_dir : "";
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), e;

	if (fd < 0)
		return sb_errorf(err, "cannot open log '%s%s%s': %s", dir, sep, rel, strerror(errno));
	if (fstat(fd, st) < 0) {
		e = errno;
		close(fd);
		return sb_errorf(err, "cannot stat log '%s%s%s': %s", dir, sep, rel, strerror(e));
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return sb_errorf(err, "log '%s%s%s' is not a regular file", dir, sep, rel);
	}
	if (st->st_size > SB_LOG_FILE_MAX) {
		close(fd);
		return sb_errorf(err, "log '%s%s%s' is larger than the limit of %u bytes", dir, sep, rel, SB_LOG_FILE_MAX);
	}
	if (logbuf_fill(b, fd, (size_t)st->st_size) < 0) {
		e = errno;
		close(fd);
		if (e == EFBIG)
			return sb_errorf(err, "log '%s%s%s' is larger than the limit of %u bytes", dir, sep, rel,
					 SB_LOG_FILE_MAX);
		if (e == ENOMEM)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory reading log '%s%s%s'", dir, sep, rel);
		return sb_errorf(err, "cannot read log '%s%s%s': %s", dir, sep, rel, strerror(e));
	}
	close(fd);
	return 0;
}

void sb_logbuf_release(struct sb_logbuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
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
