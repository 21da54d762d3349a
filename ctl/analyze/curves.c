/* Learning curves (include/sbench/curves.h): the metrics the verified
 * heartbeats and finish records of a benchmark's logs carried, one point
 * per metric and record. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/intern.h"
#include "base/render.h"
#include "bench/bench_private.h"
#include "log/logfiles.h"
#include "plan/plan_json.h"
#include "proto/json.h"
#include "proto/mpcheck.h"
#include "proto/recordkeys.h"
#include "sbench/curves.h"
#include "sbench/log.h"
#include "sbench/plan.h"
#include "sbench/spec.h"

struct sb_curves {
	struct sb_bench *bench;           /* borrowed: the parameters */
	struct sb_curve_point *v;
	size_t n, cap;
	struct sb_intern names;           /* the metrics' names */
	const char **metrics;             /* each name once, sorted */
	size_t nmetrics, capmetrics;
	char **warnings;
	size_t nwarnings;
	size_t files, records, verified, left_out;
};

/* What reading one log works with. */
struct reading {
	struct sb_curves *c;
	const struct sb_curves_opts *o;
	size_t child;
	int64_t attempt, restart;
	size_t unverified;                /* records after the verified prefix */
	int nomem;
};

static int wanted(const struct sb_curves_opts *o, const char *name)
{
	for (size_t k = 0; o->metrics && k < o->nmetrics; k++)
		if (o->metrics[k] && !strcmp(o->metrics[k], name))
			return 1;
	return o->metrics == NULL;
}

/* The one copy of a name (and the list of names grows); NULL when out of
 * memory. */
static const char *name_of(struct sb_curves *c, const char *s, size_t len)
{
	char small[300], *buf = small;
	const char *name;
	size_t before = c->names.n;

	if (len >= sizeof(small) && (buf = malloc(len + 1)) == NULL)
		return NULL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	name = sb_intern(&c->names, buf);
	if (buf != small)
		free(buf);
	if (name != NULL && c->names.n != before) {
		if (c->nmetrics == c->capmetrics) {
			size_t cap = c->capmetrics ? 2 * c->capmetrics : 16;
			const char **v = realloc(c->metrics, cap * sizeof(*v));
			if (v == NULL)
				return NULL;
			c->metrics = v;
			c->capmetrics = cap;
		}
		c->metrics[c->nmetrics++] = name;
	}
	return name;
}

static int add_point(struct sb_curves *c, const struct sb_curve_point *p)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		struct sb_curve_point *v = realloc(c->v, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = *p;
	return 0;
}

static int number(const msgpack_object *o, double *d)
{
	switch (o->type) {
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		*d = (double)o->via.u64;
		return 1;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		*d = (double)o->via.i64;
		return 1;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		*d = o->via.f64;
		return 1;
	default:
		return 0;
	}
}

/* The points of one verified record: its metrics map at elapsed. */
static int take_metrics(struct reading *r, const msgpack_object *map, double elapsed, bool final)
{
	for (uint32_t i = 0; map && map->type == MSGPACK_OBJECT_MAP && i < map->via.map.size; i++) {
		const msgpack_object *k = &map->via.map.ptr[i].key, *v = &map->via.map.ptr[i].val;
		struct sb_curve_point p = { .child = r->child, .attempt = r->attempt,
					    .restart = r->restart, .elapsed_s = elapsed, .final = final };
		char small[300];
		size_t len;

		if (k->type != MSGPACK_OBJECT_STR || !number(v, &p.value))
			continue;
		p.is_int = v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER ||
			(v->type == MSGPACK_OBJECT_POSITIVE_INTEGER && v->via.u64 <= INT64_MAX);
		p.i = p.is_int ? v->via.i64 : 0;
		len = k->via.str.size;
		if (r->o->metrics != NULL) { /* the filter, before a name is kept */
			if (len >= sizeof(small))
				continue;
			memcpy(small, k->via.str.ptr, len);
			small[len] = '\0';
			if (!wanted(r->o, small))
				continue;
		}
		if ((p.metric = name_of(r->c, k->via.str.ptr, len)) == NULL || add_point(r->c, &p) < 0)
			return -1;
	}
	return 0;
}

static int each_record(const struct sb_log_record *rec, void *arg, struct sb_error *err)
{
	struct reading *r = arg;
	const msgpack_object *pl = &rec->payload, *t;
	bool hb = !strcmp(rec->type, SB_RT_HEARTBEAT), fin = !strcmp(rec->type, SB_RT_FINISH);
	double elapsed;

	if (!rec->verified) {
		r->unverified++;
		return 0;
	}
	if (!hb && !fin)
		return 0;
	t = sb_mp_get(pl, hb ? SB_RK_ELAPSED_S : SB_RK_WALL_S);
	if (t == NULL || !number(t, &elapsed))
		return 0;
	if (take_metrics(r, sb_mp_get(pl, SB_RK_METRICS), elapsed, fin) < 0) {
		r->nomem = 1;
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	return 0;
}

static int warn(struct sb_curves *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int warn(struct sb_curves *c, const char *fmt, ...)
{
	char **v = realloc(c->warnings, (c->nwarnings + 1) * sizeof(*v));
	va_list ap;
	int n;

	if (v == NULL)
		return -1;
	c->warnings = v;
	va_start(ap, fmt);
	n = vasprintf(&v[c->nwarnings], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	c->nwarnings++;
	return 0;
}

/* path below the benchmark directory, as warnings show it */
static const char *rel_path(const struct sb_bench *b, const char *path)
{
	size_t n = strlen(b->dir);

	return !strncmp(path, b->dir, n) && path[n] == '/' ? path + n + 1 : path;
}

static int read_one(struct sb_curves *c, struct sb_log_verifier *v, const struct sb_logfile *f,
		    const struct sb_curves_opts *o, struct sb_error *err)
{
	struct sb_run_ident want = { .bench = c->bench->digest, .child = f->name.child,
				     .attempt = f->name.attempt, .restart = -1, .pid = -1 };
	struct sb_log_expect ex = { .id = &want };
	struct reading r = { .c = c, .o = o, .child = (size_t)f->name.child,
			     .attempt = f->name.attempt, .restart = f->name.restart };
	struct sb_log_result *res;
	enum sb_log_tail tail;
	size_t nv;

	res = sb_log_read_file_each(v, f->path, &ex, each_record, &r, err);
	if (res == NULL)
		return -1;
	tail = sb_log_result_tail(res);
	nv = sb_log_result_verified(res);
	c->files++;
	c->records += sb_log_result_count(res);
	c->verified += nv;
	c->left_out += r.unverified;
	if (tail != SB_LOG_TAIL_OK && tail != SB_LOG_TAIL_TORN &&
	    warn(c, "%s: %s (%s); %s after record %zu %s not in the curves", rel_path(c->bench, f->path),
		 sb_log_result_detail(res), sb_log_tail_name(tail),
		 r.unverified == 1 ? "the record" : "the records", nv,
		 r.unverified == 1 ? "is" : "are") < 0) {
		sb_log_result_destroy(res);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	sb_log_result_destroy(res);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sb_curves_bench(const struct sb_ctx *ctx, struct sb_bench *bench,
		    const struct sb_curves_opts *opts, struct sb_curves **out,
		    struct sb_error *err)
{
	static const struct sb_curves_opts defaults;
	const struct sb_curves_opts *o = opts ? opts : &defaults;
	struct sb_logfiles files = { 0 };
	struct sb_log_verifier *v = NULL;
	struct sb_curves *c;
	struct sb_key key;
	char *events = NULL;
	struct stat st;
	size_t i, shown = 0;
	int rc = -1;

	if (out == NULL)
		return sb_error_set(err, SB_ERR_INPUT, "no result pointer given");
	*out = NULL;
	if (bench == NULL)
		return sb_error_set(err, SB_ERR_INPUT, "no benchmark given");
	if (o->has_child && (o->child < 0 || (uint64_t)o->child >= bench->children))
		return bench->children == 0 ?
			sb_error_set(err, SB_ERR_NOT_FOUND, "benchmark %s has no children, so no "
				     "child %" PRId64, bench->name, o->child) :
			sb_error_set(err, SB_ERR_NOT_FOUND, "benchmark %s has children 0 to %zu, not %"
				     PRId64, bench->name, bench->children - 1, o->child);
	if (sb_bench_plan(bench, err) < 0)
		return -1;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	c->bench = bench;
	if (sb_bench_load_key(bench, &key, err) < 0) {
		if (err != NULL)
			err->code = SB_ERR_INPUT;
		goto out;
	}
	v = sb_log_verifier_create(&key, err);
	sb_key_cleanse(&key);
	if (v == NULL)
		goto out;
	if ((events = sb_logfiles_join(bench->dir, "events")) == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (stat(events, &st) == 0) /* none before a job has run */
		sb_logfiles_walk(&files, events);
	if (files.nomem) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (files.errors > 0) {
		sb_error_set(err, SB_ERR_RUNTIME, "cannot list the logs in '%s'", events);
		goto out;
	}
	if (o->has_child)
		sb_logfiles_keep_child(&files, o->child);
	sb_logfiles_sort(&files);
	for (i = 0; i < files.n; i++) {
		const struct sb_logfile *f = &files.v[i];

		if (!f->named || f->name.child < 0 || (uint64_t)f->name.child >= bench->children) {
			if (warn(c, "%s: not a log of a child of this benchmark; not read",
				 rel_path(bench, f->path)) < 0) {
				sb_error_set(err, SB_ERR_NOMEM, "out of memory");
				goto out;
			}
			continue;
		}
		if (read_one(c, v, f, o, err) < 0)
			goto out;
		if (files.n >= 1000 && (i + 1) / 997 != shown / 997 && i + 1 != files.n) {
			sb_ctx_progress(ctx, "reading logs", i + 1, files.n);
			shown = i + 1;
		}
	}
	if (c->nmetrics > 1)
		qsort(c->metrics, c->nmetrics, sizeof(c->metrics[0]), cmp_name);
	*out = c;
	c = NULL;
	rc = 0;
out:
	sb_curves_destroy(c);
	sb_log_verifier_destroy(v);
	sb_logfiles_release(&files);
	free(events);
	return rc;
}

void sb_curves_destroy(struct sb_curves *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	free(c->metrics);
	sb_intern_release(&c->names);
	free(c->v);
	free(c);
}

size_t sb_curves_count(const struct sb_curves *c)
{
	return c ? c->n : 0;
}

int sb_curves_point(const struct sb_curves *c, size_t i, struct sb_curve_point *out)
{
	if (c == NULL || i >= c->n || out == NULL)
		return -1;
	*out = c->v[i];
	return 0;
}

size_t sb_curves_warning_count(const struct sb_curves *c)
{
	return c ? c->nwarnings : 0;
}

const char *sb_curves_warning(const struct sb_curves *c, size_t i)
{
	return c && i < c->nwarnings ? c->warnings[i] : NULL;
}

/* ---- rendering ---- */

static void json_value(struct sb_json *j, const struct sb_curve_point *p)
{
	if (p->is_int)
		sb_json_int(j, p->i);
	else
		sb_json_double(j, p->value);
}

static int render_json(const struct sb_curves *c, FILE *out, struct sb_child *pc,
		       struct sb_error *err)
{
	const struct sb_bench *b = c->bench;
	const struct sb_spec *spec = b->spec;
	struct sb_json j;
	size_t i, k;

	sb_json_init(&j, out);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "format");
	sb_json_int(&j, 1);
	sb_json_key(&j, "benchmark");
	sb_json_obj_begin(&j);
	sb_json_key(&j, "name");
	sb_json_str(&j, b->name);
	sb_json_key(&j, "tag");
	sb_json_str(&j, b->tag);
	sb_json_key(&j, "digest");
	sb_json_str(&j, b->digest);
	sb_json_key(&j, "dir");
	sb_json_str(&j, b->dir);
	sb_json_obj_end(&j);
	sb_json_key(&j, "params");
	sb_json_arr_begin(&j);
	for (k = 0; k < sb_spec_param_count(spec); k++)
		sb_json_str(&j, sb_spec_param_name(spec, k));
	sb_json_arr_end(&j);
	sb_json_key(&j, "metrics");
	sb_json_arr_begin(&j);
	for (k = 0; k < c->nmetrics; k++)
		sb_json_str(&j, c->metrics[k]);
	sb_json_arr_end(&j);
	sb_json_key(&j, "children");
	sb_json_arr_begin(&j);
	for (i = 0; i < c->n; i++) {
		if (i > 0 && c->v[i].child == c->v[i - 1].child)
			continue; /* points come in child order: each child once */
		if (sb_plan_child_params(b->plan, c->v[i].child, pc, err) < 0)
			return -1;
		sb_json_obj_begin(&j);
		sb_json_key(&j, "index");
		sb_json_uint(&j, c->v[i].child);
		sb_json_key(&j, "digest");
		sb_json_str(&j, sb_child_digest_hex(pc));
		sb_json_key(&j, "params");
		sb_json_obj_begin(&j);
		for (k = 0; k < sb_child_param_count(pc); k++) {
			sb_json_key(&j, sb_spec_param_name(spec, k));
			sb_json_spec_value(&j, sb_child_param(pc, k));
		}
		sb_json_obj_end(&j);
		sb_json_key(&j, "repeat");
		sb_json_int(&j, sb_child_repeat(pc));
		sb_json_obj_end(&j);
	}
	sb_json_arr_end(&j);
	sb_json_key(&j, "points");
	sb_json_arr_begin(&j);
	for (i = 0; i < c->n; i++) {
		const struct sb_curve_point *p = &c->v[i];

		sb_json_obj_begin(&j);
		sb_json_key(&j, "child");
		sb_json_uint(&j, p->child);
		sb_json_key(&j, "attempt");
		sb_json_int(&j, p->attempt);
		sb_json_key(&j, "restart");
		sb_json_int(&j, p->restart);
		sb_json_key(&j, "elapsed_s");
		sb_json_double(&j, p->elapsed_s);
		sb_json_key(&j, "metric");
		sb_json_str(&j, p->metric);
		sb_json_key(&j, "value");
		json_value(&j, p);
		sb_json_key(&j, "final");
		sb_json_bool(&j, p->final);
		sb_json_obj_end(&j);
	}
	sb_json_arr_end(&j);
	sb_json_key(&j, "logs");
	sb_json_obj_begin(&j);
	sb_json_key(&j, "files");
	sb_json_uint(&j, c->files);
	sb_json_key(&j, "records");
	sb_json_uint(&j, c->records);
	sb_json_key(&j, "verified");
	sb_json_uint(&j, c->verified);
	sb_json_key(&j, "left_out");
	sb_json_uint(&j, c->left_out);
	sb_json_obj_end(&j);
	sb_json_key(&j, "warnings");
	sb_json_arr_begin(&j);
	for (i = 0; i < c->nwarnings; i++)
		sb_json_str(&j, c->warnings[i]);
	sb_json_arr_end(&j);
	sb_json_obj_end(&j);
	fputc('\n', out);
	return 0;
}

static void csv_int(FILE *out, int64_t v)
{
	fprintf(out, ",%" PRId64, v);
}

static int render_csv(const struct sb_curves *c, FILE *out, struct sb_child *pc,
		      struct sb_error *err)
{
	static const char *const fixed[] = { "child", "attempt", "restart", "elapsed_s", "metric",
					     "value", "final" };
	const struct sb_spec *spec = c->bench->spec;
	size_t i, k, np = sb_spec_param_count(spec);

	for (k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
		sb_csv_field(out, fixed[k], k == 0);
	for (k = 0; k < np; k++)
		fprintf(out, ",param.%s", sb_spec_param_name(spec, k));
	fputs("\r\n", out);
	for (i = 0; i < c->n; i++) {
		const struct sb_curve_point *p = &c->v[i];

		if ((i == 0 || p->child != c->v[i - 1].child) &&
		    sb_plan_child_params(c->bench->plan, p->child, pc, err) < 0)
			return -1;
		fprintf(out, "%zu", p->child);
		csv_int(out, p->attempt);
		csv_int(out, p->restart);
		sb_csv_num(out, p->elapsed_s);
		sb_csv_field(out, p->metric, 0);
		if (p->is_int)
			csv_int(out, p->i);
		else
			sb_csv_num(out, p->value);
		sb_csv_field(out, p->final ? "true" : "false", 0);
		for (k = 0; k < np; k++)
			sb_csv_field(out, sb_child_param_text(pc, k), 0);
		fputs("\r\n", out);
	}
	return 0;
}

static int render(const void *obj, int format, FILE *out, struct sb_error *err)
{
	const struct sb_curves *c = obj;
	struct sb_child *pc;
	int rc;

	if (format != SB_FORMAT_JSON && format != SB_FORMAT_CSV)
		return sb_error_set(err, SB_ERR_INPUT, "curves are rendered as JSON or CSV, not "
				    "format %d", format);
	if ((pc = sb_child_create()) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	rc = format == SB_FORMAT_JSON ? render_json(c, out, pc, err) : render_csv(c, out, pc, err);
	sb_child_destroy(pc);
	if (rc < 0)
		return -1;
	return sb_render_flush(out, err);
}

int sb_curves_render(const struct sb_curves *c, enum sb_format format, FILE *out,
		     struct sb_error *err)
{
	if (c == NULL || out == NULL)
		return sb_error_set(err, SB_ERR_INPUT, "no curves or no output given");
	return render(c, (int)format, out, err);
}

int sb_curves_render_buffer(const struct sb_curves *c, enum sb_format format, char **buf,
			    size_t *len, struct sb_error *err)
{
	if (c == NULL)
		return sb_error_set(err, SB_ERR_INPUT, "no curves given");
	return sb_render_buffer(render, c, (int)format, buf, len, err);
}
