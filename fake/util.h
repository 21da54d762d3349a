/* The fake Slurm's small helpers: clock, environment, Slurm text formats
 * (times, ranges, patterns, signals), allocation.  Depends on nothing but
 * fake/fake.h. */
#ifndef SB_FAKE_UTIL_H
#define SB_FAKE_UTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "fake/fake.h"

double fake_now(void);
/* Replay: makes fake_now() return t (the recording's clock). */
void fake_set_now(double t);
const char *fake_prog(void);
void fake_set_prog(const char *p);
/* Reads an environment variable as a double, def when unset or bad. */
double fake_env_double(const char *name, double def);
long fake_env_long(const char *name, long def);
double fake_killwait(void);
long fake_max_array_size(void);
int fake_cpus(void);
const char *fake_nodename(void);
const char *fake_cluster(void);
const char *fake_username(void);
/* "2026-11-30T13:00:00" local time; "Unknown" for 0. */
char *fake_fmt_time(double t, char *buf, size_t n);
/* [D-]HH:MM:SS */
char *fake_fmt_elapsed(long secs, char *buf, size_t n);
/* squeue style: M:SS, H:MM:SS, D-HH:MM:SS */
char *fake_fmt_squeue_time(long secs, char *buf, size_t n);
/* Parses a Slurm --time value into seconds (-1 for UNLIMITED); -1 + *bad. */
int fake_parse_time_limit(const char *s, long *secs);
/* Parses a time for sacct -S/-E; returns 0 and sets *t, or -1. */
int fake_parse_when(const char *s, double now, double *t);
/* Array spec: fills a sorted unique list of ids (malloc'd) and throttle. */
int fake_parse_array(const char *s, long **ids, size_t *n, int *throttle);
/* Formats sorted ids as Slurm ranges "0-3,5,7-9" into buf. */
void fake_fmt_ranges(const long *ids, size_t n, char *buf, size_t len);
/* Expands %A %a %j %x %u %N %n %t %s %% (with optional zero-pad width). */
void fake_expand_pattern(const char *pat, const struct fake_job *j,
			 const struct fake_task *t, char *out, size_t len);
int fake_signal_number(const char *s);
const char *fake_signal_name(int sig);
char *fake_xstrdup(const char *s);
char *fake_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Sorted task ids of an array, collapsed like Slurm ("0-3,5%2"); malloc'd. */
char *fake_ranges_text(const long *ids, size_t n, int throttle);
#define FAKE_ROW_MAX (1 << 20)  /* bound on one printed value */
void *fake_xcalloc(size_t n, size_t sz);
void fake_trim(char *s);
int fake_strcaseeq(const char *a, const char *b);
/* 1 when word is one of the comma-separated items of list. */
int fake_in_list(const char *list, const char *word);
/* Writes buf fully; -1 on error. */
int fake_write_all(int fd, const void *buf, size_t n);
int fake_mkdir_p(const char *path, mode_t mode);

#endif
