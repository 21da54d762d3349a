#include <stdlib.h>
#include <string.h>

#include "ctl/report_child.h"
#include "sbench/bench.h"
#include "sbench/plan.h"
#include "sbench/spec.h"

#define TAIL_BYTES 4096
#define LINE_MAX_SHOWN 200

int sb_param_share_compute(const struct sb_status *st, const size_t *members, size_t n,
			   struct sb_param_share *ps, struct sb_error *err)
{
	const struct sb_plan *plan = st->bench->plan;
	size_t i, k;

	memset(ps, 0, sizeof(*ps));
	ps->nparams = sb_spec_param_count(st->bench->spec);
	ps->shared = calloc(ps->nparams + 1, sizeof(*ps->shared));
	ps->first = sb_child_create();
	ps->cur = sb_child_create();
	if (ps->shared == NULL || ps->first == NULL || ps->cur == NULL) {
		sb_param_share_release(ps);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	if (sb_plan_child_params(plan, members[0], ps->first, err) < 0) {
		sb_param_share_release(ps);
		return -1;
	}
	for (k = 0; k <= ps->nparams; k++)
		ps->shared[k] = true;
	for (i = 1; i < n; i++) {
		if (sb_plan_child_params(plan, members[i], ps->cur, err) < 0) {
			sb_param_share_release(ps);
			return -1;
		}
		for (k = 0; k < ps->nparams; k++)
			if (ps->shared[k] && !sb_value_equal(sb_child_param(ps->first, k),
							     sb_child_param(ps->cur, k)))
				ps->shared[k] = false;
		if (sb_child_repeat(ps->first) != sb_child_repeat(ps->cur))
			ps->shared[ps->nparams] = false;
	}
	return 0;
}

void sb_param_share_release(struct sb_param_share *ps)
{
	if (ps == NULL)
		return;
	free(ps->shared);
	sb_child_destroy(ps->first);
	sb_child_destroy(ps->cur);
	memset(ps, 0, sizeof(*ps));
}

size_t sb_param_share_words(const struct sb_status *st, struct sb_param_share *ps, size_t c,
			    bool shared, FILE *out)
{
	const struct sb_spec *spec = st->bench->spec;
	size_t k, words = 0;

	if (sb_plan_child_params(st->bench->plan, c, ps->cur, NULL) < 0)
		return 0;
	for (k = 0; k < ps->nparams; k++) {
		char *text;
		if (ps->shared[k] != shared)
			continue;
		text = sb_value_text(sb_child_param(ps->cur, k));
		fprintf(out, "%s%s=%s", words++ ? " " : "", sb_spec_param_name(spec, k),
			text ? text : "?");
		free(text);
	}
	if (ps->shared[ps->nparams] == shared && !(shared && sb_child_repeat(ps->cur) == 0))
		fprintf(out, "%srepeat=%lld", words++ ? " " : "", (long long)sb_child_repeat(ps->cur));
	return words;
}

/* The newest *.err of the child's Slurm output, malloc'd, or NULL. */
static char *newest_err(const struct sb_bench *b, size_t c)
{
	char **files = NULL, *path = NULL;
	size_t n = 0, i;

	if (sb_bench_output(b, c, NULL, &files, &n, NULL) < 0)
		return NULL;
	for (i = n; i > 0 && path == NULL; i--) {
		size_t len = strlen(files[i - 1]);
		if (len > 4 && !strcmp(files[i - 1] + len - 4, ".err"))
			path = strdup(files[i - 1]);
	}
	free(files); /* sb_free is free */
	return path;
}

char *sb_child_stderr_tail(const struct sb_bench *b, size_t c, int lines, char **err_path)
{
	char buf[TAIL_BYTES + 1], *path = newest_err(b, c), *out = NULL, *p;
	size_t got = 0, i, o = 0;
	FILE *f;
	int seen = 0;

	if (err_path != NULL)
		*err_path = NULL;
	if (path == NULL)
		return NULL;
	if ((f = fopen(path, "r")) != NULL) {
		long size;
		if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 &&
		    fseek(f, size > TAIL_BYTES ? size - TAIL_BYTES : 0, SEEK_SET) == 0)
			got = fread(buf, 1, TAIL_BYTES, f);
		fclose(f);
	}
	buf[got] = '\0';
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
		buf[--got] = '\0';
	for (i = got; i > 0; i--)
		if (buf[i - 1] == '\n' && ++seen == lines)
			break;
	if (got > 0 && (out = malloc(got - i + 1)) != NULL) {
		/* each line cut at LINE_MAX_SHOWN bytes */
		for (p = buf + i; *p;) {
			size_t len = strcspn(p, "\n");
			size_t keep = len > LINE_MAX_SHOWN ? LINE_MAX_SHOWN : len;
			if (len == 0 && p[0] == '\n') {
				p++;
				continue;
			}
			if (o > 0)
				out[o++] = '\n';
			memcpy(out + o, p, keep);
			o += keep;
			p += len + (p[len] == '\n');
		}
		out[o] = '\0';
		if (o == 0) {
			free(out);
			out = NULL;
		}
	}
	if (err_path != NULL)
		*err_path = path;
	else
		free(path);
	return out;
}
