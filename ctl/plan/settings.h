/* The settings of a benchmark outside its identity (docs/benchmark-dir.md
 * "Attempt settings", docs/sbctl-submit.md "Submitting an edited spec"):
 * what may differ from one attempt to the next without changing what a
 * child is, and the differences between a recorded spec and an edited one.
 *
 * benchmark.msgpack is written once; an attempt whose sbatch settings are
 * not the recorded spec's (a rerun with --time, a benchmark none of whose
 * arrays was accepted submitted again with a corrected spec) has them in a
 * signed `settings` record of submissions/ (ctl/bench/subm.h). */
#ifndef SB_CTL_SETTINGS_H
#define SB_CTL_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbench/error.h"
#include "sbench/spec.h"

/* The longest time limit text accepted (Slurm's longest form,
 * "days-hours:minutes:seconds", is far shorter). */
#define SB_SETTINGS_TIME_MAX 63

/* The sbatch settings of an attempt that are outside the identity. */
struct sb_attempt_settings {
	char *time;           /* --time, NULL: none (the partition's default) */
	int64_t throttle;     /* the array throttle, 0: none */
	char **extra;         /* nextra more sbatch arguments */
	size_t nextra;
};

/* The spec's settings, copied into *out (released with
 * sb_settings_release). */
int sb_settings_from_spec(const struct sb_spec *spec, struct sb_attempt_settings *out,
			  struct sb_error *err);
int sb_settings_copy(const struct sb_attempt_settings *in, struct sb_attempt_settings *out,
		     struct sb_error *err);
/* Replaces the time limit of s (NULL: none); -1 (s unchanged) for a text
 * longer than SB_SETTINGS_TIME_MAX or with control characters. */
int sb_settings_set_time(struct sb_attempt_settings *s, const char *time, struct sb_error *err);
void sb_settings_release(struct sb_attempt_settings *s);
bool sb_settings_equal(const struct sb_attempt_settings *a, const struct sb_attempt_settings *b);

/* One setting outside the identity that an edited spec changed.  The
 * values are JSON texts (null, a number, a string or an array of
 * strings), so that every front end shows the same; advice says what to do
 * about it, BENCH being the benchmark's name. */
enum sb_setting_kind { SB_SETTING_NULL, SB_SETTING_INT, SB_SETTING_STR, SB_SETTING_LIST };

struct sb_setting_value {
	enum sb_setting_kind kind;
	int64_t i;
	char **v;            /* SB_SETTING_STR: v[0]; SB_SETTING_LIST: n strings */
	size_t n;
};

struct sb_setting_diff {
	char *key;           /* "slurm.time", "heartbeat", "analysis.group_by"... */
	char *stored;        /* JSON: what the benchmark has */
	char *spec;          /* JSON: what the spec file says */
	struct sb_setting_value stored_v, spec_v;  /* the same, as values */
	char *advice;
};

struct sb_setting_diffs {
	struct sb_setting_diff *v;
	size_t n;
};

/* The differences between the benchmark's recorded spec (with its
 * attempt-0 settings: stored_set, NULL for the recorded spec's own) and
 * the edited spec, in a fixed order: slurm.time, slurm.array_throttle,
 * slurm.extra, heartbeat, analysis.group_by, analysis.metrics.  When
 * taken is true (the benchmark takes the edited spec's sbatch settings:
 * none of its arrays was accepted), the sbatch settings are not
 * differences.  bench is the name the advice uses. */
int sb_settings_diff(const struct sb_spec *stored, const struct sb_attempt_settings *stored_set,
		     const struct sb_spec *edited, bool taken, const char *bench,
		     struct sb_setting_diffs *out, struct sb_error *err);
void sb_setting_diffs_release(struct sb_setting_diffs *d);

struct sb_inputs;
/* The input files of a new benchmark (now) that differ from those of an
 * earlier one of its name (was: `prev`, its name and digest), appended to
 * out as keys "inputs/<path>" with the SHA-256 of each side (null where
 * it is no input) and what follows: its children are new. */
int sb_settings_diff_inputs(const struct sb_inputs *was, const struct sb_inputs *now,
			    const char *prev, const char *bench, struct sb_setting_diffs *out,
			    struct sb_error *err);

struct sb_json;
/* Writes v as a JSON value. */
void sb_setting_value_json(struct sb_json *j, const struct sb_setting_value *v);

#endif
