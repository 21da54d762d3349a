/* The loaded spec object: its accessors, its errors at a position, and the
 * naming rules every part of the loader checks.  Loading is in
 * ctl/spec/spec_schema.c, the YAML reader in ctl/spec/spec_yaml.c, templates in
 * ctl/spec/spec_template.c, values in ctl/spec/spec_value.c. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_loader.h"
#include "spec/spec_yaml.h"

int sb_spec_errorf(const struct sb_spec *spec, struct sb_error *err, int line, int col,
		   const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = sb_ynode_verrorf(err, spec->path, line, col, fmt, ap);
	va_end(ap);
	return rc;
}

char *sb_spec_dir_of(const char *spec_path)
{
	char dir[PATH_MAX], real[PATH_MAX], *slash;

	if (snprintf(dir, sizeof(dir), "%s", spec_path) >= (int)sizeof(dir))
		return NULL;
	slash = strrchr(dir, '/');
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return realpath(dir, real) ? strdup(real) : NULL;
}

int sb_spec_set_dir(struct sb_spec *s, const char *dir)
{
	s->dir = dir ? sb_arena_strndup(&s->arena, dir, strlen(dir)) : NULL;
	return dir && s->dir == NULL ? -1 : 0;
}

int sb_spec_oom(const struct sb_spec *spec, struct sb_error *err)
{
	return sb_error_set(err, SB_ERR_NOMEM, "'%s': out of memory", spec->path);
}

bool sb_spec_valid_ident(const char *s)
{
	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* The characters of benchmark, tag and lane names. */
#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

bool sb_spec_valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > SB_SPEC_MAX_NAME)
		return false;
	return strspn(s, NAME_CHARS) == n;
}

int sb_lane_name_check(const char *name, struct sb_error *err)
{
	size_t n = strlen(name);

	if (n == 0 || n > SB_LANE_NAME_MAX || name[0] == '.' ||
	    strspn(name, NAME_CHARS) != n)
		return sb_error_set(err, SB_ERR_INPUT, "lane name '%.40s' is not valid (1 to %d of "
				    "A-Z a-z 0-9 . _ -, not starting with '.')", name, SB_LANE_NAME_MAX);
	return 0;
}

bool sb_spec_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

int sb_spec_param_index(const struct sb_spec *s, const char *name)
{
	size_t lo = 0, hi = s->nparams;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->params[mid].name, name);
		if (c == 0)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

const char *sb_spec_param_suggest(const struct sb_spec *s, const char *name, bool refs,
				  char buf[SB_SUGGEST_MAX])
{
	const char *c[SB_SPEC_MAX_PARAMS + 2];
	size_t i, n = 0;

	for (i = 0; i < s->nparams; i++)
		c[n++] = s->params[i].name;
	if (refs) {
		c[n++] = "repeat";
		c[n++] = "child";
	}
	return sb_suggest(name, c, n, buf);
}

void sb_spec_destroy(struct sb_spec *spec)
{
	if (spec == NULL)
		return;
	sb_arena_release(&spec->arena);
	free(spec);
}

/* ---- accessors ---- */

const char *sb_spec_path(const struct sb_spec *s) { return s->path; }
const char *sb_spec_name(const struct sb_spec *s) { return s->name; }
const char *sb_spec_tag(const struct sb_spec *s) { return s->tag; }
size_t sb_spec_param_count(const struct sb_spec *s) { return s->nparams; }
const char *sb_spec_param_name(const struct sb_spec *s, size_t i) { return s->params[i].name; }
size_t sb_spec_param_value_count(const struct sb_spec *s, size_t i) { return s->params[i].nvalues; }
const struct sb_value *sb_spec_param_value(const struct sb_spec *s, size_t i, size_t j)
{
	return &s->params[i].values[j];
}
int64_t sb_spec_repeats(const struct sb_spec *s) { return s->repeats; }
int64_t sb_spec_heartbeat(const struct sb_spec *s) { return s->heartbeat; }
bool sb_spec_command_is_shell(const struct sb_spec *s) { return s->shell; }
size_t sb_spec_result_count(const struct sb_spec *s) { return s->nresults; }
const char *sb_spec_result(const struct sb_spec *s, size_t i) { return s->results[i]; }
const char *sb_spec_metrics(const struct sb_spec *s) { return s->metrics; }
size_t sb_spec_env_count(const struct sb_spec *s) { return s->nenv; }
const char *sb_spec_env_name(const struct sb_spec *s, size_t i) { return s->env[i].name; }
const struct sb_slurm_options *sb_spec_slurm(const struct sb_spec *s) { return &s->slurm; }
size_t sb_spec_group_by_count(const struct sb_spec *s) { return s->ngroup_by; }
const char *sb_spec_group_by(const struct sb_spec *s, size_t i) { return s->group_by[i]; }
bool sb_spec_has_analysis_metrics(const struct sb_spec *s) { return s->has_ametrics; }
size_t sb_spec_analysis_metric_count(const struct sb_spec *s) { return s->nametrics; }
const char *sb_spec_analysis_metric(const struct sb_spec *s, size_t i) { return s->ametrics[i]; }

const char *sb_spec_analysis_sort(const struct sb_spec *s, bool *desc)
{
	if (desc)
		*desc = s->asort_desc;
	return s->asort;
}
