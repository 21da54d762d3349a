/* The metrics file: a JSON or YAML top-level mapping read with libyaml (JSON
 * is YAML).  Plain scalars that resolve (proto/yamlscalar.h, the YAML 1.2
 * core schema) to integers stay int64, floats become float64; nested mappings are flattened with '.'; anything
 * else (strings, quoted numbers, booleans, null, sequences, non-finite
 * floats, integers beyond int64) is listed as skipped. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <yaml.h>

#include "agent/agent.h"
#include "proto/util.h"
#include "proto/yamlscalar.h"

struct mctx {
	yaml_parser_t parser;
	struct sb_agent_metrics *m;
	size_t cap, capskip;
	const char *path;
	struct sb_error *err;
	double deadline;        /* CLOCK_MONOTONIC seconds */
	unsigned events;
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int next_event(struct mctx *c, yaml_event_t *ev)
{
	if (++c->events % 1024 == 0 && mono_s() > c->deadline)
		return sb_errorf(c->err, "metrics file '%s': not parsed within %.0f s (the bound)",
				 c->path, SB_METRICS_MAX_PARSE_S);
	if (!yaml_parser_parse(&c->parser, ev))
		return sb_errorf(c->err, "metrics file '%s': line %zu column %zu: %s",
			c->path, c->parser.problem_mark.line + 1,
			c->parser.problem_mark.column + 1,
			c->parser.problem ? c->parser.problem : "parse error");
	return 0;
}

/* 1 int, 2 float, 0 not a number: the YAML 1.2 core schema
 * (proto/yamlscalar.h).  A float that rounds to zero from a non-zero text
 * (1e-999) is 0.0, as strtod reads it; every other refusal (an integer
 * beyond int64, .inf, .nan, 1e999) and null, bool and string are no
 * number. */
static int as_number(const char *s, int64_t *iv, double *fv)
{
	struct sb_yamlscalar y;

	switch (sb_yamlscalar_resolve(s, &y)) {
	case SB_YAMLSCALAR_INT:
		*iv = y.u.i;
		return 1;
	case SB_YAMLSCALAR_FLOAT:
		*fv = y.u.f;
		return 2;
	case SB_YAMLSCALAR_FLOAT_ZERO:
		*fv = 0.0;
		return 2;
	default:
		return 0;
	}
}

static char *join_name(const char *prefix, const char *key)
{
	size_t a = prefix ? strlen(prefix) : 0, b = strlen(key);
	char *s;

	if (a + 1 + b >= SB_METRICS_MAX_NAME)
		return NULL;
	s = malloc(a + 1 + b + 1);
	if (s == NULL)
		return NULL;
	if (a)
		memcpy(s, prefix, a), s[a++] = '.';
	memcpy(s + a, key, b + 1);
	return s;
}

static int add_skipped(struct mctx *c, char *name)
{
	struct sb_agent_metrics *m = c->m;

	if (m->nskipped == c->capskip) {
		size_t cap = c->capskip ? 2 * c->capskip : 16;
		char **v = realloc(m->skipped, cap * sizeof(*v));

		if (v == NULL) {
			free(name);
			return sb_error_set(c->err, SB_ERR_NOMEM, "metrics file '%s': out of memory", c->path);
		}
		m->skipped = v;
		c->capskip = cap;
	}
	m->skipped[m->nskipped++] = name;
	return 0;
}

static int add_metric(struct mctx *c, char *name, int kind, int64_t iv, double fv)
{
	struct sb_agent_metrics *m = c->m;

	if (m->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct sb_agent_metric *v = realloc(m->v, cap * sizeof(*v));

		if (v == NULL) {
			free(name);
			return sb_error_set(c->err, SB_ERR_NOMEM, "metrics file '%s': out of memory", c->path);
		}
		m->v = v;
		c->cap = cap;
	}
	m->v[m->n].name = name;
	m->v[m->n].is_float = kind == 2;
	m->v[m->n].i = iv;
	m->v[m->n].f = fv;
	m->v[m->n].order = m->n;
	m->n++;
	return 0;
}

/* Consumes the rest of a sequence or mapping whose start was just read. */
static int skip_node(struct mctx *c)
{
	int depth = 1;

	while (depth > 0) {
		yaml_event_t ev;

		if (next_event(c, &ev) != 0)
			return -1;
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		yaml_event_delete(&ev);
	}
	return 0;
}

static int read_mapping(struct mctx *c, const char *prefix, int depth)
{
	for (;;) {
		yaml_event_t kev, vev;
		char *name;
		int rc = 0;

		if (next_event(c, &kev) != 0)
			return -1;
		if (kev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&kev);
			return 0;
		}
		if (kev.type != YAML_SCALAR_EVENT) {
			yaml_event_delete(&kev);
			return sb_errorf(c->err, "metrics file '%s': a key is not a scalar", c->path);
		}
		name = join_name(prefix, (const char *)kev.data.scalar.value);
		if (name == NULL)
			rc = sb_errorf(c->err, "metrics file '%s': name '%.64s...' longer than %d bytes",
				c->path, (const char *)kev.data.scalar.value, SB_METRICS_MAX_NAME - 1);
		yaml_event_delete(&kev);
		if (rc != 0)
			return -1;
		if (c->m->n + c->m->nskipped >= SB_METRICS_MAX_COUNT) {
			free(name);
			return sb_errorf(c->err, "metrics file '%s': more than %d values",
				c->path, SB_METRICS_MAX_COUNT);
		}
		if (next_event(c, &vev) != 0) {
			free(name);
			return -1;
		}
		switch (vev.type) {
		case YAML_SCALAR_EVENT: {
			int64_t iv = 0;
			double fv = 0;
			int kind = 0;

			if (vev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
			    vev.data.scalar.plain_implicit &&
			    strlen((const char *)vev.data.scalar.value) == vev.data.scalar.length)
				kind = as_number((const char *)vev.data.scalar.value, &iv, &fv);
			rc = kind ? add_metric(c, name, kind, iv, fv) : add_skipped(c, name);
			break;
		}
		case YAML_MAPPING_START_EVENT:
			if (depth + 1 < SB_METRICS_MAX_DEPTH) {
				rc = read_mapping(c, name, depth + 1);
				free(name);
			} else {
				rc = skip_node(c);
				rc = rc ? (free(name), -1) : add_skipped(c, name);
			}
			break;
		case YAML_SEQUENCE_START_EVENT:
			rc = skip_node(c);
			rc = rc ? (free(name), -1) : add_skipped(c, name);
			break;
		default: /* alias */
			rc = add_skipped(c, name);
			break;
		}
		yaml_event_delete(&vev);
		if (rc != 0)
			return -1;
	}
}

static int cmp_metric(const void *a, const void *b)
{
	const struct sb_agent_metric *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

void sb_agent_metrics_release(struct sb_agent_metrics *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++)
		free(m->v[i].name);
	for (i = 0; i < m->nskipped; i++)
		free(m->skipped[i]);
	free(m->v);
	free(m->skipped);
	memset(m, 0, sizeof(*m));
}

/* sb_agent_metrics_read, with the fstat of the file before its bytes were
 * read in *st (st_mode 0 when it could not be opened). */
static int metrics_read_st(const char *path, struct sb_agent_metrics *m, struct stat *stp,
	struct sb_error *err)
{
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int fd, rc;

	memset(m, 0, sizeof(*m));
	memset(stp, 0, sizeof(*stp));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return sb_errorf(err, "cannot open metrics file '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) == 0)
		*stp = st;
	else
		st.st_mode = 0;
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return sb_errorf(err, "metrics file '%s' is not a regular file", path);
	}
	if ((uint64_t)st.st_size > SB_METRICS_MAX_FILE) {
		close(fd);
		return sb_errorf(err, "metrics file '%s' is larger than %u bytes", path,
			SB_METRICS_MAX_FILE);
	}
	if (sb_read_all(fd, SB_METRICS_MAX_FILE, (size_t)st.st_size, &text, &len) < 0) {
		int e = errno;
		close(fd);
		if (e == EFBIG)
			return sb_errorf(err, "metrics file '%s' is larger than %u bytes", path,
					 SB_METRICS_MAX_FILE);
		return sb_errorf(err, "cannot read metrics file '%s': %s", path, strerror(e));
	}
	close(fd);

	rc = sb_agent_metrics_parse(text, len, path, m, err);
	free(text);
	return rc;
}

int sb_agent_metrics_read(const char *path, struct sb_agent_metrics *m,
	struct sb_error *err)
{
	struct stat st;

	return metrics_read_st(path, m, &st, err);
}

bool sb_agent_metrics_equal(const struct sb_agent_metrics *a, const struct sb_agent_metrics *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++) {
		const struct sb_agent_metric *x = &a->v[i], *y = &b->v[i];

		if (x->is_float != y->is_float || strcmp(x->name, y->name) != 0 ||
		    (x->is_float ? x->f != y->f : x->i != y->i))
			return false;
	}
	return true;
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

enum sb_agent_metrics_now sb_agent_metrics_track(struct sb_agent_metrics_track *t,
	const char *path)
{
	struct sb_agent_metrics m;
	struct stat st;
	int rc;

	/* the cheap look: a file that did not move is not read again */
	if (stat(path, &st) != 0) {
		sb_agent_metrics_release(&t->last);
		t->seen = t->have = false;
		return SB_METRICS_NONE;
	}
	if (t->seen && st.st_dev == t->dev && st.st_ino == t->ino && st.st_size == t->size &&
	    same_time(&st.st_mtim, &t->mtime) && same_time(&st.st_ctim, &t->ctime))
		return t->have ? SB_METRICS_SAME : SB_METRICS_NONE;
	/* what is remembered is the fstat taken before the bytes were read: a
	 * write after it moves the file again, and the next look reads it */
	t->reads++;
	rc = metrics_read_st(path, &m, &st, NULL);
	t->seen = st.st_mode != 0;
	t->dev = st.st_dev, t->ino = st.st_ino, t->size = st.st_size;
	t->mtime = st.st_mtim, t->ctime = st.st_ctim;
	if (rc != 0) {
		sb_agent_metrics_release(&t->last);
		t->have = false;
		return SB_METRICS_NONE;
	}
	if (t->have && sb_agent_metrics_equal(&m, &t->last)) {
		sb_agent_metrics_release(&m);
		return SB_METRICS_SAME;
	}
	sb_agent_metrics_release(&t->last);
	t->last = m;
	t->have = true;
	return SB_METRICS_CHANGED;
}

void sb_agent_metrics_track_release(struct sb_agent_metrics_track *t)
{
	sb_agent_metrics_release(&t->last);
	memset(t, 0, sizeof(*t));
}

/* Whether flow collections ([ and {) outside quoted scalars nest at most
 * max deep: a cheap pass before libyaml, whose cost grows with the square
 * of that nesting.  (A quote or '#' inside a plain scalar can only hide
 * brackets from it; the parse's time bound covers what it misses.) */
static bool flow_depth_ok(const char *s, size_t n, int max)
{
	int depth = 0;
	char q = 0;

	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (q) {
			if (ch == '\\' && q == '"')
				i++;
			else if (ch == q)
				q = 0;
		} else if (ch == '"' || ch == '\'') {
			q = ch;
		} else if (ch == '[' || ch == '{') {
			if (++depth > max)
				return false;
		} else if ((ch == ']' || ch == '}') && depth > 0) {
			depth--;
		}
	}
	return true;
}

int sb_agent_metrics_parse(const char *text, size_t len, const char *path,
	struct sb_agent_metrics *m, struct sb_error *err)
{
	struct mctx c = { .m = m, .path = path, .err = err,
			  .deadline = mono_s() + SB_METRICS_MAX_PARSE_S };
	yaml_event_t ev;
	size_t i, out;
	int rc = -1;

	memset(m, 0, sizeof(*m));
	if (len > SB_METRICS_MAX_FILE)
		return sb_errorf(err, "metrics file '%s' is larger than %u bytes", path,
			SB_METRICS_MAX_FILE);
	if (!flow_depth_ok(text, len, SB_METRICS_MAX_FLOW_DEPTH))
		return sb_errorf(err, "metrics file '%s' nests [ and { deeper than %d levels",
				 path, SB_METRICS_MAX_FLOW_DEPTH);
	if (!yaml_parser_initialize(&c.parser))
		return sb_error_set(err, SB_ERR_NOMEM, "metrics file '%s': out of memory", path);
	yaml_parser_set_input_string(&c.parser, (const unsigned char *)text, len);
	/* stream start, document start, then the top-level mapping */
	if (next_event(&c, &ev) != 0)
		goto out;
	yaml_event_delete(&ev);
	if (next_event(&c, &ev) != 0)
		goto out;
	if (ev.type != YAML_DOCUMENT_START_EVENT) {
		yaml_event_delete(&ev);
		sb_errorf(err, "metrics file '%s' is empty", path);
		goto out;
	}
	yaml_event_delete(&ev);
	if (next_event(&c, &ev) != 0)
		goto out;
	if (ev.type != YAML_MAPPING_START_EVENT) {
		yaml_event_delete(&ev);
		sb_errorf(err, "metrics file '%s' is not a mapping", path);
		goto out;
	}
	yaml_event_delete(&ev);
	if (read_mapping(&c, NULL, 0) != 0)
		goto out;
	rc = 0;
out:
	yaml_parser_delete(&c.parser);
	if (rc != 0) {
		sb_agent_metrics_release(m);
		return -1;
	}
	/* sorted by name; a name seen twice keeps its first value and the later
	 * ones are listed as skipped */
	if (m->n > 1)
		qsort(m->v, m->n, sizeof(m->v[0]), cmp_metric);
	for (i = 0, out = 0; i < m->n; i++) {
		if (out > 0 && strcmp(m->v[out - 1].name, m->v[i].name) == 0) {
			if (add_skipped(&c, m->v[i].name) != 0) {
				for (i++; i < m->n; i++)
					free(m->v[i].name);
				m->n = out;
				sb_agent_metrics_release(m);
				return -1;
			}
			continue;
		}
		m->v[out++] = m->v[i];
	}
	m->n = out;
	return 0;
}
