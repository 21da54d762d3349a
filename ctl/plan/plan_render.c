/* Rendering a plan: the table and the JSON document of `sbctl plan`
 * (docs/sbctl-plan.md), for every front end (include/sbench/plan.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "plan/plan_inputs.h"
#include "plan/plan_json.h"
#include "base/render.h"
#include "proto/json.h"
#include "proto/util.h"
#include "spec/spec_checkpoint.h"
#include "sbench/plan.h"
#include "sbench/spec.h"

/* A parameter value.  A float is written as its text cached in the spec:
 * the same sb_fmt_double text sb_json_double would print (finite, never
 * -0.0), without searching for it again for every child (that search costs
 * microseconds, and a grid repeats each value many times). */
static void json_value(struct sb_json *j, const struct sb_value *v, const char *text)
{
	if (v->type == SB_VALUE_FLOAT)
		sb_json_raw(j, text);
	else
		sb_json_spec_value(j, v);
}

/* One child as a JSON object, a document of its own on out. */
static int json_child(const struct sb_plan *plan, struct sb_child *ch, size_t i, FILE *out,
		      struct sb_error *err)
{
	const struct sb_spec *spec = sb_plan_spec(plan);
	size_t k, np = sb_spec_param_count(spec);
	struct sb_json j;

	if (sb_plan_child(plan, i, ch, err) < 0)
		return -1;
	sb_json_init(&j, out);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "index");
	sb_json_uint(&j, i);
	sb_json_key(&j, "digest");
	sb_json_strn(&j, sb_child_digest_hex(ch), SB_DIGEST_HEX_LEN);
	sb_json_key(&j, "params");
	sb_json_obj_begin(&j);
	for (k = 0; k < np; k++) {
		sb_json_key(&j, sb_spec_param_name(spec, k));
		json_value(&j, sb_child_param(ch, k), sb_child_param_text(ch, k));
	}
	sb_json_obj_end(&j);
	sb_json_key(&j, "repeat");
	sb_json_uint(&j, (uint64_t)sb_child_repeat(ch));
	sb_json_key(&j, "command");
	if (sb_child_is_shell(ch)) {
		sb_json_strn(&j, sb_child_shell(ch), strlen(sb_child_shell(ch)));
	} else {
		sb_json_arr_begin(&j);
		for (k = 0; k < sb_child_argc(ch); k++)
			sb_json_strn(&j, sb_child_argv(ch)[k], strlen(sb_child_argv(ch)[k]));
		sb_json_arr_end(&j);
	}
	sb_json_obj_end(&j);
	if (sb_json_error(&j))
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	return 0;
}

/* A run of children formatted into memory, ',' before each but the very
 * first child: the children array is formatted by several threads, chunk
 * by chunk, and written in order, so the bytes are those of one writer. */
struct json_chunk {
	const struct sb_plan *plan;
	size_t from, to;
	char *buf;
	size_t len;
	int rc;
	struct sb_error err;
};

#define JSON_CHUNK 8192
#define JSON_THREADS 8

static void *json_chunk_run(void *arg)
{
	struct json_chunk *c = arg;
	struct sb_child *ch = sb_child_create();
	FILE *f = open_memstream(&c->buf, &c->len);
	size_t i;

	c->rc = -1;
	if (ch == NULL || f == NULL) {
		sb_error_set(&c->err, SB_ERR_NOMEM, "out of memory");
	} else {
		flockfile(f);
		for (i = c->from; i < c->to; i++) {
			if (i > 0)
				fputc_unlocked(',', f);
			if (json_child(c->plan, ch, i, f, &c->err) < 0)
				break;
		}
		funlockfile(f);
		if (i == c->to)
			c->rc = 0;
	}
	if (f != NULL && fclose(f) != 0 && c->rc == 0)
		c->rc = sb_error_set(&c->err, SB_ERR_NOMEM, "out of memory");
	sb_child_destroy(ch);
	return NULL;
}

static void text_inputs(FILE *out, const struct sb_inputs *in);
static void table_str(FILE *out, const char *s, size_t n);

static void json_inputs(struct sb_json *j, const struct sb_inputs *in)
{
	char hex[65];
	size_t n, *v;

	if (in == NULL || (v = sb_inputs_sorted(in, &n)) == NULL)
		return;
	sb_json_key(j, "inputs");
	sb_json_obj_begin(j);
	for (size_t i = 0; i < n; i++) {
		sb_hex_encode(sb_inputs_file(in, v[i])->sha, 32, hex);
		sb_json_key(j, sb_inputs_file(in, v[i])->rel);
		sb_json_str(j, hex);
	}
	sb_json_obj_end(j);
	free(v);
}

static void text_inputs(FILE *out, const struct sb_inputs *in)
{
	char hex[65];
	size_t n, *v;

	if (in == NULL || (v = sb_inputs_sorted(in, &n)) == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		sb_hex_encode(sb_inputs_file(in, v[i])->sha, 32, hex);
		hex[12] = '\0';
		fprintf(out, "%s %s  ", i == 0 ? "inputs    " : "          ", hex);
		table_str(out, sb_inputs_file(in, v[i])->rel, strlen(sb_inputs_file(in, v[i])->rel));
		fputc('\n', out);
	}
	free(v);
}

/* "checkpoint ckpt.pt, optim.pt: SIGUSR1 90 s before the time limit; requeue
 * on preempt, timeout; at most 3 restarts" */
static void text_checkpoint(FILE *out, const struct sb_spec_checkpoint *ck)
{
	size_t i, n = 0;

	if (ck == NULL)
		return;
	fputs("checkpoint ", out);
	for (i = 0; i < ck->nfiles; i++) {
		fputs(i ? ", " : "", out);
		table_str(out, ck->files[i], strlen(ck->files[i]));
	}
	fprintf(out, ": SIG%s %" PRId64 " s before the time limit; requeue on ", ck->signal, ck->before);
	for (i = 0; i < SB_REQUEUE_NCAUSES; i++)
		if (ck->requeue_on & sb_requeue_cause_bit(i))
			fprintf(out, "%s%s", n++ ? ", " : "", sb_requeue_cause_name(i));
	fprintf(out, "%s; at most %" PRId64 " restarts\n", n ? "" : "nothing", ck->max_restarts);
}

static int print_json(const struct sb_plan *plan, FILE *out, struct sb_error *err)
{
	const struct sb_spec *spec = sb_plan_spec(plan);
	size_t n = sb_plan_count(plan), from, k, nthreads = 1;
	struct json_chunk chunks[JSON_THREADS];
	struct sb_json j;
	int rc = 0;

	nthreads = sb_parallel_threads(JSON_THREADS, 1, JSON_THREADS);
	sb_json_init(&j, out);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "format");
	sb_json_int(&j, 1);
	sb_json_key(&j, "benchmark");
	sb_json_obj_begin(&j);
	sb_json_key(&j, "name");
	sb_json_str(&j, sb_spec_name(spec));
	sb_json_key(&j, "tag");
	sb_json_str(&j, sb_spec_tag(spec));
	sb_json_key(&j, "digest");
	sb_json_str(&j, sb_plan_benchmark_digest_hex(plan));
	sb_json_key(&j, "children");
	sb_json_uint(&j, n);
	json_inputs(&j, sb_plan_inputs(plan));
	sb_json_obj_end(&j);
	sb_json_key(&j, "children");
	sb_json_arr_begin(&j);
	/* rounds of up to nthreads chunks: format in parallel, write in order */
	for (from = 0; from < n && rc == 0;) {
		size_t count = 0;
		for (k = 0; k < nthreads && from < n; k++, count++) {
			chunks[k] = (struct json_chunk){ .plan = plan, .from = from,
							 .to = n - from < JSON_CHUNK ? n : from + JSON_CHUNK };
			from = chunks[k].to;
		}
		sb_parallel_run(json_chunk_run, chunks, sizeof(chunks[0]), count);
		for (k = 0; k < count; k++) {
			if (rc == 0 && chunks[k].rc < 0) {
				if (err != NULL)
					*err = chunks[k].err;
				rc = -1;
			}
			if (rc == 0)
				fwrite_unlocked(chunks[k].buf, 1, chunks[k].len, out);
			free(chunks[k].buf);
		}
	}
	if (rc < 0)
		return -1;
	sb_json_arr_end(&j);
	sb_json_obj_end(&j);
	fputc_unlocked('\n', out);
	if (sb_json_error(&j))
		return sb_errorf(err, "cannot write the output");
	return 0;
}

static bool table_plain_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != 0 && strchr("._-/:+@%,", c) != NULL);
}

/* A string value in the table: bare when it is plain, else quoted. */
static void table_str(FILE *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && table_plain_char((unsigned char)s[i]); i++)
		;
	if (n > 0 && i == n) {
		fwrite_unlocked(s, 1, n, out);
		return;
	}
	fputc_unlocked('"', out);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs_unlocked("\\n", out);
		else if (c == '\t')
			fputs_unlocked("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc_unlocked(c, out);
	}
	fputc_unlocked('"', out);
}

/* v in decimal, left-justified in width columns (at most TABLE_NUM_MAX),
 * then a space. */
#define TABLE_NUM_MAX 24
static void table_num(FILE *out, uint64_t v, size_t width)
{
	char t[TABLE_NUM_MAX + 1]; /* 20 digits at most, padding, the space */
	size_t n = TABLE_NUM_MAX, len;

	if (width > TABLE_NUM_MAX)
		width = TABLE_NUM_MAX;
	do {
		t[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	len = TABLE_NUM_MAX - n;
	memmove(t, t + n, len);
	if (len < width) {
		memset(t + len, ' ', width - len);
		len = width;
	}
	t[len++] = ' ';
	fwrite_unlocked(t, 1, len, out);
}

static int print_table(const struct sb_plan *plan, struct sb_child *ch, FILE *out,
		       struct sb_error *err)
{
	const struct sb_spec *spec = sb_plan_spec(plan);
	size_t n = sb_plan_count(plan), i, k, np = sb_spec_param_count(spec);

	fprintf(out, "benchmark  %s", sb_spec_name(spec));
	if (sb_spec_tag(spec))
		fprintf(out, " (tag %s)", sb_spec_tag(spec));
	fprintf(out, "\ndigest     %s\nchildren   %zu\n", sb_plan_benchmark_digest_hex(plan), n);
	text_inputs(out, sb_plan_inputs(plan));
	text_checkpoint(out, sb_spec_checkpoint(sb_plan_spec(plan)));
	fputc('\n', out);
	fprintf(out, "%-8s %-12s %-6s %s\n", "INDEX", "DIGEST", "REPEAT", "PARAMS");
	for (i = 0; i < n; i++) {
		if (sb_plan_child_params(plan, i, ch, err) < 0)
			return -1;
		table_num(out, i, 8);
		fwrite_unlocked(sb_child_digest_hex(ch), 1, 12, out);
		fputc_unlocked(' ', out);
		table_num(out, (uint64_t)sb_child_repeat(ch), 6);
		for (k = 0; k < np; k++) {
			const struct sb_value *v = sb_child_param(ch, k);
			if (k > 0)
				fputc_unlocked(' ', out);
			fputs_unlocked(sb_spec_param_name(spec, k), out);
			fputc_unlocked('=', out);
			if (v->type == SB_VALUE_STR)
				table_str(out, v->u.str.s, v->u.str.len);
			else
				fputs_unlocked(sb_child_param_text(ch, k), out);
		}
		if (np == 0)
			fputc_unlocked('-', out);
		fputc_unlocked('\n', out);
	}
	if (ferror(out))
		return sb_errorf(err, "cannot write the output");
	return 0;
}

int sb_plan_render(const struct sb_plan *plan, enum sb_format format, FILE *out,
		   struct sb_error *err)
{
	struct sb_child *ch = NULL;
	int rc;

	if (format != SB_FORMAT_TEXT && format != SB_FORMAT_JSON)
		return sb_error_set(err, SB_ERR_INPUT, "unknown plan format %d", (int)format);
	if (format == SB_FORMAT_TEXT && (ch = sb_child_create()) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	/* planning may have started threads, which makes every stdio call
	 * lock: hold the lock once, and write with the _unlocked calls */
	flockfile(out);
	rc = format == SB_FORMAT_JSON ? print_json(plan, out, err) : print_table(plan, ch, out, err);
	funlockfile(out);
	sb_child_destroy(ch);
	if (fflush(out) != 0 && rc == 0)
		rc = sb_errorf(err, "cannot write the output");
	return rc;
}

static int render(const void *obj, int format, FILE *out, struct sb_error *err)
{
	return sb_plan_render(obj, (enum sb_format)format, out, err);
}

int sb_plan_render_buffer(const struct sb_plan *plan, enum sb_format format, char **buf,
			  size_t *len, struct sb_error *err)
{
	return sb_render_buffer(render, plan, (int)format, buf, len, err);
}
