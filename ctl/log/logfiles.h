/* The log files of a path, for sb_logview_verify: the benchmark directory a
 * path is in, the files below a directory, and the order they are listed in
 * (child order, include/sbench/logview.h). */
#ifndef SB_CTL_LOGFILES_H
#define SB_CTL_LOGFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "sbench/error.h"

#include "sbench/logview.h"

struct sb_logfile {
	char *path;              /* as found: below the directory given, as spelled */
	bool named;              /* its last component is an agent's log name */
	struct sb_log_name name; /* when named (job points into path) */
};

struct sb_logfiles {
	struct sb_logfile *v;
	size_t n, cap;
	/* where notes go while listing */
	sb_logview_note_fn note;
	void *note_arg;
	size_t errors;           /* directories or entries that could not be read */
	bool nomem;              /* an allocation failed (counted in errors too) */
	bool full;               /* more files than the limit (10,000,000) */
};

/* Calls fn(arg, kind, MESSAGE) with the formatted message when fn is not
 * NULL.  Out of memory loses the note, nothing else. */
void sb_logfiles_note(sb_logview_note_fn fn, void *arg, enum sb_logview_note kind,
	const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The canonical path of the benchmark directory at or above path (a
 * directory holding benchmark.msgpack or keys/), malloc'd; NULL when there
 * is none (or out of memory). */
char *sb_logfiles_benchdir(const char *path);

/* a "/" b, malloc'd (no second slash when a ends with one); NULL when out of
 * memory. */
char *sb_logfiles_join(const char *a, const char *b);

/* Adds path (taken over: freed with the list, also on failure) to the list.
 * -1 when out of memory (counted in errors, with a note). */
int sb_logfiles_add(struct sb_logfiles *f, char *path);

/* Adds every regular file below dir, recursively, not following symbolic
 * links; anything else is skipped with a note.  A directory that cannot be
 * read, or nested too deep, is a note and an error; listing goes on. */
void sb_logfiles_walk(struct sb_logfiles *f, const char *dir);

/* Keeps only the named files of child `child`. */
void sb_logfiles_keep_child(struct sb_logfiles *f, int64_t child);

/* Sorts in child order: named files by sb_log_name_cmp then path, then the
 * other files by path. */
void sb_logfiles_sort(struct sb_logfiles *f);

/* A buffer reused for the bytes of one log after another (one per thread). */
struct sb_logbuf {
	char *data;
	size_t len, cap;
};

/* Reads the log rel, relative to the directory dirfd (AT_FDCWD: the working
 * directory), whole into b, and its fstat into *st: one open, one fstat and
 * (on a warm cache) one read, as a log that grows while it is read is read
 * up to where its writer was.  The errors are sb_log_read_file's, naming
 * the log "shown_dir/rel" (rel when shown_dir is NULL): not there or
 * unreadable, not a regular file, larger than SB_LOG_FILE_MAX, out of
 * memory. */
int sb_logbuf_read_at(struct sb_logbuf *b, int dirfd, const char *rel, const char *shown_dir,
		      struct stat *st, struct sb_error *err);

void sb_logbuf_release(struct sb_logbuf *b);

/* Frees the paths and the array (not f itself); f is then empty. */
void sb_logfiles_release(struct sb_logfiles *f);

#endif
