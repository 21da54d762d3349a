/* sbatch: submit a batch script (plain job or job array). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake/commands.h"
#include "fake/replay.h"
#include "fake/sched.h"
#include "fake/store.h"
#include "fake/util.h"

extern char **environ;

#define SCRIPT_MAX (4 << 20)

enum opt_id {
	O_ARRAY = 1, O_TIME, O_NAME, O_OUTPUT, O_ERROR, O_CHDIR, O_COMMENT, O_EXPORT,
	O_DEP, O_SIGNAL, O_PARTITION, O_CPUS, O_ACCOUNT, O_BEGIN, O_WRAP, O_OPENMODE,
	O_IGNORED_ARG, O_PARSABLE, O_REQUEUE, O_NOREQUEUE, O_WAIT, O_QUIET, O_IGNORED_FLAG,
	O_HELP, O_VERSION, O_CLUSTER,
};

struct optdef {
	const char *name;
	char shortc;
	int has_arg;
	enum opt_id id;
};

static const struct optdef opts[] = {
	{"array", 'a', 1, O_ARRAY}, {"time", 't', 1, O_TIME}, {"job-name", 'J', 1, O_NAME},
	{"output", 'o', 1, O_OUTPUT}, {"error", 'e', 1, O_ERROR}, {"chdir", 'D', 1, O_CHDIR},
	{"comment", 0, 1, O_COMMENT}, {"export", 0, 1, O_EXPORT}, {"dependency", 'd', 1, O_DEP},
	{"signal", 0, 1, O_SIGNAL}, {"partition", 'p', 1, O_PARTITION},
	{"cpus-per-task", 'c', 1, O_CPUS}, {"account", 'A', 1, O_ACCOUNT},
	{"begin", 'b', 1, O_BEGIN}, {"wrap", 0, 1, O_WRAP}, {"open-mode", 0, 1, O_OPENMODE},
	{"clusters", 'M', 1, O_CLUSTER}, {"cluster", 0, 1, O_CLUSTER},
	{"nodes", 'N', 1, O_IGNORED_ARG}, {"ntasks", 'n', 1, O_IGNORED_ARG},
	{"ntasks-per-node", 0, 1, O_IGNORED_ARG}, {"mem", 0, 1, O_IGNORED_ARG},
	{"mem-per-cpu", 0, 1, O_IGNORED_ARG}, {"mem-per-gpu", 0, 1, O_IGNORED_ARG},
	{"gres", 0, 1, O_IGNORED_ARG}, {"gpus", 'G', 1, O_IGNORED_ARG},
	{"gpus-per-node", 0, 1, O_IGNORED_ARG}, {"gpus-per-task", 0, 1, O_IGNORED_ARG},
	{"qos", 'q', 1, O_IGNORED_ARG}, {"constraint", 'C', 1, O_IGNORED_ARG},
	{"mail-type", 0, 1, O_IGNORED_ARG}, {"mail-user", 0, 1, O_IGNORED_ARG},
	{"exclude", 'x', 1, O_IGNORED_ARG}, {"nodelist", 'w', 1, O_IGNORED_ARG},
	{"reservation", 0, 1, O_IGNORED_ARG}, {"time-min", 0, 1, O_IGNORED_ARG},
	{"tmp", 0, 1, O_IGNORED_ARG}, {"wckey", 0, 1, O_IGNORED_ARG},
	{"licenses", 'L', 1, O_IGNORED_ARG}, {"nice", 0, 1, O_IGNORED_ARG},
	{"input", 'i', 1, O_IGNORED_ARG}, {"deadline", 0, 1, O_IGNORED_ARG},
	{"distribution", 'm', 1, O_IGNORED_ARG}, {"threads-per-core", 0, 1, O_IGNORED_ARG},
	{"kill-on-invalid-dep", 0, 1, O_IGNORED_ARG}, {"propagate", 0, 1, O_IGNORED_ARG},
	{"parsable", 0, 0, O_PARSABLE}, {"requeue", 0, 0, O_REQUEUE},
	{"no-requeue", 0, 0, O_NOREQUEUE}, {"wait", 'W', 0, O_WAIT}, {"quiet", 'Q', 0, O_QUIET},
	{"exclusive", 0, 0, O_IGNORED_FLAG}, {"verbose", 'v', 0, O_IGNORED_FLAG},
	{"overcommit", 'O', 0, O_IGNORED_FLAG}, {"get-user-env", 0, 0, O_IGNORED_FLAG},
	{"no-kill", 'k', 0, O_IGNORED_FLAG}, {"help", 'h', 0, O_HELP},
	{"usage", 0, 0, O_HELP}, {"version", 'V', 0, O_VERSION},
	{NULL, 0, 0, 0},
};

struct sopts {
	char *array, *time, *name, *output, *error, *chdir, *comment, *export_spec, *dep;
	char *signal, *partition, *cpus, *account, *begin, *wrap, *openmode;
	int parsable, requeue, wait, quiet, cluster;
};

static void sopts_free(struct sopts *o)
{
	free(o->array); free(o->time); free(o->name); free(o->output); free(o->error);
	free(o->chdir); free(o->comment); free(o->export_spec); free(o->dep); free(o->signal);
	free(o->partition); free(o->cpus); free(o->account); free(o->begin); free(o->wrap);
	free(o->openmode);
	memset(o, 0, sizeof(*o));
}

static void die_usage(void)
{
	fprintf(stderr, "Try \"sbatch --help\" for more information\n");
	exit(1);
}

static void setopt(struct sopts *o, enum opt_id id, const char *v)
{
	char **slot = NULL;

	switch (id) {
	case O_ARRAY: slot = &o->array; break;
	case O_TIME: slot = &o->time; break;
	case O_NAME: slot = &o->name; break;
	case O_OUTPUT: slot = &o->output; break;
	case O_ERROR: slot = &o->error; break;
	case O_CHDIR: slot = &o->chdir; break;
	case O_COMMENT: slot = &o->comment; break;
	case O_EXPORT: slot = &o->export_spec; break;
	case O_DEP: slot = &o->dep; break;
	case O_SIGNAL: slot = &o->signal; break;
	case O_PARTITION: slot = &o->partition; break;
	case O_CPUS: slot = &o->cpus; break;
	case O_ACCOUNT: slot = &o->account; break;
	case O_BEGIN: slot = &o->begin; break;
	case O_WRAP: slot = &o->wrap; break;
	case O_OPENMODE: slot = &o->openmode; break;
	case O_PARSABLE: o->parsable = 1; return;
	case O_REQUEUE: o->requeue = 1; return;
	case O_NOREQUEUE: o->requeue = 0; return;
	case O_WAIT: o->wait = 1; return;
	case O_QUIET: o->quiet = 1; return;
	case O_CLUSTER: o->cluster = 1; return;
	case O_HELP:
		printf("Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n"
		       "(fake Slurm: see docs/fake-slurm.md for the options it honours)\n");
		exit(0);
	case O_VERSION:
		printf("slurm 22.05.8\n");
		exit(0);
	default:
		return;
	}
	if (strlen(v) >= FAKE_TEXT_MAX) {
		fprintf(stderr, "sbatch: error: option argument too long\n");
		exit(1);
	}
	free(*slot);
	*slot = fake_xstrdup(v);
}

static const struct optdef *find_long(const char *name, size_t len)
{
	const struct optdef *d, *hit = NULL;
	int n = 0;

	for (d = opts; d->name; d++) {
		if (strlen(d->name) == len && !strncmp(d->name, name, len))
			return d;
		if (!strncmp(d->name, name, len)) {  /* unambiguous prefix, like getopt */
			hit = d;
			n++;
		}
	}
	return n == 1 ? hit : NULL;
}

static const struct optdef *find_short(char c)
{
	const struct optdef *d;

	for (d = opts; d->name; d++)
		if (d->shortc == c)
			return d;
	return NULL;
}

/* getopt-like parse; stops at the first non-option (the script) when
 * stop_at_arg.  Returns index of the first non-option argument. */
static int parse_args(struct sopts *o, int argc, char **argv, int stop_at_arg, const char *where)
{
	int i;

	for (i = 0; i < argc; i++) {
		char *a = argv[i];
		const struct optdef *d;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (stop_at_arg)
				break;
			continue;
		}
		if (a[1] == '-') {
			char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			d = find_long(a + 2, len);
			if (!d) {
				fprintf(stderr, "sbatch: unrecognized option '%s'\n", a);
				if (where)
					fprintf(stderr, "sbatch: error: Invalid directive found in batch script: %s\n", a + 2);
				die_usage();
			}
			if (d->has_arg) {
				if (eq) {
					setopt(o, d->id, eq + 1);
				} else if (i + 1 < argc) {
					setopt(o, d->id, argv[++i]);
				} else {
					fprintf(stderr, "sbatch: option '--%s' requires an argument\n", d->name);
					die_usage();
				}
			} else {
				if (eq) {
					fprintf(stderr, "sbatch: option '--%s' doesn't allow an argument\n", d->name);
					die_usage();
				}
				setopt(o, d->id, NULL);
			}
			continue;
		}
		for (char *p = a + 1; *p; p++) {
			d = find_short(*p);
			if (!d) {
				fprintf(stderr, "sbatch: invalid option -- '%c'\n", *p);
				die_usage();
			}
			if (d->has_arg) {
				if (p[1]) {
					setopt(o, d->id, p + 1);
				} else if (i + 1 < argc) {
					setopt(o, d->id, argv[++i]);
				} else {
					fprintf(stderr, "sbatch: option requires an argument -- '%c'\n", *p);
					die_usage();
				}
				break;
			}
			setopt(o, d->id, NULL);
		}
	}
	return i;
}

/* Splits a #SBATCH line into words (quotes allowed, # starts a comment). */
static int split_words(const char *line, char **words, int max, char *buf, size_t blen)
{
	int n = 0;
	size_t o = 0;
	const char *p = line;

	while (*p && n < max) {
		char q = 0;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			break;
		words[n++] = buf + o;
		while (*p && (q || !isspace((unsigned char)*p)) && o + 1 < blen) {
			if (q && *p == q) {
				q = 0;
			} else if (!q && (*p == '"' || *p == '\'')) {
				q = *p;
			} else {
				buf[o++] = *p;
			}
			p++;
		}
		buf[o++] = '\0';
		if (o >= blen)
			break;
	}
	return n;
}

static void parse_directives(struct sopts *o, const char *script)
{
	const char *p = script;
	int first = 1;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[FAKE_TEXT_MAX], wbuf[FAKE_TEXT_MAX + 64], *words[64];
		int n;

		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, p, len);
		line[len] = '\0';
		p = nl ? nl + 1 : p + strlen(p);
		if (first) {
			first = 0;
			continue;  /* the #! line */
		}
		fake_trim(line);
		if (!line[0])
			continue;
		if (line[0] != '#')
			break;
		if (strncmp(line, "#SBATCH", 7) != 0 || !isspace((unsigned char)line[7]))
			continue;
		n = split_words(line + 7, words, 64, wbuf, sizeof(wbuf));
		if (n > 0)
			parse_args(o, n, words, 0, "script");
	}
}

static void apply_env_inputs(struct sopts *o)
{
	static const struct { const char *var; enum opt_id id; } tab[] = {
		{"SBATCH_ARRAY_INX", O_ARRAY}, {"SBATCH_TIMELIMIT", O_TIME},
		{"SBATCH_JOB_NAME", O_NAME}, {"SBATCH_EXPORT", O_EXPORT},
		{"SBATCH_PARTITION", O_PARTITION}, {"SBATCH_ACCOUNT", O_ACCOUNT},
		{"SBATCH_SIGNAL", O_SIGNAL}, {"SBATCH_OPEN_MODE", O_OPENMODE},
		{NULL, 0},
	};
	int i;

	for (i = 0; tab[i].var; i++) {
		const char *v = getenv(tab[i].var);
		if (v && *v)
			setopt(o, tab[i].id, v);
	}
	if (getenv("SBATCH_REQUEUE"))
		o->requeue = 1;
	if (getenv("SBATCH_NO_REQUEUE"))
		o->requeue = 0;
}

static char *read_all(FILE *f, size_t *len)
{
	char *buf = fake_xcalloc(SCRIPT_MAX + 1, 1);
	size_t n = fread(buf, 1, SCRIPT_MAX, f);

	if (n == SCRIPT_MAX && fgetc(f) != EOF) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The environment the job will get (before the SLURM_* variables). */
static int write_environment(const char *path, const char *spec)
{
	FILE *f = fopen(path, "wb");
	char buf[FAKE_TEXT_MAX], *tok, *save = NULL;
	int all = 1;

	if (!f)
		return -1;
	if (spec) {
		snprintf(buf, sizeof(buf), "%s", spec);
		all = 0;
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (!strcmp(tok, "ALL"))
				all = 1;
	}
	for (char **e = environ; *e; e++) {
		if (all || !strncmp(*e, "SLURM_", 6))
			fwrite(*e, 1, strlen(*e) + 1, f);
	}
	if (spec) {
		snprintf(buf, sizeof(buf), "%s", spec);
		save = NULL;
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (!strcmp(tok, "ALL") || !strcmp(tok, "NONE") || !strcmp(tok, "NIL"))
				continue;
			if (strchr(tok, '=')) {
				fwrite(tok, 1, strlen(tok) + 1, f);
			} else {
				const char *v = getenv(tok);
				if (v) {
					fprintf(f, "%s=%s", tok, v);
					fputc('\0', f);
				}
			}
		}
		fprintf(f, "SLURM_EXPORT_ENV=%s", spec);
		fputc('\0', f);
	}
	return fclose(f) == 0 ? 0 : -1;
}

static int valid_dependency(struct fake_state *st, const char *dep)
{
	char buf[FAKE_TEXT_MAX], *term, *save = NULL;
	char *marks = fake_xcalloc(st->ntasks + 1, 1);
	int ok = 1;

	snprintf(buf, sizeof(buf), "%s", dep);
	for (term = strtok_r(buf, ",?", &save); term && ok; term = strtok_r(NULL, ",?", &save)) {
		char *colon = strchr(term, ':'), *id, *isave = NULL;
		if (!colon) {
			ok = 0;
			break;
		}
		*colon = '\0';
		if (strcmp(term, "after") && strcmp(term, "afterany") && strcmp(term, "afterok") &&
		    strcmp(term, "afternotok")) {
			ok = 0;
			break;
		}
		if (!colon[1])
			ok = 0;
		for (id = strtok_r(colon + 1, ":", &isave); id && ok; id = strtok_r(NULL, ":", &isave)) {
			memset(marks, 0, st->ntasks + 1);
			if (fake_match_id(st, id, marks) == 0)
				ok = 0;
		}
	}
	free(marks);
	return ok;
}

static void submit_fail(const char *why)
{
	fprintf(stderr, "sbatch: error: Batch job submission failed: %s\n", why);
	exit(1);
}

static int wait_for(long id)
{
	int worst = 0;

	for (;;) {
		struct fake_state st;
		int done = 1;
		size_t i;
		if (fake_open(&st) != 0 || fake_load(&st) != 0 || fake_schedule(&st) != 0) {
			fake_close(&st);
			return 1;
		}
		fake_commit(&st);
		worst = 0;
		for (i = 0; i < st.ntasks; i++) {
			struct fake_task *t = &st.tasks[i];
			if (t->array_id != id)
				continue;
			if (!fake_task_is_ended(t) || t->completing)
				done = 0;
			else if (t->status >= 0 && WIFEXITED(t->status) && WEXITSTATUS(t->status) > worst)
				worst = WEXITSTATUS(t->status);
			else if (t->status < 0 || !WIFEXITED(t->status)) {
				if (strcmp(t->state, "COMPLETED") != 0 && worst == 0)
					worst = 1;
			}
		}
		fake_close(&st);
		if (done)
			return worst;
		usleep(100000);
	}
}

int fake_sbatch_main(int argc, char **argv)
{
	/* static: a one-shot command; what it holds when it exits early stays
	 * reachable (no leak reports) and is released by the exit itself */
	static struct sopts o;
	static char *script;
	static long *ids;
	struct fake_state st;
	struct fake_job j;
	char cwd[PATH_MAX], workdir[PATH_MAX], path[PATH_MAX + 3200];
	char argvbuf[FAKE_TEXT_MAX], spec[FAKE_TEXT_MAX], *base;
	const char *script_path = NULL;
	long limit = -1, sigtime = 60;
	size_t nids = 0, slen = 0, i;
	int first_arg, throttle = 0, sig = 0, sigb = 0, rc;
	double begin = 0;
	FILE *f;

	memset(&o, 0, sizeof(o));
	memset(&j, 0, sizeof(j));
	first_arg = parse_args(&o, argc - 1, argv + 1, 1, NULL) + 1;
	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "sbatch: error: getcwd failed: %s\n", strerror(errno));
		return 1;
	}
	if (o.wrap) {
		if (first_arg < argc) {
			fprintf(stderr, "sbatch: error: Script arguments not permitted with --wrap option\n");
			return 1;
		}
		script = fake_xcalloc(strlen(o.wrap) + 64, 1);
		sprintf(script, "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n%s\n", o.wrap);
		slen = strlen(script);
	} else {
		if (first_arg < argc) {
			script_path = argv[first_arg++];
			f = fopen(script_path, "rb");
			if (!f) {
				fprintf(stderr, "sbatch: error: Unable to open file %s\n", script_path);
				return 1;
			}
		} else {
			f = stdin;
		}
		script = read_all(f, &slen);
		if (f != stdin)
			fclose(f);
		if (!script) {
			fprintf(stderr, "sbatch: error: Batch script is too large\n");
			return 1;
		}
		if (slen == 0) {
			fprintf(stderr, "sbatch: error: Batch script is empty!\n");
			return 1;
		}
		if (strncmp(script, "#!", 2) != 0) {
			fprintf(stderr, "sbatch: error: This does not look like a batch script.  The first\n"
				"sbatch: error: line must start with #! followed by the path to an interpreter.\n"
				"sbatch: error: For instance: #!/bin/sh\n");
			return 1;
		}
		if (memchr(script, '\0', slen)) {
			fprintf(stderr, "sbatch: error: The Slurm batch script contains a NULL character\n");
			return 1;
		}
		/* precedence: command line > environment > #SBATCH */
		sopts_free(&o);
		parse_directives(&o, script);
		apply_env_inputs(&o);
		parse_args(&o, first_arg - 1 - (script_path ? 1 : 0), argv + 1, 1, NULL);
	}
	if (o.wrap)
		apply_env_inputs(&o), parse_args(&o, first_arg - 1, argv + 1, 1, NULL);

	if (o.time && fake_parse_time_limit(o.time, &limit) != 0) {
		fprintf(stderr, "sbatch: error: Invalid time limit specification\n");
		return 1;
	}
	if (o.array && fake_parse_array(o.array, &ids, &nids, &throttle) != 0) {
		fprintf(stderr, "sbatch: error: Invalid --array specification\n");
		return 1;
	}
	if (o.signal) {
		char buf[256], *s = buf, *at;
		snprintf(buf, sizeof(buf), "%s", o.signal);
		if (!strncmp(s, "B:", 2)) {
			sigb = 1;
			s += 2;
		} else if (!strncmp(s, "R:", 2) || !strncmp(s, "RB:", 3) || !strncmp(s, "BR:", 3)) {
			sigb = s[0] == 'B' || s[1] == 'B';
			s = strchr(s, ':') + 1;
		}
		at = strchr(s, '@');
		if (at) {
			char *end;
			*at = '\0';
			sigtime = strtol(at + 1, &end, 10);
			if (end == at + 1 || *end || sigtime < 0 || sigtime > 65535) {
				fprintf(stderr, "sbatch: error: Invalid --signal specification\n");
				return 1;
			}
		}
		sig = fake_signal_number(s);
		if (sig < 0) {
			fprintf(stderr, "sbatch: error: Invalid --signal specification\n");
			return 1;
		}
	}
	if (o.cpus) {
		long c = atol(o.cpus);
		if (c < 1 || c > 100000) {
			fprintf(stderr, "sbatch: error: Invalid numeric value \"%s\" for cpus-per-task.\n", o.cpus);
			return 1;
		}
	}
	if (o.openmode && strcmp(o.openmode, "append") != 0 && strcmp(o.openmode, "truncate") != 0) {
		fprintf(stderr, "sbatch: error: Invalid --open-mode argument: %s. Ignored\n", o.openmode);
		free(o.openmode);
		o.openmode = NULL;
	}
	if (o.begin && fake_parse_when(o.begin, fake_now(), &begin) != 0) {
		fprintf(stderr, "sbatch: error: Invalid time specification %s\n", o.begin);
		return 1;
	}
	if (o.chdir) {
		if (o.chdir[0] == '/')
			snprintf(workdir, sizeof(workdir), "%s", o.chdir);
		else if ((size_t)snprintf(workdir, sizeof(workdir), "%s/%s", cwd, o.chdir) >= sizeof(workdir))
			return fprintf(stderr, "sbatch: error: --chdir is too long\n"), 1;
	} else {
		snprintf(workdir, sizeof(workdir), "%s", cwd);
	}

	if (fake_open(&st) != 0 || fake_load(&st) != 0) {
		fake_close(&st);
		submit_fail("Unable to contact slurm controller (connect failure)");
	}
	if (fake_replaying(&st)) {
		fake_close(&st);
		submit_fail("the fake Slurm is replaying a recording (sbfake reset ends it)");
	}
	{
		char *down = fake_meta_get(&st, "ctld_down");
		if (down) {
			free(down);
			fake_close(&st);
			fprintf(stderr, "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)\n");
			return 1;
		}
	}
	if (ids && ids[nids - 1] >= fake_max_array_size()) {
		fake_close(&st);
		submit_fail("Invalid job array specification");
	}
	if (o.dep && *o.dep && !valid_dependency(&st, o.dep)) {
		fake_close(&st);
		submit_fail("Job dependency problem");
	}
	{
		char *lim = fake_meta_get(&st, "submit_limit");
		if (lim) {
			long max = atol(lim), active = 0;
			free(lim);
			for (i = 0; i < st.ntasks; i++)
				if (!fake_task_is_ended(&st.tasks[i]) || st.tasks[i].completing)
					active++;
			if (active + (long)(ids ? nids : 1) > max) {
				fake_close(&st);
				submit_fail("Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)");
			}
		}
	}

	j.id = fake_next_id(&st);
	if (j.id < 0) {
		fake_close(&st);
		return 1;
	}
	j.is_array = ids != NULL;
	j.throttle = throttle;
	spec[0] = '\0';
	if (ids)
		fake_fmt_ranges(ids, nids, spec, sizeof(spec));
	j.array_spec = spec;
	if (o.name)
		j.name = o.name;
	else if (o.wrap)
		j.name = "wrap";
	else if (script_path)
		j.name = (base = strrchr(script_path, '/')) ? base + 1 : (char *)script_path;
	else
		j.name = "sbatch";
	j.comment = o.comment;
	j.workdir = workdir;
	j.submit_dir = cwd;
	j.out = o.output ? o.output : (ids ? "slurm-%A_%a.out" : "slurm-%j.out");
	j.err = o.error;
	j.dep = o.dep;
	j.partition = o.partition ? o.partition : "debug";
	j.account = o.account ? o.account : "";
	j.user = (char *)fake_username();
	j.export_spec = o.export_spec;
	argvbuf[0] = '\0';
	for (i = (size_t)first_arg; i < (size_t)argc; i++) {
		size_t used = strlen(argvbuf);
		snprintf(argvbuf + used, sizeof(argvbuf) - used, "%s%s", used || i > (size_t)first_arg ? "\x1f" : "", argv[i]);
	}
	j.argv = argvbuf;
	j.time_limit = limit;
	j.sig = sig;
	j.sig_time = (int)sigtime;
	j.sig_batch = sigb;
	j.cpus = o.cpus ? (int)atol(o.cpus) : 1;
	j.requeue = o.requeue;
	j.open_append = o.openmode && !strcmp(o.openmode, "append");
	j.submit = fake_now();
	j.uid = (int)getuid();
	j.gid = (int)getgid();
	if (ids) {
		j.task_min = (int)ids[0];
		j.task_max = (int)ids[nids - 1];
		j.task_count = (int)nids;
		j.task_step = 1;
		if (nids > 1) {
			long step = ids[1] - ids[0];
			for (i = 2; i < nids; i++)
				if (ids[i] - ids[i - 1] != step)
					step = 1;
			j.task_step = (int)step;
		}
	}
	if (j.sig_time < 0)
		j.sig_time = 60;

	snprintf(path, sizeof(path), "%s/jobs/%ld", st.dir, j.id);
	if (fake_mkdir_p(path, 0700) != 0) {
		fprintf(stderr, "sbatch: error: cannot create '%s': %s\n", path, strerror(errno));
		fake_close(&st);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/jobs/%ld/slurm_script", st.dir, j.id);
	f = fopen(path, "wb");
	if (!f || fwrite(script, 1, slen, f) != slen || fclose(f) != 0 || chmod(path, 0700) != 0) {
		fprintf(stderr, "sbatch: error: cannot write '%s': %s\n", path, strerror(errno));
		fake_close(&st);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/jobs/%ld/environment", st.dir, j.id);
	if (write_environment(path, o.export_spec) != 0) {
		fprintf(stderr, "sbatch: error: cannot write '%s': %s\n", path, strerror(errno));
		fake_close(&st);
		return 1;
	}
	if (fake_job_insert(&st, &j) != 0) {
		fake_close(&st);
		return 1;
	}
	for (i = 0; i < (ids ? nids : 1); i++) {
		struct fake_task t;
		memset(&t, 0, sizeof(t));
		t.array_id = j.id;
		t.task_id = ids ? ids[i] : -1;
		t.raw_id = ids ? 0 : j.id;
		t.state = "PENDING";
		t.reason = "None";
		t.begin = begin;
		t.status = -1;
		if (fake_task_insert(&st, &t) != 0 || fake_acct_record(&st, &t, "PENDING", "0:0") != 0) {
			fake_close(&st);
			return 1;
		}
	}
	rc = fake_load(&st) == 0 && fake_schedule(&st) == 0 && fake_commit(&st) == 0 ? 0 : 1;
	fake_close(&st);
	free(ids);
	free(script);
	{
		int pars = o.parsable, quiet = o.quiet, wait = o.wait;
		sopts_free(&o);
		o.parsable = pars;
		o.quiet = quiet;
		o.wait = wait;
	}
	if (rc != 0)
		submit_fail("Unable to contact slurm controller (connect failure)");
	if (o.parsable)
		printf("%ld\n", j.id);
	else if (!o.quiet)
		printf("Submitted batch job %ld\n", j.id);
	fflush(stdout);
	if (o.wait)
		return wait_for(j.id);
	return 0;
}
