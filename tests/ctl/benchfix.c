#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "ctl/bench.h"
#include "sbench/plan.h"
#include "sbench/spec.h"
#include "tests/ctl/benchfix.h"

int sb_test_bench_create(const char *root, const char *spec_name, const char *spec_text,
			 int64_t max_array_size, int64_t created_ns, char **dir, int *existed,
			 char *digest, struct sb_error *err)
{
	struct sb_slurm_config cfg = { .max_array_size = max_array_size, .kill_wait = 30 };
	struct sb_provenance prov = { .uid = 1000, .time_ns = created_ns };
	struct sb_spec *spec = sb_spec_load_buffer(spec_text, strlen(spec_text), spec_name, err);
	struct sb_plan *plan;
	int rc;

	assert_non_null(spec);
	plan = sb_plan_create(spec, err);
	assert_non_null(plan);
	snprintf(prov.user, sizeof(prov.user), "tester");
	snprintf(prov.host, sizeof(prov.host), "host");
	{
		struct sb_bench_new bn = { spec_name, spec_text, strlen(spec_text), plan, root,
					   &cfg, &prov };
		free(*dir);
		*dir = NULL;
		rc = sb_bench_create(&bn, dir, existed, err);
	}
	if (digest)
		snprintf(digest, 65, "%s", sb_plan_benchmark_digest_hex(plan));
	sb_plan_destroy(plan);
	sb_spec_destroy(spec);
	return rc;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	chmod(path, 0700);
	return remove(path);
}

int sb_test_rmtree(const char *root)
{
	return nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
