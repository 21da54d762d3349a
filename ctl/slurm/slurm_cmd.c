/* Every Slurm command line (slurm/slurm_cmd.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/sched.h"
#include "slurm/slurm_cmd.h"

struct argv_builder {
	char **v;
	size_t n, cap;
	int failed;
};

static void add(struct argv_builder *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct argv_builder *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (a->failed)
		return;
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		char **v = realloc(a->v, cap * sizeof(*v));
		if (v == NULL) {
			a->failed = 1;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		a->failed = 1;
		s = NULL;
	}
	va_end(ap);
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

/* The vector of a, or NULL with err when a part of it could not be made. */
static char **done(struct argv_builder *a, struct sb_error *err)
{
	if (a->failed || a->v == NULL) {
		sb_slurm_argv_free(a->v);
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	return a->v;
}

/* The vector of the NULL-terminated list of words that follows err. */
static char **vec(struct sb_error *err, ...) __attribute__((sentinel));

static char **vec(struct sb_error *err, ...)
{
	struct argv_builder a = { 0 };
	const char *w;
	va_list ap;

	va_start(ap, err);
	while ((w = va_arg(ap, const char *)) != NULL)
		add(&a, "%s", w);
	va_end(ap);
	return done(&a, err);
}

/* "--name=NAME", or NULL with err. */
static char *name_option(const char *name, struct sb_error *err)
{
	char *s;

	if (asprintf(&s, "--name=%s", name) < 0) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	return s;
}

void sb_slurm_argv_free(char **argv)
{
	if (argv == NULL)
		return;
	for (char **p = argv; *p; p++)
		free(*p);
	free(argv);
}

/* ---- sbatch ------------------------------------------------------------ */

char **sb_slurm_sbatch_argv(const struct sb_slurm_sbatch *s, struct sb_error *err)
{
	struct argv_builder a = { 0 };

	add(&a, "sbatch");
	add(&a, "--parsable");
	add(&a, "--array=%s", s->array);
	add(&a, "--job-name=%s", s->job_name);
	add(&a, "--output=%s.out", s->output);
	add(&a, "--error=%s.err", s->output);
	add(&a, "--open-mode=append");
	if (s->comment)
		add(&a, "--comment=%s", s->comment);
	if (s->after)
		add(&a, "--dependency=afterany:%s", s->after);
	if (s->partition)
		add(&a, "--partition=%s", s->partition);
	if (s->time)
		add(&a, "--time=%s", s->time);
	if (s->mem)
		add(&a, "--mem=%s", s->mem);
	if (s->cpus_per_task)
		add(&a, "--cpus-per-task=%" PRId64, s->cpus_per_task);
	if (s->gres)
		add(&a, "--gres=%s", s->gres);
	if (s->nodes)
		add(&a, "--nodes=%s", s->nodes);
	if (s->ntasks)
		add(&a, "--ntasks=%" PRId64, s->ntasks);
	if (s->constraint)
		add(&a, "--constraint=%s", s->constraint);
	if (s->signal)
		add(&a, "--signal=%s", s->signal);
	if (s->requeue)
		add(&a, "%s", s->requeue > 0 ? "--requeue" : "--no-requeue");
	for (size_t i = 0; i < s->nextra; i++)
		add(&a, "%s", s->extra[i]);
	add(&a, "%s", s->script);
	return done(&a, err);
}

int sb_slurm_sbatch_job_id(const char *out, char *job_id, size_t size)
{
	size_t n = strspn(out, "0123456789");

	if (n == 0 || n >= size || (out[n] != '\0' && out[n] != '\n' && out[n] != ';'))
		return -1;
	memcpy(job_id, out, n);
	job_id[n] = '\0';
	return 0;
}

/* ---- the lookup of a job by name ---------------------------------------- */

char **sb_slurm_squeue_named_argv(const char *name, struct sb_error *err)
{
	char *opt = name_option(name, err), **v;

	v = opt ? vec(err, "squeue", "-h", "-t", "all", "--me", opt, "-o", "%F|%k", NULL) : NULL;
	free(opt);
	return v;
}

char **sb_slurm_sacct_named_argv(const char *name, const char *since, long uid,
				 struct sb_error *err)
{
	char *opt = name_option(name, err), **v, user[24];

	snprintf(user, sizeof(user), "%ld", uid);
	v = opt ? vec(err, "sacct", "-n", "-X", "-P", "-u", user, opt, "-S", since,
		      "--format=JobID,Comment", NULL) : NULL;
	free(opt);
	return v;
}

/* The length of the job id a line of squeue %F or sacct JobID starts
 * with ("123", "123_4", "123_[0-3]" -> 3); 0 when it names no job. */
static size_t line_job_id(const char *line)
{
	size_t n = strspn(line, "0123456789");

	if (line[n] != '\0' && line[n] != '\n' && line[n] != '_' && line[n] != ';' && line[n] != '+' && line[n] != '|')
		return 0;
	return n;
}

void sb_slurm_lowest_job_id(const char *text, const char *comment, char *best, size_t size)
{
	size_t clen = strlen(comment);

	for (const char *p = text; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		size_t end = strcspn(p, "\n"), bar = strcspn(p, "|\n"), n = line_job_id(p), have;
		if (bar >= end || end - bar - 1 != clen || strncmp(p + bar + 1, comment, clen) != 0)
			continue;
		have = strlen(best);
		if (n == 0 || n >= size || n > bar)
			continue;
		if (have == 0 || n < have || (n == have && strncmp(p, best, n) < 0)) {
			memcpy(best, p, n);
			best[n] = '\0';
		}
	}
}

/* ---- cancel --------------------------------------------------------------- */

char **sb_slurm_squeue_arrays_argv(const char *ids, struct sb_error *err)
{
	return vec(err, "squeue", "-h", "-r", "-j", ids, "-o", "%F", NULL);
}

int sb_slurm_lists_job(const char *out, const char *job_id)
{
	size_t idlen = strlen(job_id);

	for (const char *p = out; *p; p += strcspn(p, "\n"), p += *p == '\n')
		if (!strncmp(p, job_id, idlen) && (p[idlen] == '\n' || p[idlen] == '\0'))
			return 1;
	return 0;
}

char **sb_slurm_scancel_argv(const char *const *ids, size_t n, struct sb_error *err)
{
	struct argv_builder a = { 0 };

	add(&a, "scancel");
	for (size_t i = 0; i < n; i++)
		add(&a, "%s", ids[i]);
	return done(&a, err);
}

/* ---- the lane's queue ----------------------------------------------------- */

char **sb_slurm_squeue_mine_argv(struct sb_error *err)
{
	return vec(err, "squeue", "--me", "-h", "-o", "%F|%j|%T", NULL);
}

int sb_slurm_mine_row(const char *line, size_t *job_len, const char **name)
{
	const char *bar = strchr(line, '|');

	if (bar == NULL)
		return -1;
	*job_len = (size_t)(bar - line);
	*name = bar + 1;
	return 0;
}

/* ---- status --------------------------------------------------------------- */

char **sb_slurm_squeue_tasks_argv(const char *ids, struct sb_error *err)
{
	return vec(err, "squeue", "-h", "-r", "-j", ids, "-o", SB_SQUEUE_FORMAT, NULL);
}

char **sb_slurm_sacct_tasks_argv(const char *ids, const char *since, struct sb_error *err)
{
	return vec(err, "sacct", "-P", "-n", "-X", "-D", "-j", ids, "-S", since,
		   "--format=" SB_SACCT_FORMAT, NULL);
}

char **sb_slurm_scontrol_config_argv(struct sb_error *err)
{
	return vec(err, "scontrol", "show", "config", NULL);
}

const char *sb_slurm_since(char buf[SB_SLURM_TIME_LEN], int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t < 0 || localtime_r(&tt, &tm) == NULL ||
	    strftime(buf, SB_SLURM_TIME_LEN, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		snprintf(buf, SB_SLURM_TIME_LEN, "2000-01-01T00:00:00");
	return buf;
}
