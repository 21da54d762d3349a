/* The input files of a plan's children: the table, the expansion of the
 * spec's `inputs` entries and the distinct sets (plan/plan_inputs.h). */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "base/intern.h"
#include "plan/plan_inputs.h"
#include "proto/inputs.h"
#include "spec/spec_private.h"

#define WALK_DEPTH 32
#define SET_CANON_MAX (8u * 1024 * 1024)

struct sb_inputs {
	char *dir;                      /* NULL: a recorded table */
	struct sb_input_file *files;
	size_t nfiles, fcap;
	size_t *ftab, ftcap;            /* rel -> file index + 1 */
	struct sb_input_set *sets;
	size_t nsets, scap;
	size_t *stab, stcap;            /* file list -> set index + 1 */
	size_t *listed, nlisted, lcap;  /* the files of the `inputs` key */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

/* Open addressing over indices + 1; rehashes at half load. */
static int tab_rehash(size_t **tab, size_t *cap, size_t count, uint64_t (*hash)(void *, size_t),
		      void *arg)
{
	size_t ncap = *cap ? *cap : 64, i, *n;

	while (ncap < 2 * (count + 1))
		ncap *= 2;
	if (ncap == *cap)
		return 0;
	n = calloc(ncap, sizeof(*n));
	if (n == NULL)
		return -1;
	for (i = 0; i < count; i++) {
		size_t h = (size_t)hash(arg, i) & (ncap - 1);
		while (n[h])
			h = (h + 1) & (ncap - 1);
		n[h] = i + 1;
	}
	free(*tab);
	*tab = n;
	*cap = ncap;
	return 0;
}

static uint64_t file_hash(void *arg, size_t i)
{
	return sb_str_hash(((struct sb_inputs *)arg)->files[i].rel);
}

static uint64_t list_hash(const size_t *v, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = mix(h, v[i] + 1);
	return h;
}

static uint64_t set_hash(void *arg, size_t i)
{
	const struct sb_input_set *s = &((struct sb_inputs *)arg)->sets[i];

	return list_hash(s->files, s->n);
}

struct sb_inputs *sb_inputs_create(const char *dir)
{
	struct sb_inputs *in = calloc(1, sizeof(*in));

	if (in != NULL && dir != NULL && (in->dir = strdup(dir)) == NULL) {
		free(in);
		return NULL;
	}
	return in;
}

void sb_inputs_destroy(struct sb_inputs *in)
{
	size_t i;

	if (in == NULL)
		return;
	for (i = 0; i < in->nfiles; i++)
		free(in->files[i].rel);
	for (i = 0; i < in->nsets; i++) {
		free(in->sets[i].files);
		sb_canon_release(&in->sets[i].canon);
	}
	free(in->files);
	free(in->ftab);
	free(in->sets);
	free(in->stab);
	free(in->listed);
	free(in->dir);
	free(in);
}

static ssize_t find(const struct sb_inputs *in, const char *rel)
{
	size_t h;

	if (in->ftcap == 0)
		return -1;
	for (h = (size_t)sb_str_hash(rel) & (in->ftcap - 1); in->ftab[h]; h = (h + 1) & (in->ftcap - 1))
		if (!strcmp(in->files[in->ftab[h] - 1].rel, rel))
			return (ssize_t)(in->ftab[h] - 1);
	return -1;
}

const struct sb_input_file *sb_inputs_find(const struct sb_inputs *in, const char *rel)
{
	ssize_t i = find(in, rel);

	return i >= 0 && !in->files[i].absent ? &in->files[i] : NULL;
}

/* Adds a file (rel copied); its index, or -1 when out of memory. */
static ssize_t add(struct sb_inputs *in, const char *rel, const uint8_t *sha, uint64_t size,
		   bool absent)
{
	struct sb_input_file *f;
	size_t h;

	if (sb_grow((void **)&in->files, &in->fcap, in->nfiles + 1, sizeof(*in->files)) < 0 ||
	    tab_rehash(&in->ftab, &in->ftcap, in->nfiles, file_hash, in) < 0)
		return -1;
	f = &in->files[in->nfiles];
	*f = (struct sb_input_file){ .rel = strdup(rel), .size = size, .absent = absent };
	if (f->rel == NULL)
		return -1;
	if (sha != NULL)
		memcpy(f->sha, sha, sizeof(f->sha));
	for (h = (size_t)sb_str_hash(rel) & (in->ftcap - 1); in->ftab[h]; h = (h + 1) & (in->ftcap - 1))
		;
	in->ftab[h] = ++in->nfiles;
	return (ssize_t)(in->nfiles - 1);
}

static int mark_listed(struct sb_inputs *in, size_t i)
{
	if (in->files[i].listed)
		return 0;
	if (sb_grow((void **)&in->listed, &in->lcap, in->nlisted + 1, sizeof(*in->listed)) < 0)
		return -1;
	in->files[i].listed = true;
	in->listed[in->nlisted++] = i;
	return 0;
}

int sb_inputs_record(struct sb_inputs *in, const char *rel, const uint8_t sha[32], bool listed)
{
	char clean[SB_INPUTS_MAX_PATH];
	ssize_t i;

	if (sb_inputs_norm(rel, strlen(rel), 1, clean, sizeof(clean)) < 0 || strcmp(clean, rel) != 0 ||
	    find(in, rel) >= 0)
		return -1;
	i = add(in, rel, sha, 0, false);
	return i < 0 || (listed && mark_listed(in, (size_t)i) < 0) ? -1 : 0;
}

/* Hashes the clean path rel under the directory: its index (absent when it
 * is not a regular file), or -1 with err. */
static ssize_t hash_file(struct sb_inputs *in, const char *rel, struct sb_error *err)
{
	uint8_t sha[32];
	uint64_t size = 0;
	struct sb_error why = { 0 };
	ssize_t i;
	int rc = sb_inputs_hash(in->dir, rel, SB_INPUTS_MAX_BYTES, sha, &size, &why);

	if (rc < 0)
		return sb_errorf(err, "input '%s' in '%s': %s", rel, in->dir, why.msg);
	i = add(in, rel, rc == 0 ? sha : NULL, size, rc == 1);
	if (i < 0)
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	return i;
}

int sb_inputs_lookup(struct sb_inputs *in, const char *rel, size_t len, size_t *idx,
		     struct sb_error *err)
{
	char clean[SB_INPUTS_MAX_PATH];
	ssize_t i;

	if (sb_inputs_norm(rel, len, 0, clean, sizeof(clean)) < 0)
		return 0;
	i = find(in, clean);
	if (i < 0 && in->dir != NULL && (i = hash_file(in, clean, err)) < 0)
		return -1;
	if (i < 0 || in->files[i].absent)
		return 0;
	*idx = (size_t)i;
	return 1;
}

/* ---- expansion of the `inputs` key ---- */

struct expand {
	struct sb_inputs *in;
	const struct sb_spec *spec;
	const struct sb_input_pat *pat;
	size_t found;           /* files this entry gave */
	struct sb_error *err;
};

static int entry_error(struct expand *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int entry_error(struct expand *x, const char *fmt, ...)
{
	char msg[SB_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sb_spec_errorf(x->spec, x->err, x->pat->line, x->pat->col, "inputs entry '%s': %s",
			      x->pat->pat, msg);
}

static int add_listed(struct expand *x, const char *rel)
{
	struct sb_inputs *in = x->in;
	char clean[SB_INPUTS_MAX_PATH];
	ssize_t i;

	if (sb_inputs_norm(rel, strlen(rel), 1, clean, sizeof(clean)) < 0)
		return entry_error(x, "the file '%.200s' has a path that is too long or not clean", rel);
	i = find(in, clean);
	if (i < 0 && (i = hash_file(in, clean, x->err)) < 0)
		return -1;
	if (in->files[i].absent)
		return 0;       /* gone between the listing and the open */
	if (mark_listed(in, (size_t)i) < 0)
		return sb_error_set(x->err, SB_ERR_NOMEM, "out of memory");
	x->found++;
	if (in->nlisted > SB_INPUTS_MAX_FILES)
		return entry_error(x, "more than %d input files in all (the bound: inputs are code "
				   "and configuration, not data)", SB_INPUTS_MAX_FILES);
	return 0;
}

static bool skipped(const char *name)
{
	return name[0] == '.' || !strcmp(name, "__pycache__");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file under the directory rel, in name order. */
static int walk(struct expand *x, const char *rel, int depth)
{
	char full[PATH_MAX], sub[PATH_MAX];
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if (depth > WALK_DEPTH)
		return entry_error(x, "directories nested deeper than %d", WALK_DEPTH);
	snprintf(full, sizeof(full), "%s/%s", x->in->dir, rel);
	d = opendir(full);
	if (d == NULL)
		return entry_error(x, "cannot read the directory: %s", strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (skipped(e->d_name))
			continue;
		if (sb_grow((void **)&names, &cap, n + 1, sizeof(*names)) < 0 ||
		    (names[n] = strdup(e->d_name)) == NULL) {
			rc = sb_error_set(x->err, SB_ERR_NOMEM, "out of memory");
			break;
		}
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; rc == 0 && i < n; i++) {
		struct stat st;
		if (snprintf(sub, sizeof(sub), "%s/%s", rel, names[i]) >= (int)sizeof(sub) ||
		    snprintf(full, sizeof(full), "%s/%s", x->in->dir, sub) >= (int)sizeof(full)) {
			rc = entry_error(x, "a path under it is longer than %d bytes", PATH_MAX - 1);
			break;
		}
		if (lstat(full, &st) < 0)
			continue;       /* gone meanwhile */
		if (S_ISDIR(st.st_mode))
			rc = walk(x, sub, depth + 1);
		else if (S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && stat(full, &st) == 0 &&
						  S_ISREG(st.st_mode)))
			rc = add_listed(x, sub);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* dir with glob's special characters escaped, then "/" and the entry. */
static int glob_pattern(const char *dir, const char *pat, char *out, size_t size)
{
	size_t o = 0;

	for (; *dir; dir++) {
		if (strchr("*?[]\\", *dir) && o < size)
			out[o++] = '\\';
		if (o < size)
			out[o++] = *dir;
	}
	return snprintf(out + (o < size ? o : size), o < size ? size - o : 0, "/%s", pat) >= 0 &&
		o + strlen(pat) + 2 <= size ? 0 : -1;
}

static int expand_entry(struct expand *x)
{
	const char *dir = x->in->dir;
	char pattern[2 * PATH_MAX];
	size_t dl = strlen(dir), i;
	glob_t g;
	int rc = 0, grc;

	if (glob_pattern(dir, x->pat->pat, pattern, sizeof(pattern)) < 0)
		return entry_error(x, "the path is too long");
	grc = glob(pattern, 0, NULL, &g);
	if (grc == GLOB_NOSPACE)
		return sb_error_set(x->err, SB_ERR_NOMEM, "out of memory");
	for (i = 0; grc == 0 && rc == 0 && i < g.gl_pathc; i++) {
		const char *p = g.gl_pathv[i];
		struct stat st;
		if (strncmp(p, dir, dl) != 0 || p[dl] != '/' || stat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			rc = walk(x, p + dl + 1, 0);
		else if (S_ISREG(st.st_mode))
			rc = add_listed(x, p + dl + 1);
	}
	if (grc == 0)
		globfree(&g);
	if (rc == 0 && x->found == 0)
		return entry_error(x, "matches no file in '%.900s'", dir);
	return rc;
}

int sb_inputs_expand(struct sb_inputs *in, const struct sb_spec *spec, struct sb_error *err)
{
	size_t i;

	if (in->dir == NULL)
		return 0;       /* a recorded table has its listed files */
	for (i = 0; i < spec->ninputs; i++) {
		struct expand x = { .in = in, .spec = spec, .pat = &spec->inputs[i], .err = err };
		if (expand_entry(&x) < 0)
			return -1;
	}
	return 0;
}

/* ---- sets ---- */

static int cmp_file(const void *a, const void *b, void *arg)
{
	const struct sb_inputs *in = arg;

	return strcmp(in->files[*(const size_t *)a].rel, in->files[*(const size_t *)b].rel);
}

static int encode_set(const struct sb_inputs *in, struct sb_input_set *s)
{
	size_t i;

	sb_canon_init(&s->canon, SET_CANON_MAX);
	sb_canon_cstr(&s->canon, "inputs");
	sb_canon_map(&s->canon, s->n);
	for (i = 0; i < s->n; i++) {
		sb_canon_cstr(&s->canon, in->files[s->files[i]].rel);
		sb_canon_bin(&s->canon, in->files[s->files[i]].sha, 32);
	}
	return s->canon.failed ? -1 : 0;
}

int sb_inputs_set(struct sb_inputs *in, const size_t *idx, size_t n, uint32_t *id,
		  struct sb_error *err)
{
	size_t total = n + in->nlisted, k = 0, i, h;
	size_t *v = malloc((total ? total : 1) * sizeof(*v));
	uint64_t bytes = 0;
	struct sb_input_set *s;

	if (v == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (n)          /* (either may be NULL when empty) */
		memcpy(v, idx, n * sizeof(*v));
	if (in->nlisted)
		memcpy(v + n, in->listed, in->nlisted * sizeof(*v));
	qsort_r(v, total, sizeof(*v), cmp_file, in);
	for (i = 0; i < total; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	if (k == 0) {
		free(v);
		*id = UINT32_MAX;
		return 0;
	}
	if (in->stcap) {
		uint64_t lh = list_hash(v, k);
		for (h = (size_t)lh & (in->stcap - 1); in->stab[h]; h = (h + 1) & (in->stcap - 1)) {
			s = &in->sets[in->stab[h] - 1];
			if (s->n == k && !memcmp(s->files, v, k * sizeof(*v))) {
				free(v);
				*id = (uint32_t)(in->stab[h] - 1);
				return 0;
			}
		}
	}
	for (i = 0; i < k; i++)
		bytes += in->files[v[i]].size;
	if (k > SB_INPUTS_MAX_FILES || bytes > SB_INPUTS_MAX_BYTES) {
		free(v);
		return sb_errorf(err, "its inputs are %zu files of %llu bytes together, over the bound "
				 "of %d files and %llu bytes (inputs are code and configuration: read "
				 "data by a path the command names, with its version in a parameter)",
				 k, (unsigned long long)bytes, SB_INPUTS_MAX_FILES,
				 (unsigned long long)SB_INPUTS_MAX_BYTES);
	}
	if (in->nsets >= UINT32_MAX - 1 ||
	    sb_grow((void **)&in->sets, &in->scap, in->nsets + 1, sizeof(*in->sets)) < 0 ||
	    tab_rehash(&in->stab, &in->stcap, in->nsets, set_hash, in) < 0) {
		free(v);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	s = &in->sets[in->nsets];
	*s = (struct sb_input_set){ .files = v, .n = k, .bytes = bytes };
	if (encode_set(in, s) < 0) {
		sb_canon_release(&s->canon);
		free(v);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	for (h = (size_t)list_hash(v, k) & (in->stcap - 1); in->stab[h]; h = (h + 1) & (in->stcap - 1))
		;
	in->stab[h] = ++in->nsets;
	*id = (uint32_t)(in->nsets - 1);
	return 0;
}

size_t *sb_inputs_sorted(const struct sb_inputs *in, size_t *n)
{
	size_t *v = malloc((in->nfiles ? in->nfiles : 1) * sizeof(*v));

	*n = 0;
	if (v == NULL)
		return NULL;
	for (size_t i = 0; i < in->nfiles; i++)
		if (!in->files[i].absent)
			v[(*n)++] = i;
	qsort_r(v, *n, sizeof(*v), cmp_file, (void *)in);
	return v;
}

size_t sb_inputs_file_count(const struct sb_inputs *in) { return in->nfiles; }
const struct sb_input_file *sb_inputs_file(const struct sb_inputs *in, size_t i) { return &in->files[i]; }
size_t sb_inputs_set_count(const struct sb_inputs *in) { return in->nsets; }
const struct sb_input_set *sb_inputs_get_set(const struct sb_inputs *in, uint32_t id)
{
	return id == UINT32_MAX ? NULL : &in->sets[id];
}

int sb_inputs_compare(const struct sb_inputs *a, const struct sb_inputs *b, sb_inputs_diff_fn *fn,
		      void *arg)
{
	int n = 0, rc;

	for (size_t i = 0; i < a->nfiles; i++) {
		const struct sb_input_file *f = &a->files[i], *g;
		if (f->absent)
			continue;
		g = sb_inputs_find(b, f->rel);
		if (g && !memcmp(f->sha, g->sha, sizeof(f->sha)))
			continue;
		if ((rc = fn(arg, f->rel, f->sha, g ? g->sha : NULL)) < 0)
			return rc;
		n++;
	}
	for (size_t i = 0; i < b->nfiles; i++) {
		const struct sb_input_file *g = &b->files[i];
		if (g->absent || sb_inputs_find(a, g->rel) != NULL)
			continue;
		if ((rc = fn(arg, g->rel, NULL, g->sha)) < 0)
			return rc;
		n++;
	}
	return n;
}
