/* sb_submit with err == NULL (documented optional): a failing sbatch and a
 * bad spec return -1 without touching err. */
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

#include "sbench/context.h"
#include "sbench/submit.h"

static char tmp[] = "/tmp/sb-test-submit-XXXXXX";
static struct sb_ctx *ctx;

static void write_file(const char *name, const char *text, mode_t mode)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static int setup(void **state)
{
	char buf[512];

	(void)state;
	if (mkdtemp(tmp) == NULL)
		return -1;
	snprintf(buf, sizeof(buf), "%s/bin", tmp);
	mkdir(buf, 0755);
	/* a scheduler that refuses every job and knows none */
	write_file("bin/sbatch", "#!/bin/sh\ntouch \"$(dirname \"$0\")/sbatch-ran\"\n"
		   "echo 'sbatch: error: refused' >&2\nexit 1\n", 0755);
	write_file("bin/squeue", "#!/bin/sh\nexit 0\n", 0755);
	write_file("bin/sacct", "#!/bin/sh\nexit 0\n", 0755);
	write_file("bin/scontrol", "#!/bin/sh\nexit 1\n", 0755);
	write_file("spec.yaml", "name: t\ncommand: [true]\nparameters:\n  x: [1, 2]\n", 0644);
	write_file("bad.yaml", "name: t\ncommand: [true]\nparamters: {x: [1]}\n", 0644);
	setenv("PATH", strcat(buf, ":/usr/bin:/bin"), 1);
	if ((ctx = sb_ctx_create(NULL)) == NULL)
		return -1;
	snprintf(buf, sizeof(buf), "%s/runs", tmp);
	if (sb_ctx_set_root(ctx, buf, NULL) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%s/index.sqlite", tmp);
	if (sb_ctx_set_index(ctx, buf, NULL) < 0 || sb_ctx_set_agent(ctx, "/bin/true", NULL) < 0 ||
	    sb_ctx_set_lookup_window(ctx, 0, NULL) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	sb_ctx_destroy(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static int submit(const char *spec)
{
	char path[256];
	struct sb_submit_result *res;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", tmp, spec);
	rc = sb_submit(ctx, path, NULL, &res, NULL);
	sb_submit_result_destroy(res);
	return rc;
}

static void test_refused_sbatch_without_err(void **state)
{
	char ran[256];

	(void)state;
	assert_int_equal(submit("spec.yaml"), -1); /* crashed before: *err read */
	snprintf(ran, sizeof(ran), "%s/bin/sbatch-ran", tmp);
	assert_int_equal(access(ran, F_OK), 0); /* the path was taken */
}

static void test_bad_spec_without_err(void **state)
{
	(void)state;
	assert_int_equal(submit("bad.yaml"), -1);
	assert_int_equal(submit("missing.yaml"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_sbatch_without_err),
		cmocka_unit_test(test_bad_spec_without_err),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
