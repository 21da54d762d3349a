/* The settings outside a benchmark's identity and the differences of an
 * edited spec (ctl/plan/settings.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_inputs.h"
#include "plan/settings.h"
#include "proto/json.h"
#include "proto/util.h"

static char *dup_or_null(const char *s, bool *failed)
{
	char *d;

	if (s == NULL)
		return NULL;
	if ((d = strdup(s)) == NULL)
		*failed = true;
	return d;
}

static int copy_fields(const char *time, int64_t throttle, const char *const *extra, size_t nextra,
		       struct sb_attempt_settings *out, struct sb_error *err)
{
	bool failed = false;

	memset(out, 0, sizeof(*out));
	out->time = dup_or_null(time, &failed);
	out->throttle = throttle;
	if (nextra > 0 && (out->extra = calloc(nextra, sizeof(*out->extra))) == NULL)
		failed = true;
	for (size_t i = 0; !failed && i < nextra; i++, out->nextra++)
		out->extra[i] = dup_or_null(extra[i], &failed);
	if (failed) {
		sb_settings_release(out);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	return 0;
}

int sb_settings_from_spec(const struct sb_spec *spec, struct sb_attempt_settings *out,
			  struct sb_error *err)
{
	const struct sb_slurm_options *o = sb_spec_slurm(spec);

	return copy_fields(o->time, o->array_throttle, o->extra, o->nextra, out, err);
}

int sb_settings_copy(const struct sb_attempt_settings *in, struct sb_attempt_settings *out,
		     struct sb_error *err)
{
	return copy_fields(in->time, in->throttle, (const char *const *)in->extra, in->nextra, out, err);
}

int sb_settings_set_time(struct sb_attempt_settings *s, const char *time, struct sb_error *err)
{
	char *t = NULL;

	if (time) {
		if (time[0] == '\0' || strlen(time) > SB_SETTINGS_TIME_MAX)
			return sb_error_set(err, SB_ERR_INPUT, "time limit '%.*s%s' is %s", 64, time,
					    strlen(time) > 64 ? "..." : "", time[0] ? "too long" : "empty");
		for (const char *p = time; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				return sb_error_set(err, SB_ERR_INPUT, "time limit '%s' has a control "
						    "character", time);
		if ((t = strdup(time)) == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	free(s->time);
	s->time = t;
	return 0;
}

void sb_settings_release(struct sb_attempt_settings *s)
{
	if (s == NULL)
		return;
	free(s->time);
	for (size_t i = 0; i < s->nextra; i++)
		free(s->extra[i]);
	free(s->extra);
	memset(s, 0, sizeof(*s));
}

static bool str_equal(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool list_equal(const char *const *a, size_t na, const char *const *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

bool sb_settings_equal(const struct sb_attempt_settings *a, const struct sb_attempt_settings *b)
{
	return str_equal(a->time, b->time) && a->throttle == b->throttle &&
	       list_equal((const char *const *)a->extra, a->nextra, (const char *const *)b->extra,
			  b->nextra);
}

/* ---- differences ------------------------------------------------------- */

/* A value as JSON text: a string (NULL: null), an integer (when is_int;
 * 0 is null when zero_null), or a list of strings (when list). */
struct value {
	const char *s;
	int64_t i;
	bool is_int, zero_null;
	const char *const *list;
	size_t n;
	bool is_list;
};

/* v as a struct sb_setting_value, copied into *out. */
static int to_setting(const struct value *v, struct sb_setting_value *out)
{
	size_t n = v->is_list ? v->n : 1;

	memset(out, 0, sizeof(*out));
	if (v->is_int) {
		out->kind = v->zero_null && v->i == 0 ? SB_SETTING_NULL : SB_SETTING_INT;
		out->i = v->i;
		return 0;
	}
	if (!v->is_list && v->s == NULL)
		return 0;
	out->kind = v->is_list ? SB_SETTING_LIST : SB_SETTING_STR;
	if ((out->v = calloc(n ? n : 1, sizeof(*out->v))) == NULL)
		return -1;
	for (out->n = 0; out->n < n; out->n++)
		if ((out->v[out->n] = strdup(v->is_list ? v->list[out->n] : v->s)) == NULL)
			return -1;
	return 0;
}

static void setting_release(struct sb_setting_value *v)
{
	for (size_t k = 0; k < v->n; k++)
		free(v->v[k]);
	free(v->v);
	memset(v, 0, sizeof(*v));
}

void sb_setting_value_json(struct sb_json *j, const struct sb_setting_value *v)
{
	switch (v->kind) {
	case SB_SETTING_NULL:
		sb_json_null(j);
		break;
	case SB_SETTING_INT:
		sb_json_int(j, v->i);
		break;
	case SB_SETTING_STR:
		sb_json_str(j, v->v[0]);
		break;
	case SB_SETTING_LIST:
		sb_json_arr_begin(j);
		for (size_t k = 0; k < v->n; k++)
			sb_json_str(j, v->v[k]);
		sb_json_arr_end(j);
		break;
	}
}

static char *json_text(const struct sb_setting_value *v)
{
	struct sb_json j;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	sb_json_init(&j, f);
	sb_setting_value_json(&j, v);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static int add_diff(struct sb_setting_diffs *d, const char *key, const struct value *stored,
		    const struct value *spec, char *advice, struct sb_error *err)
{
	struct sb_setting_diff *v = realloc(d->v, (d->n + 1) * sizeof(*v)), *e;

	if (v == NULL || advice == NULL) {
		if (v)
			d->v = v;
		free(advice);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	d->v = v;
	e = &d->v[d->n++];
	memset(e, 0, sizeof(*e));
	e->advice = advice;
	if ((e->key = strdup(key)) == NULL || to_setting(stored, &e->stored_v) < 0 ||
	    to_setting(spec, &e->spec_v) < 0 || (e->stored = json_text(&e->stored_v)) == NULL ||
	    (e->spec = json_text(&e->spec_v)) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	return 0;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int rc;

	va_start(ap, f);
	rc = vasprintf(&s, f, ap);
	va_end(ap);
	return rc < 0 ? NULL : s;
}

/* "a,b,c" of a list, for advice; malloc'd. */
static char *joined(const struct sb_spec *spec, size_t n, const char *(*item)(const struct sb_spec *, size_t))
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < n; i++)
		len += strlen(item(spec, i)) + 1;
	if ((s = malloc(len)) == NULL)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, item(spec, i));
	}
	return s;
}

static const char *const *spec_list(const struct sb_spec *spec, size_t n,
				    const char *(*item)(const struct sb_spec *, size_t),
				    const char ***buf)
{
	*buf = calloc(n ? n : 1, sizeof(**buf));
	for (size_t i = 0; *buf && i < n; i++)
		(*buf)[i] = item(spec, i);
	return *buf;
}

static const char *const NEW_TAG = "a new tag in the spec measures every child again with it";

/* The analysis defaults: group_by (which) or metrics. */
static int diff_analysis(const struct sb_spec *a, const struct sb_spec *b, bool group_by,
			 const char *bench, struct sb_setting_diffs *out, struct sb_error *err)
{
	const char *(*item)(const struct sb_spec *, size_t) = group_by ? sb_spec_group_by
								       : sb_spec_analysis_metric;
	size_t (*count)(const struct sb_spec *) = group_by ? sb_spec_group_by_count
							   : sb_spec_analysis_metric_count;
	bool has_a = group_by || sb_spec_has_analysis_metrics(a);
	bool has_b = group_by || sb_spec_has_analysis_metrics(b);
	size_t na = count(a), nb = count(b);
	const char **la = NULL, **lb = NULL;
	struct value va = { .list = spec_list(a, na, item, &la), .n = na, .is_list = has_a };
	struct value vb = { .list = spec_list(b, nb, item, &lb), .n = nb, .is_list = has_b };
	char *list, *advice;
	int rc = 0;

	if (la == NULL || lb == NULL) {
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	} else if (has_a != has_b || !list_equal(la, na, lb, nb)) {
		list = joined(b, nb, item);
		if (!has_b)
			advice = fmt("'sbctl analyze %s' uses the recorded %s; 'sbctl analyze %s "
				     "--json' shows every metric found", bench,
				     group_by ? "group_by" : "metrics", bench);
		else
			advice = fmt("'sbctl analyze %s --%s %s' analyzes with it (the recorded "
				     "spec stays the default)", bench, group_by ? "group-by" : "metrics",
				     list ? list : "");
		free(list);
		rc = add_diff(out, group_by ? "analysis.group_by" : "analysis.metrics", &va, &vb,
			      advice, err);
	}
	free(la);
	free(lb);
	return rc;
}

int sb_settings_diff(const struct sb_spec *stored, const struct sb_attempt_settings *stored_set,
		     const struct sb_spec *edited, bool taken, const char *bench,
		     struct sb_setting_diffs *out, struct sb_error *err)
{
	struct sb_attempt_settings own = { 0 }, now = { 0 };
	const struct sb_attempt_settings *was;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (sb_settings_from_spec(edited, &now, err) < 0)
		return -1;
	if (stored_set == NULL && sb_settings_from_spec(stored, &own, err) < 0) {
		sb_settings_release(&now);
		return -1;
	}
	was = stored_set ? stored_set : &own;
	if (!taken && !str_equal(was->time, now.time)) {
		struct value a = { .s = was->time }, b = { .s = now.time };
		char *advice = now.time
			? fmt("'sbctl rerun %s --only killed --time %s' reruns the children the time "
			      "limit killed with it (any class: --only CLASS[,CLASS...])", bench, now.time)
			: fmt("'sbctl rerun %s --only CLASS --time T' reruns children with another "
			      "time limit", bench);
		rc = add_diff(out, "slurm.time", &a, &b, advice, err);
	}
	if (rc == 0 && !taken && was->throttle != now.throttle) {
		struct value a = { .i = was->throttle, .is_int = true, .zero_null = true };
		struct value b = { .i = now.throttle, .is_int = true, .zero_null = true };
		rc = add_diff(out, "slurm.array_throttle", &a, &b,
			      fmt("the submitted arrays keep their throttle; %s", NEW_TAG), err);
	}
	if (rc == 0 && !taken && !list_equal((const char *const *)was->extra, was->nextra,
					     (const char *const *)now.extra, now.nextra)) {
		struct value a = { .list = (const char *const *)was->extra, .n = was->nextra, .is_list = true };
		struct value b = { .list = (const char *const *)now.extra, .n = now.nextra, .is_list = true };
		rc = add_diff(out, "slurm.extra", &a, &b,
			      fmt("the submitted arrays keep their sbatch options; %s", NEW_TAG), err);
	}
	if (rc == 0 && sb_spec_heartbeat(stored) != sb_spec_heartbeat(edited)) {
		struct value a = { .i = sb_spec_heartbeat(stored), .is_int = true };
		struct value b = { .i = sb_spec_heartbeat(edited), .is_int = true };
		rc = add_diff(out, "heartbeat", &a, &b,
			      fmt("the benchmark keeps its heartbeat (status judges its runs by it); %s",
				  NEW_TAG), err);
	}
	if (rc == 0)
		rc = diff_analysis(stored, edited, true, bench, out, err);
	if (rc == 0)
		rc = diff_analysis(stored, edited, false, bench, out, err);
	sb_settings_release(&own);
	sb_settings_release(&now);
	if (rc < 0)
		sb_setting_diffs_release(out);
	return rc;
}

void sb_setting_diffs_release(struct sb_setting_diffs *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].key);
		free(d->v[i].stored);
		free(d->v[i].spec);
		free(d->v[i].advice);
		setting_release(&d->v[i].stored_v);
		setting_release(&d->v[i].spec_v);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}

struct input_diffs {
	const char *prev, *bench;
	struct sb_setting_diffs *out;
	struct sb_error *err;
};

static int input_diff(void *arg, const char *rel, const uint8_t *was, const uint8_t *now)
{
	struct input_diffs *d = arg;
	char a[65], b[65], *key = fmt("inputs/%s", rel);
	struct value va = { .s = was ? a : NULL }, vb = { .s = now ? b : NULL };
	int rc;

	if (was)
		sb_hex_encode(was, 32, a);
	if (now)
		sb_hex_encode(now, 32, b);
	rc = key ? add_diff(d->out, key, &va, &vb,
			    fmt("the code changed since %s: the children that read it are new "
				"children of %s (none reused from there, and analysed apart)",
				d->prev, d->bench), d->err)
		 : sb_error_set(d->err, SB_ERR_NOMEM, "out of memory");
	free(key);
	return rc;
}

int sb_settings_diff_inputs(const struct sb_inputs *was, const struct sb_inputs *now,
			    const char *prev, const char *bench, struct sb_setting_diffs *out,
			    struct sb_error *err)
{
	struct input_diffs d = { prev, bench, out, err };

	return sb_inputs_compare(was, now, input_diff, &d) < 0 ? -1 : 0;
}
