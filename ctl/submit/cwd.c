/* The working directory of a child's command (docs/spec.md, "Where the
 * command runs"): each child runs in its own run directory, not in the
 * spec's, so a command that names a file next to the spec by a relative
 * path finds nothing there.  sbctl submit refuses such a spec and sbctl
 * plan warns, with the fix: the {spec_dir} reference. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "spec/spec_template.h"
#include "proto/util.h"
#include "submit/submit_private.h"
#include "sbench/plan.h"
#include "sbench/spec.h"
#include "sbench/submit.h"

/* Programs whose first argument that is not an option is a file they run. */
static bool is_interpreter(const char *prog)
{
	static const char *const names[] = { "python", "pypy", "bash", "sh", "dash", "zsh", "ksh",
					     "Rscript", "julia", "perl", "ruby", "node", "lua", "php",
					     "tclsh" };
	const char *base = strrchr(prog, '/');
	size_t n;

	base = base ? base + 1 : prog;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = strlen(names[i]);
		/* python3, python3.11, pypy3 */
		if (!strncmp(base, names[i], n) && strspn(base + n, "0123456789.") == strlen(base + n))
			return true;
	}
	return false;
}

/* A relative path that names a regular file in dir (and no {spec_dir}). */
static bool names_file_in(const char *dir, const char *arg)
{
	char path[PATH_MAX];
	struct stat st;

	if (arg[0] == '\0' || arg[0] == '/' || arg[0] == '-' || strstr(arg, SB_TMPL_SPEC_DIR) ||
	    snprintf(path, sizeof(path), "%s/%s", dir, arg) >= (int)sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The word of words[0..n) that names a file next to the spec: the program
 * itself, or an interpreter's script; NULL when none does. */
static const char *file_word(const char *dir, char *const *words, size_t n)
{
	if (n == 0)
		return NULL;
	if (names_file_in(dir, words[0]))
		return words[0];
	if (!is_interpreter(words[0]))
		return NULL;
	for (size_t i = 1; i < n; i++) {
		/* -m module, -c code, -e code: no script file follows */
		if (!strcmp(words[i], "-m") || !strcmp(words[i], "-c") || !strcmp(words[i], "-e"))
			return NULL;
		if (words[i][0] != '-')
			return names_file_in(dir, words[i]) ? words[i] : NULL;
	}
	return NULL;
}

/* The words of a shell string, split at blanks, quotes around a word
 * dropped (enough to find `python3 train.py`); malloc'd, in *buf. */
static char **shell_words(const char *cmd, size_t *n, char **buf)
{
	size_t cap = 1;
	char **w, *p;

	for (const char *q = cmd; *q; q++)
		cap += *q == ' ' || *q == '\t';
	*n = 0;
	*buf = strdup(cmd);
	w = calloc(cap + 1, sizeof(*w));
	if (*buf == NULL || w == NULL) {
		free(*buf);
		free(w);
		return NULL;
	}
	for (p = strtok(*buf, " \t\n"); p && *n < cap; p = strtok(NULL, " \t\n")) {
		size_t len = strlen(p);
		if (len >= 2 && (p[0] == '\'' || p[0] == '"') && p[len - 1] == p[0]) {
			p[len - 1] = '\0';
			p++;
		}
		w[(*n)++] = p;
	}
	return w;
}

char *sb_submit_cwd_problem(const struct sb_plan *plan, const char *spec_path)
{
	struct sb_child *child = sb_child_create();
	char *dir = sb_spec_dir_of(spec_path), *msg = NULL, *buf = NULL, **words = NULL;
	const char *word = NULL, *fix;
	size_t n = 0;

	if (child == NULL || dir == NULL || sb_plan_count(plan) == 0 ||
	    sb_plan_child(plan, 0, child, NULL) < 0)
		goto out;
	if (sb_child_is_shell(child)) {
		words = shell_words(sb_child_shell(child), &n, &buf);
		word = words ? file_word(dir, words, n) : NULL;
	} else {
		word = file_word(dir, sb_child_argv(child), sb_child_argc(child));
	}
	if (word == NULL)
		goto out;
	fix = !strncmp(word, "./", 2) ? word + 2 : word;
	if (asprintf(&msg, "%s: the command's '%s' is the file '%s/%s' next to the spec, but each "
		     "child's command runs in its own run directory (runs/<index>/ of the benchmark), "
		     "where there is no such file: write '" SB_TMPL_SPEC_DIR "/%s' instead (the "
		     "spec's directory, put in place at run time; $SB_SPEC_DIR holds it too)",
		     spec_path, word, dir, fix, fix) < 0)
		msg = NULL;
	if (msg != NULL) { /* the word and the paths are shown, never acted on by a terminal */
		size_t size = 4 * strlen(msg) + 1;
		char *safe = malloc(size);
		if (safe != NULL)
			sb_escape_controls(msg, safe, size);
		free(msg);
		msg = safe;
	}
out:
	free(words);
	free(buf);
	free(dir);
	sb_child_destroy(child);
	return msg;
}
