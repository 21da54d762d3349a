/* sbench — benchmark specs (docs/spec.md).
 *
 * A spec is a YAML file read with the YAML 1.2 core schema.  Loading checks
 * everything that can be checked without expanding the grid; sb_plan_create
 * (sbench/plan.h) expands it.  Every error message starts with
 * "FILE:LINE:COLUMN: " (1-based) when it is about a place in the file, or
 * with the quoted path when it is about the file itself.
 *
 * A loaded spec is immutable; every pointer it hands out is borrowed and
 * lives as long as the spec. */
#ifndef SBENCH_SPEC_H
#define SBENCH_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits on user-controlled sizes (docs/spec.md, "Limits"). */
#define SB_SPEC_MAX_FILE_SIZE (1024 * 1024)     /* bytes of the spec file */
#define SB_SPEC_MAX_STRING 16384                /* bytes of one scalar */
#define SB_SPEC_MAX_DEPTH 16                    /* nesting of collections */
#define SB_SPEC_MAX_NAME 64                     /* name, tag */
#define SB_SPEC_MAX_PARAMS 64                   /* parameters */
#define SB_SPEC_MAX_VALUES 100000               /* values of one parameter */
#define SB_SPEC_MAX_POINTS 100000               /* include entries, exclude entries */
#define SB_SPEC_MAX_LIST 4096                   /* argv, env, results, extra, analysis lists */
#define SB_SPEC_MAX_REPEATS 1000000             /* repeats */
#define SB_SPEC_MAX_CHILDREN 10000000           /* children, and grid points before exclude */
#define SB_SPEC_MAX_RESOLVED (1024 * 1024)      /* bytes of a resolved command; of all env values */

enum sb_value_type {
	SB_VALUE_INT = 1,
	SB_VALUE_FLOAT,
	SB_VALUE_BOOL,
	SB_VALUE_STR,
};

/* A parameter value: a YAML core-schema scalar.  Floats are finite and
 * never -0.0.  s is NUL-terminated (len excludes the NUL; s may contain NUL
 * bytes only if the YAML escaped one). */
struct sb_value {
	enum sb_value_type type;
	union {
		int64_t i;
		double f;
		bool b;
		struct {
			const char *s;
			size_t len;
		} str;
	} u;
};

/* Two values are equal when their types and canonical values are equal
 * (1 is not 1.0, "1" is not 1). */
bool sb_value_equal(const struct sb_value *a, const struct sb_value *b);

/* The text of a value used for substitution and display: ints in decimal,
 * floats by the float text rule, bools true/false, strings as they are.
 * Returns a malloc'd string, or NULL when out of memory. */
char *sb_value_text(const struct sb_value *v);

struct sb_spec;

/* Reads and checks the spec file at path.  Returns NULL with err filled on
 * any problem (missing, unreadable or too large file, invalid YAML, a bad
 * spec); messages carry path:line:column.  err->code: SB_ERR_NOT_FOUND
 * when the file does not exist, SB_ERR_NOMEM when out of memory, else
 * SB_ERR_INPUT. */
struct sb_spec *sb_spec_load(const char *path, struct sb_error *err);

/* Like sb_spec_load, for a spec already in memory; display_name is used in
 * messages in place of the path.  data need not be NUL-terminated. */
struct sb_spec *sb_spec_load_buffer(const char *data, size_t len,
				    const char *display_name, struct sb_error *err);

/* Frees a spec; accepts NULL. */
void sb_spec_destroy(struct sb_spec *spec);

/* The warning `sbctl plan` and `sbctl submit` print when the spec file at
 * path lies in a git work tree with changes not committed, or is not
 * committed itself (the benchmark record would say so): a malloc'd line
 * without a program name in front, to free with sb_free; NULL when there is
 * nothing to say (also when git is not installed or path is in no work
 * tree, or out of memory).  Runs `git -C <the spec's directory>`. */
char *sb_spec_dirty_warning(const char *path);

/* The path (or display name) the spec was loaded from. */
const char *sb_spec_path(const struct sb_spec *spec);
const char *sb_spec_name(const struct sb_spec *spec);
/* The tag, or NULL when the spec has none. */
const char *sb_spec_tag(const struct sb_spec *spec);

/* Parameters, sorted by name (UTF-8 bytes); values in the order written. */
size_t sb_spec_param_count(const struct sb_spec *spec);
const char *sb_spec_param_name(const struct sb_spec *spec, size_t i);
size_t sb_spec_param_value_count(const struct sb_spec *spec, size_t i);
const struct sb_value *sb_spec_param_value(const struct sb_spec *spec, size_t i, size_t j);

/* repeats (>= 1, default 1) and heartbeat seconds (default 60). */
int64_t sb_spec_repeats(const struct sb_spec *spec);
int64_t sb_spec_heartbeat(const struct sb_spec *spec);

/* true when the command is a shell string (run with /bin/sh -c). */
bool sb_spec_command_is_shell(const struct sb_spec *spec);

/* Declared result files (relative paths, in the order written) and the
 * metrics file (NULL when none).  Neither is a template. */
size_t sb_spec_result_count(const struct sb_spec *spec);
const char *sb_spec_result(const struct sb_spec *spec, size_t i);
const char *sb_spec_metrics(const struct sb_spec *spec);

/* env names, sorted; their values are templates resolved per child
 * (sb_child_env_value in sbench/plan.h). */
size_t sb_spec_env_count(const struct sb_spec *spec);
const char *sb_spec_env_name(const struct sb_spec *spec, size_t i);

/* The slurm section.  Strings are NULL and integers 0 when not given. */
struct sb_slurm_options {
	const char *partition;
	const char *time;
	const char *mem;
	const char *gres;
	const char *nodes;
	const char *constraint;
	int64_t cpus_per_task;
	int64_t ntasks;
	int64_t array_throttle;
	size_t nextra;
	const char *const *extra;   /* nextra extra sbatch arguments */
};
const struct sb_slurm_options *sb_spec_slurm(const struct sb_spec *spec);

/* The analysis section.  group_by defaults to every parameter; metrics to
 * none listed (nmetrics 0, has_metrics false: every metric found). */
size_t sb_spec_group_by_count(const struct sb_spec *spec);
const char *sb_spec_group_by(const struct sb_spec *spec, size_t i);
bool sb_spec_has_analysis_metrics(const struct sb_spec *spec);
size_t sb_spec_analysis_metric_count(const struct sb_spec *spec);
const char *sb_spec_analysis_metric(const struct sb_spec *spec, size_t i);
/* The analysis's ranking metric ("sort: loss", lowest mean first; "sort:
 * -accuracy", highest first: *desc true), or NULL when the spec has none.
 * desc may be NULL. */
const char *sb_spec_analysis_sort(const struct sb_spec *spec, bool *desc);

#ifdef __cplusplus
}
#endif

#endif
