/* The checks of a spec's command before anything is submitted
 * (docs/sbctl-submit.md, "CHECKS BEFORE SUBMITTING").  Nothing here runs
 * the command or writes anything: it stats files and reads directories. */
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/intern.h"
#include "base/suggest.h"
#include "spec/spec_private.h"
#include "spec/spec_template.h"
#include "submit/preflight.h"
#include "proto/util.h"
#include "sbench/context.h"
#include "sbench/plan.h"
#include "sbench/submit.h"

/* The names read from one directory for a did-you-mean, at most. */
#define DIR_NAMES_MAX 100000

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static bool is_shell(const char *prog)
{
	static const char *const names[] = { "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash",
					     "busybox" };
	const char *b = base_name(prog);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(b, names[i]))
			return true;
	return false;
}

bool sb_preflight_is_code(char *const *argv, size_t argc, size_t i)
{
	const char *prev;

	if (i == 0 || i >= argc)
		return false;
	prev = argv[i - 1];
	if (!strcmp(prev, "-c") || !strcmp(prev, "-e"))
		return true;
	/* bash -lc STRING, sh -ec STRING: a cluster of short options */
	return is_shell(argv[0]) && prev[0] == '-' && prev[1] != '-' && prev[1] != '\0' &&
	       strchr(prev, 'c') != NULL && strspn(prev + 1, "abcefhiklmnprstuvxBCEHPT") == strlen(prev + 1);
}

/* dir (an entry of a PATH list, len bytes) with every {spec_dir} replaced,
 * into out; false when it is empty, relative or does not fit. */
static bool path_entry(const char *dir, size_t len, const char *spec_dir, char *out, size_t size)
{
	size_t o = 0, tl = strlen(SB_TMPL_SPEC_DIR);

	for (size_t i = 0; i < len;) {
		const char *piece = dir + i;
		size_t n = 1;
		if (spec_dir && len - i >= tl && !strncmp(dir + i, SB_TMPL_SPEC_DIR, tl)) {
			piece = spec_dir;
			n = strlen(spec_dir);
			i += tl;
		} else {
			i++;
		}
		if (o + n >= size)
			return false;
		memcpy(out + o, piece, n);
		o += n;
	}
	out[o] = '\0';
	return o > 0 && out[0] == '/';
}

static bool executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int sb_preflight_which(const char *name, const char *path, const char *spec_dir, char *buf,
		       size_t size)
{
	char dir[PATH_MAX];
	const char *p, *end;

	if (name[0] == '\0' || strchr(name, '/') || path == NULL)
		return 0;
	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		if (path_entry(p, (size_t)(end - p), spec_dir, dir, sizeof(dir)) &&
		    snprintf(buf, size, "%s/%s", dir, name) < (int)size && executable_file(buf))
			return 1;
		if (*end == '\0')
			break;
	}
	buf[0] = '\0';
	return 0;
}

/* The names of the entries of dir (not . and ..), each also when want_exec
 * only if it is an executable file, appended to *names (an interned copy
 * each); -1 when out of memory. */
static int read_names(const char *dir, bool want_exec, struct sb_intern *in, const char ***names,
		      size_t *n, size_t *cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t seen = 0;
	int rc = 0;

	if (d == NULL)
		return 0;
	while (rc == 0 && seen++ < DIR_NAMES_MAX && (e = readdir(d)) != NULL) {
		char full[PATH_MAX];
		const char *copy;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (want_exec && (snprintf(full, sizeof(full), "%s/%s", dir, e->d_name) >= (int)sizeof(full) ||
				  !executable_file(full)))
			continue;
		if (*n == *cap) {
			size_t c = *cap ? 2 * *cap : 256;
			const char **v = realloc(*names, c * sizeof(*v));
			if (v == NULL) {
				rc = -1;
				break;
			}
			*names = v;
			*cap = c;
		}
		if ((copy = sb_intern(in, e->d_name)) == NULL)
			rc = -1;
		else
			(*names)[(*n)++] = copy;
	}
	closedir(d);
	return rc;
}

/* s without its digits and dots, into out */
static void strip_version(const char *s, char *out, size_t size)
{
	size_t o = 0;

	for (; *s && o + 1 < size; s++)
		if (!(*s >= '0' && *s <= '9') && *s != '.')
			out[o++] = *s;
	out[o] = '\0';
}

const char *sb_preflight_near_program(const char *name, const char *path, const char *spec_dir,
				      char *out, size_t size)
{
	struct sb_intern in = { 0 };
	const char **names = NULL, *pick = NULL;
	char dir[PATH_MAX], a[256], b[256];
	size_t n = 0, cap = 0, k = 0;
	const char *p, *end;

	if (path == NULL || name[0] == '\0')
		return NULL;
	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		if (path_entry(p, (size_t)(end - p), spec_dir, dir, sizeof(dir)) &&
		    read_names(dir, true, &in, &names, &n, &cap) < 0)
			goto out;
		if (*end == '\0')
			break;
	}
	/* another version is no typo: drop the names equal but for digits */
	strip_version(name, a, sizeof(a));
	for (size_t i = 0; i < n; i++) {
		strip_version(names[i], b, sizeof(b));
		if (strcmp(a, b) != 0)
			names[k++] = names[i];
	}
	pick = sb_suggest_closest(name, names, k);
	if (pick && snprintf(out, size, "%s", pick) >= (int)size)
		pick = NULL;
out:
	free(names);
	sb_intern_release(&in);
	return pick ? out : NULL;
}

bool sb_preflight_near_path(const char *path, char *out, size_t size)
{
	char prefix[PATH_MAX], comp[NAME_MAX + 1];
	struct sb_intern in = { 0 };
	const char **names = NULL, *pick = NULL;
	size_t n = 0, cap = 0, at = 0, len;
	struct stat st;
	bool found = false;

	if (path[0] != '/' || strlen(path) >= sizeof(prefix))
		return false;
	/* the longest prefix that exists; the component after it is missing */
	for (;;) {
		size_t next;
		while (path[at] == '/')
			at++;
		if (path[at] == '\0')
			return false; /* every component exists */
		next = at + strcspn(path + at, "/");
		memcpy(prefix, path, next);
		prefix[next] = '\0';
		if (stat(prefix, &st) != 0)
			break;
		at = next;
	}
	len = strcspn(path + at, "/");
	if (len > NAME_MAX)
		return false;
	memcpy(comp, path + at, len);
	comp[len] = '\0';
	memcpy(prefix, path, at);
	prefix[at] = '\0';
	if (read_names(at > 1 ? prefix : "/", false, &in, &names, &n, &cap) == 0 &&
	    (pick = sb_suggest_closest(comp, names, n)) != NULL)
		found = snprintf(out, size, "%.*s%s%s", (int)at, path, pick, path + at + len) < (int)size;
	free(names);
	sb_intern_release(&in);
	return found;
}

/* ---- the checks of a plan ---------------------------------------------- */

struct pf {
	const struct sb_ctx *ctx;
	const struct sb_spec *spec;
	const char *dir;         /* the spec's directory, or NULL */
	const char *search;      /* the PATH the jobs search (the spec's env, or
	                            the context's), NULL: unknown */
	bool env_path;           /* the spec's env sets PATH */
	bool exported;           /* slurm.extra has --export*: another environment */
	char *refusals;          /* one a line */
	size_t nrefusals;
	bool nomem;
};

/* The text of a template as written ({name} for each reference). */
static void tmpl_text(const struct sb_spec *s, const struct sb_tmpl *t, char *out, size_t size)
{
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; i < t->nsegs && o < size; i++) {
		const struct sb_seg *g = &t->segs[i];
		int n = g->kind == SB_SEG_LIT ? snprintf(out + o, size - o, "%.*s", (int)g->len, g->lit)
			: g->kind == SB_SEG_PARAM ? snprintf(out + o, size - o, "{%s}", s->params[g->param].name)
			: g->kind == SB_SEG_REPEAT ? snprintf(out + o, size - o, "{repeat}")
			: snprintf(out + o, size - o, "{child}");
		if (n < 0)
			break;
		o += (size_t)n;
	}
}

static bool varies(const struct sb_tmpl *t)
{
	for (size_t i = 0; i < t->nsegs; i++)
		if (t->segs[i].kind != SB_SEG_LIT)
			return true;
	return false;
}

/* One problem: a message at the element t of the spec, as a warning or
 * a refusal; control characters shown escaped. */
static void say(struct pf *p, bool refuse, const struct sb_tmpl *t, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void say(struct pf *p, bool refuse, const struct sb_tmpl *t, const char *fmt, ...)
{
	char *msg = NULL, *safe = NULL, *all;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0 || (safe = malloc(4 * (size_t)n + 1)) == NULL) {
		free(n < 0 ? NULL : msg);
		p->nomem = true;
		return;
	}
	sb_escape_controls(msg, safe, 4 * (size_t)n + 1);
	free(msg);
	if (!refuse) {
		sb_ctx_warn(p->ctx, "warning: %s:%d:%d: %s", p->spec->path, t->line, t->col, safe);
	} else if (asprintf(&all, "%s%s%s:%d:%d: %s", p->refusals ? p->refusals : "",
			    p->refusals ? "\n" : "", p->spec->path, t->line, t->col, safe) < 0) {
		p->nomem = true;
	} else {
		free(p->refusals);
		p->refusals = all;
		p->nrefusals++;
	}
	free(safe);
}

/* "{spec_dir}/x" as the file it names, into out; false when v does not
 * start with {spec_dir}/ or the spec has no directory */
static bool under_spec_dir(const struct pf *p, const char *v, char *out, size_t size)
{
	size_t tl = strlen(SB_TMPL_SPEC_DIR);

	return p->dir && !strncmp(v, SB_TMPL_SPEC_DIR "/", tl + 1) &&
	       snprintf(out, size, "%s%s", p->dir, v + tl) < (int)size;
}

/* A near miss of the missing file full, said as the spec would write it:
 * " (did you mean '{spec_dir}/train.py'?)", or "". */
static void near_file(const struct pf *p, const char *full, char *out, size_t size)
{
	char near[PATH_MAX];
	size_t dl = p->dir ? strlen(p->dir) : 0;

	out[0] = '\0';
	if (!sb_preflight_near_path(full, near, sizeof(near)))
		return;
	if (dl && !strncmp(near, p->dir, dl) && near[dl] == '/')
		snprintf(out, size, " (did you mean '" SB_TMPL_SPEC_DIR "%s'?)", near + dl);
	else
		snprintf(out, size, " (did you mean '%s'?)", near);
}

/* Element i (its template t) of child c, whose value v starts with
 * {spec_dir}/: the file must exist (the program: an executable file). */
static void check_file(struct pf *p, size_t i, const struct sb_tmpl *t, const char *v, size_t c,
		       bool vary)
{
	char full[PATH_MAX], text[512], near[PATH_MAX + 64], who[64] = "";
	struct stat st;

	if (!under_spec_dir(p, v, full, sizeof(full)))
		return;
	tmpl_text(p->spec, t, text, sizeof(text));
	if (vary)
		snprintf(who, sizeof(who), " of child %zu", c);
	if (stat(full, &st) != 0) {
		near_file(p, full, near, sizeof(near));
		if (i == 0)
			say(p, true, t, "the command's program '%s'%s is '%s', which does not exist%s: "
			    "every child would fail", text, who, full, near);
		else
			say(p, true, t, "command element %zu '%s'%s names '%s', which does not exist%s",
			    i, text, who, full, near);
	} else if (i == 0 && (!S_ISREG(st.st_mode) || access(full, X_OK) != 0)) {
		say(p, true, t, "the command's program '%s'%s is '%s', which is not %s: every child "
		    "would fail (exit 126); %s", text, who, full, S_ISREG(st.st_mode) ?
		    "executable" : "a file", S_ISREG(st.st_mode) ? "make it executable (chmod +x) or "
		    "name its interpreter first (python3, sh...)" : "name the program in it");
	}
}

/* The program, element 0 of child c: v. */
static void check_program(struct pf *p, const struct sb_tmpl *t, const char *v, size_t c, bool vary)
{
	char text[512], who[64] = "", found[PATH_MAX], near[PATH_MAX + 64], fix[256];
	struct stat st;

	if (!strncmp(v, SB_TMPL_SPEC_DIR "/", strlen(SB_TMPL_SPEC_DIR) + 1)) {
		check_file(p, 0, t, v, c, vary);
		return;
	}
	if (strstr(v, SB_TMPL_SPEC_DIR))
		return; /* somewhere inside: not analysed */
	tmpl_text(p->spec, t, text, sizeof(text));
	if (vary)
		snprintf(who, sizeof(who), " (child %zu: '%s')", c, v);
	if (v[0] == '/') {
		if (stat(v, &st) != 0) {
			near[0] = '\0';
			if (sb_preflight_near_path(v, found, sizeof(found)))
				snprintf(near, sizeof(near), " (did you mean '%s'?)", found);
			say(p, false, t, "the command's program '%s'%s does not exist on this node%s; the "
			    "compute nodes may have it, else every child fails (exit 127)", text, who, near);
		} else if (!S_ISREG(st.st_mode) || access(v, X_OK) != 0) {
			say(p, true, t, "the command's program '%s'%s is not an executable file: every "
			    "child would fail (exit 126)", text, who);
		}
		return;
	}
	if (strchr(v, '/')) {
		/* relative to the run directory, which is empty when a child
		 * starts (a file beside the spec: sb_submit_cwd_problem) */
		snprintf(fix, sizeof(fix), "%s", !strncmp(v, "./", 2) ? v + 2 : v);
		near[0] = '\0';
		if (p->dir && snprintf(found, sizeof(found), "%s/%s", p->dir, fix) < (int)sizeof(found))
			near_file(p, found, near, sizeof(near));
		say(p, true, t, "the command's program '%s'%s is a path relative to the child's run "
		    "directory (runs/<index>/ of the benchmark), where nothing is when the command "
		    "starts%s: write '" SB_TMPL_SPEC_DIR "/...' for a file next to the spec, or an "
		    "absolute path", text, who, near);
		return;
	}
	if (p->search == NULL || sb_preflight_which(v, p->search, p->dir, found, sizeof(found)))
		return; /* no PATH known, or found */
	near[0] = '\0';
	if (sb_preflight_near_program(v, p->search, p->dir, found, sizeof(found)))
		snprintf(near, sizeof(near), " (did you mean '%s'?)", found);
	if (near[0])
		say(p, true, t, "the command's program '%s'%s is not on %s%s: every child would fail "
		    "(exit 127)", text, who, p->env_path ? "the PATH the spec's env sets" : "PATH", near);
	else if (!(p->env_path || p->exported))
		say(p, true, t, "the command's program '%s'%s is not on PATH, which the jobs get too "
		    "(Slurm gives them the environment of the submit): every child would fail (exit "
		    "127); for a program that only the compute nodes have, write its absolute path (a "
		    "warning then) or set PATH in the spec's env", text, who);
	else
		say(p, false, t, "the command's program '%s'%s is not on %s on this node; the compute "
		    "nodes may have it (%s), else every child fails (exit 127)", text, who,
		    p->env_path ? "the PATH the spec's env sets" : "PATH", p->env_path ?
		    "their software may differ from this node's" : "slurm.extra's --export gives the "
		    "jobs another environment");
}

/* Element i of a child's argv (the child's index c) when it is checked. */
static void check_element(struct pf *p, size_t i, char *const *argv, size_t argc, size_t c,
			  bool vary)
{
	const struct sb_tmpl *t = &p->spec->argv[i];

	if (i == 0)
		check_program(p, t, argv[0], c, vary);
	else if (!sb_preflight_is_code(argv, argc, i))
		check_file(p, i, t, argv[i], c, vary);
}

/* Whether element i of a child could need a check. */
static bool relevant(const char *v, size_t i)
{
	return i == 0 || !strncmp(v, SB_TMPL_SPEC_DIR "/", strlen(SB_TMPL_SPEC_DIR) + 1);
}

static int check_plan(struct pf *p, const struct sb_plan *plan, struct sb_error *err)
{
	const struct sb_spec *s = p->spec;
	struct sb_child *child = sb_child_create();
	struct sb_intern seen = { 0 };
	bool *vary = NULL, any = false;
	size_t i, c, n = sb_plan_count(plan);
	int rc = -1;

	if (child == NULL || (vary = calloc(s->argc ? s->argc : 1, sizeof(*vary))) == NULL)
		goto out;
	if (n == 0) {
		rc = 0;
		goto out;
	}
	if (sb_plan_child(plan, 0, child, err) < 0)
		goto out;
	for (i = 0; i < s->argc; i++) {
		vary[i] = varies(&s->argv[i]);
		any |= vary[i];
		if (!vary[i] && relevant(sb_child_argv(child)[i], i))
			check_element(p, i, sb_child_argv(child), sb_child_argc(child), 0, false);
	}
	/* an element with parameters: each distinct value, once */
	for (c = 0; any && !p->nomem && c < n; c++) {
		if (sb_plan_child(plan, c, child, err) < 0)
			goto out;
		for (i = 0; i < s->argc; i++) {
			const char *v = sb_child_argv(child)[i];
			size_t before = seen.n;
			char *key = NULL;
			if (!vary[i] || !relevant(v, i))
				continue;
			/* one key per element and value */
			if (asprintf(&key, "%zu:%s", i, v) < 0)
				key = NULL;
			if (key == NULL || sb_intern(&seen, key) == NULL) {
				free(key);
				p->nomem = true;
				break;
			}
			free(key);
			if (seen.n > before)
				check_element(p, i, sb_child_argv(child), sb_child_argc(child), c, true);
		}
	}
	rc = 0;
out:
	if (rc < 0 && err && err->code == SB_ERR_NONE)
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	sb_intern_release(&seen);
	free(vary);
	sb_child_destroy(child);
	return rc;
}

int sb_submit_check_command(const struct sb_ctx *ctx, const struct sb_plan *plan,
			    struct sb_error *err)
{
	const struct sb_spec *s = sb_plan_spec(plan);
	struct pf p = { .ctx = ctx, .spec = s, .dir = s->dir, .search = sb_ctx_path(ctx) };
	struct sb_child *child = NULL;
	char *env_search = NULL;
	int rc = 0;

	if (s->shell)
		return 0; /* a shell string cannot be analysed: no guess */
	for (size_t k = 0; k < s->slurm.nextra; k++)
		p.exported |= !strncmp(s->slurm.extra[k], "--export", 8);
	for (size_t k = 0; k < s->nenv; k++) {
		if (strcmp(s->env[k].name, "PATH") != 0)
			continue;
		/* the jobs search the spec's PATH (child 0's, when it has
		 * parameters) */
		p.env_path = true;
		if (sb_plan_count(plan) > 0) {
			if ((child = sb_child_create()) == NULL)
				rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			else if (sb_plan_child(plan, 0, child, err) < 0)
				rc = -1;
			else if ((env_search = strdup(sb_child_env_value(child, k))) == NULL)
				rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		}
		p.search = env_search;
		break;
	}
	sb_child_destroy(child);
	if (rc == 0)
		rc = check_plan(&p, plan, err);
	if (rc == 0 && p.nomem)
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	else if (rc == 0 && p.refusals)
		rc = sb_error_set(err, SB_ERR_INPUT, "%s", p.refusals);
	free(p.refusals);
	free(env_search);
	return rc;
}
