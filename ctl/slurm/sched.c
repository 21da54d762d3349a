#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/sched.h"

#define MAX_FIELDS 16

static const struct {
	const char *name;
	enum sb_sched_state state;
	int terminal;
} states[] = {
	{ "PENDING", SB_STATE_PENDING, 0 },
	{ "RUNNING", SB_STATE_RUNNING, 0 },
	{ "SUSPENDED", SB_STATE_SUSPENDED, 0 },
	{ "COMPLETING", SB_STATE_COMPLETING, 0 },
	{ "COMPLETED", SB_STATE_COMPLETED, 1 },
	{ "FAILED", SB_STATE_FAILED, 1 },
	{ "TIMEOUT", SB_STATE_TIMEOUT, 1 },
	{ "CANCELLED", SB_STATE_CANCELLED, 1 },
	{ "OUT_OF_MEMORY", SB_STATE_OUT_OF_MEMORY, 1 },
	{ "NODE_FAIL", SB_STATE_NODE_FAIL, 1 },
	{ "PREEMPTED", SB_STATE_PREEMPTED, 1 },
	{ "BOOT_FAIL", SB_STATE_BOOT_FAIL, 1 },
	{ "DEADLINE", SB_STATE_DEADLINE, 1 },
	{ "REQUEUED", SB_STATE_REQUEUED, 0 },
	{ "REQUEUE_HOLD", SB_STATE_REQUEUE_HOLD, 0 },
	{ "REQUEUE_FED", SB_STATE_REQUEUE_FED, 0 },
	{ "RESIZING", SB_STATE_RESIZING, 0 },
	{ "REVOKED", SB_STATE_REVOKED, 1 },
	{ "SPECIAL_EXIT", SB_STATE_SPECIAL_EXIT, 1 },
	{ "STOPPED", SB_STATE_STOPPED, 0 },
	{ "SIGNALING", SB_STATE_SIGNALING, 0 },
	{ "STAGE_OUT", SB_STATE_STAGE_OUT, 0 },
};

#define NSTATES (sizeof(states) / sizeof(states[0]))

enum sb_sched_state sb_sched_state_parse(const char *text, long *by_uid)
{
	size_t i, len = strcspn(text, " ");

	if (by_uid)
		*by_uid = -1;
	for (i = 0; i < NSTATES; i++) {
		if (strlen(states[i].name) != len || strncmp(states[i].name, text, len) != 0)
			continue;
		if (text[len] == '\0')
			return states[i].state;
		if (states[i].state == SB_STATE_CANCELLED && !strncmp(text + len, " by ", 4)) {
			char *end;
			long uid;
			errno = 0;
			uid = strtol(text + len + 4, &end, 10);
			if (errno || end == text + len + 4 || *end != '\0' || uid < 0)
				return SB_STATE_UNKNOWN;
			if (by_uid)
				*by_uid = uid;
			return SB_STATE_CANCELLED;
		}
		return SB_STATE_UNKNOWN;
	}
	return SB_STATE_UNKNOWN;
}

const char *sb_sched_state_name(enum sb_sched_state s)
{
	size_t i;

	for (i = 0; i < NSTATES; i++)
		if (states[i].state == s)
			return states[i].name;
	return "UNKNOWN";
}

int sb_sched_state_terminal(enum sb_sched_state s)
{
	size_t i;

	for (i = 0; i < NSTATES; i++)
		if (states[i].state == s)
			return states[i].terminal;
	return 0;
}

/* Days from 1970-01-01 to the civil date y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* n digits at s as a number, or -1. */
static int digits(const char *s, int n)
{
	int v = 0;

	for (; n > 0; n--, s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

int64_t sb_sched_time_parse(const char *text, struct sb_sched_tz *tz)
{
	int y, mo, d, h, mi, se;
	int64_t asutc, hour;
	struct tm tm;
	time_t t;

	/* exactly YYYY-MM-DDTHH:MM:SS */
	if (strlen(text) != 19 || text[4] != '-' || text[7] != '-' || text[10] != 'T' ||
	    text[13] != ':' || text[16] != ':')
		return -1;
	y = digits(text, 4), mo = digits(text + 5, 2), d = digits(text + 8, 2);
	h = digits(text + 11, 2), mi = digits(text + 14, 2), se = digits(text + 17, 2);
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 ||
	    mi > 59 || se < 0 || se > 60)
		return -1;
	asutc = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
	hour = asutc / 3600 - (asutc % 3600 < 0);
	if (tz && tz->valid && tz->hour == hour)
		return asutc + tz->offset;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d;
	tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = se;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1)
		return -1;
	if (tz)
		*tz = (struct sb_sched_tz){ .hour = hour, .offset = (int64_t)t - asutc, .valid = 1 };
	return (int64_t)t;
}

/* Parses an unsigned decimal of at most 19 digits filling [s, e). */
static int parse_u64(const char *s, const char *e, uint64_t *out)
{
	uint64_t v = 0;

	if (s == e || e - s > 19)
		return -1;
	for (; s < e; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static int push(struct sb_sched_rows *rows, const struct sb_sched_row *r, struct sb_error *err)
{
	struct sb_sched_row *d, given;

	if (rows->sink) {
		d = &given;
	} else {
		if (rows->n == rows->cap) {
			size_t cap = rows->cap ? rows->cap * 2 : 64;
			struct sb_sched_row *v = realloc(rows->v, cap * sizeof(*v));
			if (v == NULL)
				return sb_error_set(err, SB_ERR_NOMEM, "scheduler rows: out of memory");
			rows->v = v;
			rows->cap = cap;
		}
		d = &rows->v[rows->n];
	}
	*d = *r;
	/* the texts, the same for many rows, kept once whatever the output */
	if ((d->name && (d->name = sb_intern(&rows->texts, d->name)) == NULL) ||
	    (d->nodes && (d->nodes = sb_intern(&rows->texts, d->nodes)) == NULL) ||
	    (d->reason && (d->reason = sb_intern(&rows->texts, d->reason)) == NULL))
		return sb_error_set(err, SB_ERR_NOMEM, "scheduler rows: out of memory");
	rows->seen++;
	if (rows->sink)
		return rows->sink(rows->sink_arg, d, err);
	rows->n++;
	return 0;
}

const char *sb_sched_row_job_id(const struct sb_sched_row *r, char buf[SB_SCHED_JOB_ID_LEN])
{
	if (r->array_task >= 0)
		snprintf(buf, SB_SCHED_JOB_ID_LEN, "%llu_%lld",
			 (unsigned long long)r->array_job, (long long)r->array_task);
	else
		snprintf(buf, SB_SCHED_JOB_ID_LEN, "%llu", (unsigned long long)r->array_job);
	return buf;
}

int sb_sched_job_id_parse(const char *text, struct sb_sched_row *r)
{
	const char *us = strchr(text, '_'), *end = text + strlen(text);
	uint64_t task;
	char back[SB_SCHED_JOB_ID_LEN];

	if (us == NULL) {
		if (parse_u64(text, end, &r->array_job) < 0)
			return -1;
		r->array_task = -1;
	} else {
		if (parse_u64(text, us, &r->array_job) < 0 || parse_u64(us + 1, end, &task) < 0 ||
		    task > INT64_MAX)
			return -1;
		r->array_task = (int64_t)task;
	}
	/* only the text it writes back ("007" is not a JobID Slurm prints) */
	return strcmp(sb_sched_row_job_id(r, back), text) ? -1 : 0;
}

/* Emits one row per task of a collapsed array id list "2-5%1" or "1,3,7-9".
 * Returns -1 on error (err set), 0 when the list is malformed (skip), or the
 * number of rows added. */
static int expand_tasks(const char *list, struct sb_sched_row *tmpl,
			struct sb_sched_rows *rows, size_t max_tasks, struct sb_error *err)
{
	const char *p = list, *stop = list + strcspn(list, "%");
	int added = 0;

	while (p < stop) {
		const char *comma = memchr(p, ',', (size_t)(stop - p));
		const char *item_end = comma ? comma : stop;
		const char *dash = memchr(p, '-', (size_t)(item_end - p));
		const char *colon = memchr(p, ':', (size_t)(item_end - p));
		uint64_t lo, hi, step = 1, t;

		if (colon && (parse_u64(colon + 1, item_end, &step) < 0 || step == 0))
			return 0;
		if (colon == NULL)
			colon = item_end;
		if (dash && dash < colon) {
			if (parse_u64(p, dash, &lo) < 0 || parse_u64(dash + 1, colon, &hi) < 0 || hi < lo)
				return 0;
		} else if (parse_u64(p, colon, &lo) == 0) {
			hi = lo;
		} else {
			return 0;
		}
		if (hi - lo > max_tasks)
			return sb_errorf(err, "scheduler array '%s' has more than %zu tasks", list, max_tasks);
		for (t = lo; t <= hi; t += step) {
			if (rows->seen >= max_tasks)
				return sb_errorf(err, "scheduler reported more than %zu tasks", max_tasks);
			tmpl->array_task = (int64_t)t;
			if (push(rows, tmpl, err) < 0)
				return -1;
			added++;
			if (hi - t < step)
				break;
		}
		p = comma ? comma + 1 : stop;
	}
	return added;
}

/* Parses a JobID ("123", "123_4", "123_[2-5%1]") into r and appends the
 * row(s).  Returns -1 on error, 0 when the id is not one sbench knows (skip),
 * 1 when rows were added. */
static int add_with_id(char *id, struct sb_sched_row *r,
		       struct sb_sched_rows *rows, size_t max_tasks, struct sb_error *err)
{
	char *us = strchr(id, '_');
	uint64_t task;

	if (us == NULL) {
		if (parse_u64(id, id + strlen(id), &r->array_job) < 0)
			return 0;
		r->array_task = -1;
		if (rows->seen >= max_tasks)
			return sb_errorf(err, "scheduler reported more than %zu tasks", max_tasks);
		return push(rows, r, err) < 0 ? -1 : 1;
	}
	if (parse_u64(id, us, &r->array_job) < 0)
		return 0;
	if (us[1] == '[') {
		char *list = us + 2; /* in the kept copy of the output: no length limit */
		size_t len = strlen(list);
		int n;
		if (len < 2 || list[len - 1] != ']')
			return 0;
		list[len - 1] = '\0';
		r->raw_id = 0; /* a collapsed row's raw id is the array's, not the tasks' */
		n = expand_tasks(list, r, rows, max_tasks, err);
		return n < 0 ? -1 : n > 0;
	}
	if (parse_u64(us + 1, us + strlen(us), &task) < 0 || task > INT64_MAX)
		return 0;
	r->array_task = (int64_t)task;
	if (rows->seen >= max_tasks)
		return sb_errorf(err, "scheduler reported more than %zu tasks", max_tasks);
	return push(rows, r, err) < 0 ? -1 : 1;
}

/* Splits line (modified in place) at '|' into at most MAX_FIELDS fields. */
static size_t split(char *line, char **f)
{
	size_t n = 0;

	f[n++] = line;
	for (char *p = line; *p; p++) {
		if (*p != '|')
			continue;
		if (n == MAX_FIELDS)
			return MAX_FIELDS + 1;
		*p = '\0';
		f[n++] = p + 1;
	}
	return n;
}

static void parse_exit(const char *text, struct sb_sched_row *r)
{
	int code, sig, used = 0;

	r->exit_code = r->exit_signal = -1;
	if (sscanf(text, "%d:%d%n", &code, &sig, &used) == 2 && text[used] == '\0' &&
	    code >= 0 && code <= 255 && sig >= 0 && sig <= 255) {
		r->exit_code = code;
		r->exit_signal = sig;
	}
}

typedef int (*row_fn)(char **f, struct sb_sched_row *r, struct sb_sched_tz *tz);

static int sacct_row(char **f, struct sb_sched_row *r, struct sb_sched_tz *tz)
{
	uint64_t raw;

	if (parse_u64(f[1], f[1] + strlen(f[1]), &raw) == 0)
		r->raw_id = raw;
	r->name = f[2];
	r->state = sb_sched_state_parse(f[3], &r->cancelled_by);
	parse_exit(f[4], r);
	r->submit = sb_sched_time_parse(f[5], tz);
	r->start = sb_sched_time_parse(f[6], tz);
	r->end = sb_sched_time_parse(f[7], tz);
	r->nodes = f[8];
	r->reason = "";
	return r->state != SB_STATE_UNKNOWN;
}

static int squeue_row(char **f, struct sb_sched_row *r, struct sb_sched_tz *tz)
{
	uint64_t raw;

	(void)tz; /* squeue gives no times */
	if (parse_u64(f[1], f[1] + strlen(f[1]), &raw) == 0)
		r->raw_id = raw;
	r->name = f[2];
	r->state = sb_sched_state_parse(f[3], &r->cancelled_by);
	r->reason = f[4];
	r->nodes = "";
	r->exit_code = r->exit_signal = -1;
	r->submit = r->start = r->end = -1;
	return r->state != SB_STATE_UNKNOWN;
}

/* One line at a time into a buffer of the longest line so far: the rows
 * keep interned texts, so the output is never copied whole. */
static int parse_lines(const char *text, size_t nfields, row_fn fn,
		       struct sb_sched_rows *rows, size_t max_tasks, struct sb_error *err)
{
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	while (*text && rc == 0) {
		size_t len = strcspn(text, "\n");
		char *f[MAX_FIELDS];
		struct sb_sched_row r;

		if (len + 1 > cap) {
			char *v = realloc(line, len + 1);
			if (v == NULL) {
				rc = sb_error_set(err, SB_ERR_NOMEM, "scheduler rows: out of memory");
				break;
			}
			line = v;
			cap = len + 1;
		}
		memcpy(line, text, len);
		line[len] = '\0';
		text += len + (text[len] == '\n');
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (len == 0)
			continue;
		memset(&r, 0, sizeof(r));
		if (split(line, f) != nfields || !fn(f, &r, &rows->tz)) {
			rows->skipped++;
			continue;
		}
		rc = add_with_id(f[0], &r, rows, max_tasks, err);
		if (rc == 0)
			rows->skipped++;
		rc = rc < 0 ? -1 : 0;
	}
	free(line);
	return rc;
}

int sb_sacct_parse(const char *text, struct sb_sched_rows *rows, size_t max_tasks,
		   struct sb_error *err)
{
	return parse_lines(text, 9, sacct_row, rows, max_tasks, err);
}

int sb_squeue_parse(const char *text, struct sb_sched_rows *rows, size_t max_tasks,
		    struct sb_error *err)
{
	return parse_lines(text, 5, squeue_row, rows, max_tasks, err);
}

void sb_sched_rows_release(struct sb_sched_rows *rows)
{
	if (rows == NULL)
		return;
	sb_intern_release(&rows->texts);
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}
