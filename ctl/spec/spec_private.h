/* Internal layout of a loaded spec, shared by the loader (ctl/spec/spec.c,
 * ctl/spec/spec_schema.c, ctl/spec/spec_template.c, ctl/spec/spec_value.c) and ctl/plan/plan.c
 * (expansion and canonical msgpack). */
#ifndef SB_CTL_SPEC_H
#define SB_CTL_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "sbench/spec.h"

/* A compiled template: literal pieces and references. */
enum sb_seg_kind { SB_SEG_LIT, SB_SEG_PARAM, SB_SEG_REPEAT, SB_SEG_CHILD };
struct sb_seg {
	enum sb_seg_kind kind;
	size_t param;           /* SB_SEG_PARAM: index into the sorted params */
	const char *lit;        /* SB_SEG_LIT */
	size_t len;
};
struct sb_tmpl {
	struct sb_seg *segs;
	size_t nsegs;
	int line, col;
};

/* A string with its length. */
struct sb_str {
	const char *s;
	size_t len;
};

struct sb_param {
	const char *name;
	struct sb_value *values;
	size_t nvalues;
	struct sb_str *text;    /* text of each value (substitution) */
	struct sb_str *quoted;  /* the same in POSIX single quotes */
	int line, col;
};

/* An include point (every parameter set) or an exclude pattern (set[i]
 * false: any value). */
struct sb_point {
	struct sb_value *vals;
	bool *set;
	struct sb_str *text;    /* include: substitution text of each value */
	struct sb_str *quoted;  /* include: the same in POSIX single quotes */
	int line, col;
};

struct sb_env {
	const char *name;
	struct sb_tmpl value;
};

/* An entry of the `inputs` key: a file, directory or glob pattern,
 * relative to the spec's directory (docs/spec.md, "Inputs"). */
struct sb_input_pat {
	const char *pat;
	int line, col;
};

struct sb_spec {
	struct sb_arena arena;
	const char *path;
	const char *dir;        /* the spec file's directory, absolute and with links
				 * resolved (sb_spec_load); NULL for a spec read from
				 * memory */
	const char *name;
	const char *tag;
	bool shell;
	struct sb_tmpl shell_cmd;
	struct sb_tmpl *argv;
	size_t argc;
	struct sb_param *params;
	size_t nparams;
	bool has_grid;          /* false: no parameters section */
	int params_line, params_col;
	struct sb_point *include;
	size_t ninclude;
	struct sb_point *exclude;
	size_t nexclude;
	int exclude_line, exclude_col;
	int64_t repeats;
	int64_t heartbeat;
	struct sb_env *env;
	size_t nenv;
	const char **results;
	size_t nresults;
	const char *metrics;
	struct sb_slurm_options slurm;
	const char **group_by;
	size_t ngroup_by;
	const char **ametrics;
	size_t nametrics;
	bool has_ametrics;
	const char *asort;          /* analysis 'sort': the metric, or NULL */
	bool asort_desc;            /* "-METRIC": highest mean first */
	struct sb_early_rule *early_stop; /* ctl/spec/spec_earlystop.h; NULL: none */
	size_t nearly_stop;
	struct sb_spec_checkpoint *checkpoint; /* ctl/spec/spec_checkpoint.h; NULL: none */
	struct sb_input_pat *inputs; /* the `inputs` key, in the order written */
	size_t ninputs;
	int line, col;          /* the top-level mapping */
};

/* Formats "PATH:LINE:COL: message" into err; returns -1. */
int sb_spec_errorf(const struct sb_spec *spec, struct sb_error *err, int line, int col,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The absolute directory of the file at spec_path, links resolved: a
 * malloc'd string, or NULL when it cannot be resolved. */
char *sb_spec_dir_of(const char *spec_path);

/* Gives a spec read from memory the directory of its file (copied; NULL
 * leaves it without one).  -1 when out of memory. */
int sb_spec_set_dir(struct sb_spec *s, const char *dir);

/* A hash of a value consistent with sb_value_equal. */
uint64_t sb_value_hash(const struct sb_value *v);

#define SB_LANE_NAME_MAX 32
/* A lane name: 1 to SB_LANE_NAME_MAX of A-Z a-z 0-9 . _ -, not starting
 * with '.'.  -1 with an SB_ERR_INPUT error otherwise. */
int sb_lane_name_check(const char *name, struct sb_error *err);

struct sb_canon;
/* A value in canonical msgpack (base/canon.h): int, float64, bool or str. */
void sb_canon_value(struct sb_canon *c, const struct sb_value *v);

#endif
