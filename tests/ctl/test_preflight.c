/* The checks before a submit (ctl/submit/preflight.c, sb_submit_check_command)
 * on files made in a temporary directory: which arguments are code, the
 * search of a PATH, the did-you-mean of a program (another version is no
 * typo) and of a path (the first missing component), and the whole check
 * of planned specs: what it refuses, with positions, and what it only
 * warns about.  PATH comes from the context (sb_ctx_load_env), never from
 * this process's environment.  No process is spawned. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "submit/preflight.h"
#include "sbench/context.h"
#include "sbench/plan.h"
#include "sbench/spec.h"
#include "sbench/submit.h"
#include "tests/ctl/benchfix.h"

static char root[] = "/tmp/sb-preflight-XXXXXX";
static char bin[256], other[256], proj[256]; /* short: the root is */

static void make(const char *dir, const char *name, mode_t mode)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (name[strlen(name) - 1] == '/') {
		assert_int_equal(mkdir(path, 0755), 0);
		return;
	}
	assert_non_null(f = fopen(path, "w"));
	fputs("#!/bin/sh\n", f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(bin, sizeof(bin), "%s/bin", root);
	snprintf(other, sizeof(other), "%s/other", root);
	snprintf(proj, sizeof(proj), "%s/proj", root);
	assert_int_equal(mkdir(bin, 0755), 0);
	assert_int_equal(mkdir(other, 0755), 0);
	assert_int_equal(mkdir(proj, 0755), 0);
	make(bin, "python3", 0755);
	make(bin, "python3.11", 0755);
	make(bin, "notexec", 0644);
	make(bin, "adir/", 0);
	make(other, "mytool", 0755);
	make(proj, "train.py", 0644);
	make(proj, "run.sh", 0755);
	make(proj, "plain.sh", 0644);
	make(proj, "data/", 0);
	make(proj, "data/cifar10.csv", 0644);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return sb_test_rmtree(root);
}

static void test_is_code(void **state)
{
	char *sh[] = { "sh", "-c", "{spec_dir}/x.sh", "{spec_dir}/arg" };
	char *bash[] = { "/bin/bash", "-lc", "echo", "x" };
	char *py[] = { "python3", "-c", "print(1)" };
	char *perl[] = { "perl", "-e", "1" };
	char *plain[] = { "python3", "-u", "{spec_dir}/t.py" };
	char *tool[] = { "tool", "-lc", "{spec_dir}/f" };
	char *opts[] = { "bash", "--norc", "x" };

	(void)state;
	assert_false(sb_preflight_is_code(sh, 4, 0));
	assert_false(sb_preflight_is_code(sh, 4, 1));
	assert_true(sb_preflight_is_code(sh, 4, 2));
	assert_false(sb_preflight_is_code(sh, 4, 3)); /* $0 of the string: a plain argument */
	assert_true(sb_preflight_is_code(bash, 4, 2));
	assert_true(sb_preflight_is_code(py, 3, 2));
	assert_true(sb_preflight_is_code(perl, 3, 2));
	assert_false(sb_preflight_is_code(plain, 3, 2));
	assert_false(sb_preflight_is_code(tool, 3, 2)); /* -lc is a shell's only */
	assert_false(sb_preflight_is_code(opts, 3, 2));
	assert_false(sb_preflight_is_code(sh, 4, 9));
}

static void test_which(void **state)
{
	char path[3 * PATH_MAX], buf[PATH_MAX], want[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "relative/bin::%s:%s", other, bin);
	assert_int_equal(sb_preflight_which("python3", path, NULL, buf, sizeof(buf)), 1);
	snprintf(want, sizeof(want), "%s/python3", bin);
	assert_string_equal(buf, want);
	assert_int_equal(sb_preflight_which("mytool", path, NULL, buf, sizeof(buf)), 1);
	assert_int_equal(sb_preflight_which("notexec", path, NULL, buf, sizeof(buf)), 0);
	assert_int_equal(sb_preflight_which("adir", path, NULL, buf, sizeof(buf)), 0);
	assert_int_equal(sb_preflight_which("nothing", path, NULL, buf, sizeof(buf)), 0);
	assert_int_equal(sb_preflight_which("bin/python3", path, NULL, buf, sizeof(buf)), 0);
	assert_int_equal(sb_preflight_which("python3", NULL, NULL, buf, sizeof(buf)), 0);
	/* {spec_dir} in an entry is the spec's directory */
	assert_int_equal(sb_preflight_which("run.sh", "{spec_dir}", proj, buf, sizeof(buf)), 1);
	assert_int_equal(sb_preflight_which("run.sh", "{spec_dir}", NULL, buf, sizeof(buf)), 0);
}

static void test_near(void **state)
{
	char path[3 * PATH_MAX], buf[PATH_MAX], in[PATH_MAX], want[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s:%s", bin, other);
	assert_non_null(sb_preflight_near_program("pyhton3", path, NULL, buf, sizeof(buf)));
	assert_string_equal(buf, "python3");
	assert_non_null(sb_preflight_near_program("mytol", path, NULL, buf, sizeof(buf)));
	assert_string_equal(buf, "mytool");
	/* another version is no typo; a non-executable is no program */
	assert_null(sb_preflight_near_program("python3.12", path, NULL, buf, sizeof(buf)));
	assert_null(sb_preflight_near_program("notexe", path, NULL, buf, sizeof(buf)));
	assert_null(sb_preflight_near_program("zzzzzzzz", path, NULL, buf, sizeof(buf)));

	snprintf(in, sizeof(in), "%s/trian.py", proj);
	snprintf(want, sizeof(want), "%s/train.py", proj);
	assert_true(sb_preflight_near_path(in, buf, sizeof(buf)));
	assert_string_equal(buf, want);
	/* the first missing component, the rest kept */
	snprintf(in, sizeof(in), "%s/dta/cifar10.csv", proj);
	snprintf(want, sizeof(want), "%s/data/cifar10.csv", proj);
	assert_true(sb_preflight_near_path(in, buf, sizeof(buf)));
	assert_string_equal(buf, want);
	snprintf(in, sizeof(in), "%s/data/cifar.csv", proj);
	snprintf(want, sizeof(want), "%s/data/cifar10.csv", proj);
	assert_true(sb_preflight_near_path(in, buf, sizeof(buf)));
	assert_string_equal(buf, want);
	snprintf(in, sizeof(in), "%s/completely-else.bin", proj);
	assert_false(sb_preflight_near_path(in, buf, sizeof(buf)));
	snprintf(in, sizeof(in), "%s/train.py", proj); /* it exists */
	assert_false(sb_preflight_near_path(in, buf, sizeof(buf)));
	assert_false(sb_preflight_near_path("relative/x", buf, sizeof(buf)));
}

/* ---- sb_submit_check_command ----------------------------------------- */

static char warned[8192];

static void warn(void *user, const char *msg)
{
	(void)user;
	snprintf(warned + strlen(warned), sizeof(warned) - strlen(warned), "%s\n", msg);
}

/* Writes proj/NAME.yaml with text, plans it and checks it with the PATH
 * path (NULL: none); the return value, err and the warnings. */
static int check(const char *name, const char *text, const char *path, struct sb_error *err)
{
	char file[PATH_MAX], env[3 * PATH_MAX];
	char *envp[] = { env, NULL };
	struct sb_ctx *ctx = sb_ctx_create(NULL);
	struct sb_spec *spec;
	struct sb_plan *plan;
	FILE *f;
	int rc;

	memset(err, 0, sizeof(*err));
	warned[0] = '\0';
	snprintf(file, sizeof(file), "%s/%s.yaml", proj, name);
	assert_non_null(f = fopen(file, "w"));
	fputs(text, f);
	fclose(f);
	spec = sb_spec_load(file, err);
	if (spec == NULL)
		fail_msg("%s: %s", name, err->msg);
	assert_non_null(plan = sb_plan_create(spec, err));
	assert_non_null(ctx);
	if (path) {
		snprintf(env, sizeof(env), "PATH=%s", path);
		assert_int_equal(sb_ctx_load_env(ctx, envp, err), 0);
		assert_string_equal(sb_ctx_path(ctx), path);
	} else {
		assert_null(sb_ctx_path(ctx));
	}
	sb_ctx_set_warn(ctx, warn, NULL);
	rc = sb_submit_check_command(ctx, plan, err);
	if (getenv("SB_TEST_VERBOSE"))
		fprintf(stderr, "%s: rc %d: %s | %s\n", name, rc, err->msg, warned);
	sb_plan_destroy(plan);
	sb_spec_destroy(spec);
	sb_ctx_destroy(ctx);
	return rc;
}

static void test_check_refusals(void **state)
{
	struct sb_error err;

	(void)state;
	/* the motivating spec: two typos, each at its position, with the fix */
	assert_int_equal(check("typo", "name: t\ncommand: [pyhton3, \"{spec_dir}/trian.py\"]\n", bin, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_non_null(strstr(err.msg, "typo.yaml:2:11: the command's program 'pyhton3' is not on "
			       "PATH (did you mean 'python3'?)"));
	assert_non_null(strstr(err.msg, "\n"));
	assert_non_null(strstr(err.msg, "typo.yaml:2:20: command element 1 '{spec_dir}/trian.py' names '"));
	assert_non_null(strstr(err.msg, "/proj/trian.py', which does not exist (did you mean "
			       "'{spec_dir}/train.py'?)"));
	/* a parameter in the path: every distinct value, the child named */
	assert_int_equal(check("param", "name: p\ncommand: [python3, \"{spec_dir}/train.py\", "
			       "\"{spec_dir}/data/{ds}.csv\"]\nparameters: {ds: [cifar10, cifar]}\n"
			       "repeats: 2\n", bin, &err), -1);
	assert_non_null(strstr(err.msg, "command element 2 '{spec_dir}/data/{ds}.csv' of child 2 names"));
	assert_non_null(strstr(err.msg, "(did you mean '{spec_dir}/data/cifar10.csv'?)"));
	assert_null(strchr(err.msg, '\n')); /* cifar once, not once per child */
	/* not on PATH, nothing close, and the jobs get this PATH */
	assert_int_equal(check("gone", "name: g\ncommand: [mytool]\n", bin, &err), -1);
	assert_non_null(strstr(err.msg, "the command's program 'mytool' is not on PATH, which the jobs "
			       "get too"));
	assert_non_null(strstr(err.msg, "write its absolute path"));
	/* programs under {spec_dir}: executable files only */
	assert_int_equal(check("plain", "name: p\ncommand: [\"{spec_dir}/plain.sh\"]\n", bin, &err), -1);
	assert_non_null(strstr(err.msg, "is not executable"));
	assert_int_equal(check("dir", "name: p\ncommand: [\"{spec_dir}/data\"]\n", bin, &err), -1);
	assert_non_null(strstr(err.msg, "which is not a file"));
	assert_int_equal(check("rel", "name: p\ncommand: [bin/tool]\n", bin, &err), -1);
	assert_non_null(strstr(err.msg, "is a path relative to the child's run directory"));
	{
		char text[2 * PATH_MAX];
		snprintf(text, sizeof(text), "name: p\ncommand: [\"%s/notexec\"]\n", bin);
		assert_int_equal(check("abs", text, bin, &err), -1);
		assert_non_null(strstr(err.msg, "is not an executable file"));
	}
}

static void test_check_allowed(void **state)
{
	struct sb_error err;
	char text[2 * PATH_MAX];

	(void)state;
	assert_int_equal(check("ok", "name: ok\ncommand: [python3, \"{spec_dir}/train.py\", --data, "
			       "\"{spec_dir}/data/{ds}.csv\", --out, out.json]\nparameters: {ds: [cifar10]}\n",
			       bin, &err), 0);
	assert_string_equal(warned, "");
	assert_int_equal(check("run", "name: r\ncommand: [\"{spec_dir}/run.sh\", \"{spec_dir}/data/\"]\n",
			       bin, &err), 0);
	/* shell strings and code are not analysed */
	assert_int_equal(check("shell", "name: s\ncommand: \"pyhton3 {spec_dir}/trian.py\"\n", bin, &err), 0);
	snprintf(text, sizeof(text), "%s:/bin:/usr/bin", bin);
	assert_int_equal(check("shc", "name: s\ncommand: [sh, -c, \"{spec_dir}/trian.py\", x]\n", text, &err), 0);
	/* sh is not on this PATH: refused, but the string is still not read */
	assert_int_equal(check("shc2", "name: s\ncommand: [sh, -c, \"{spec_dir}/trian.py\"]\n", other, &err), -1);
	assert_null(strstr(err.msg, "trian"));
	/* no PATH known: a bare name is not looked for */
	assert_int_equal(check("nopath", "name: n\ncommand: [mytool]\n", NULL, &err), 0);
	/* an absolute program this node lacks: a warning, with a near miss */
	snprintf(text, sizeof(text), "name: a\ncommand: [\"%s/pyhton3\"]\n", bin);
	assert_int_equal(check("absmiss", text, bin, &err), 0);
	assert_non_null(strstr(warned, "warning: "));
	assert_non_null(strstr(warned, "does not exist on this node (did you mean '"));
	assert_non_null(strstr(warned, "/bin/python3'?); the compute nodes may have it"));
	/* the spec's env sets PATH: searched instead; missing there, a warning */
	snprintf(text, sizeof(text), "name: e\ncommand: [mytool]\nenv: {PATH: \"%s\"}\n", other);
	assert_int_equal(check("envpath", text, bin, &err), 0);
	assert_string_equal(warned, "");
	snprintf(text, sizeof(text), "name: e\ncommand: [nodeonly]\nenv: {PATH: \"%s\"}\n", other);
	assert_int_equal(check("envpath2", text, bin, &err), 0);
	assert_non_null(strstr(warned, "is not on the PATH the spec's env sets on this node"));
	/* ... but a near miss there is still refused */
	snprintf(text, sizeof(text), "name: e\ncommand: [mytol]\nenv: {PATH: \"%s\"}\n", other);
	assert_int_equal(check("envpath3", text, bin, &err), -1);
	assert_non_null(strstr(err.msg, "(did you mean 'mytool'?)"));
	/* --export gives the jobs another environment: a warning */
	assert_int_equal(check("export", "name: x\ncommand: [nodeonly]\nslurm: {extra: [--export=NONE]}\n",
			       bin, &err), 0);
	assert_non_null(strstr(warned, "slurm.extra's --export gives the jobs another environment"));
	/* another version than the one here: no near miss, so refused as absent */
	assert_int_equal(check("version", "name: v\ncommand: [python3.12]\n", bin, &err), -1);
	assert_null(strstr(err.msg, "did you mean"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_code),
		cmocka_unit_test(test_which),
		cmocka_unit_test(test_near),
		cmocka_unit_test(test_check_refusals),
		cmocka_unit_test(test_check_allowed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
