#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench/bench_private.h"
#include "base/canon.h"
#include "bench/jobs.h"
#include "bench/subm.h"
#include "proto/benchdir.h"
#include "proto/util.h"
#include "sbench/key.h"
#include "sbench/log.h"
#include "sbench/plan.h"
#include "sbench/spec.h"
#include "tests/ctl/benchfix.h"

void sb_test_write_log(const struct sb_bench *b, const struct sb_key *key, int64_t child,
		       const char *job, int exit_code, int signal, char *path)
{
	char digest[65], task[24];
	struct sb_run_ident id = { .bench = b->digest, .child = child, .attempt = 0, .job_id = job,
				   .array_job_id = "1000", .restart = -1, .host = "node1",
				   .pid = 4242 };
	struct sb_log_writer *w;
	struct sb_error err = { 0 };
	struct sb_canon p;

	snprintf(task, sizeof(task), "%lld", (long long)child);
	id.array_task_id = task;
	sb_hex_encode(sb_plan_child_digest(b->plan, (size_t)child), 32, digest);
	id.child_digest = digest;
	assert_true(sb_bdir_log(path, PATH_MAX, b->dir, child, 0, job, 0) > 0);
	*strrchr(path, '/') = '\0';
	assert_true(mkdir(path, 0755) == 0 || access(path, F_OK) == 0);
	assert_true(sb_bdir_log(path, PATH_MAX, b->dir, child, 0, job, 0) > 0);
	w = sb_log_writer_create(path, key, &id, &err);
	assert_non_null(w);
	sb_canon_init(&p, 1 << 12);
	sb_canon_map(&p, 0);
	assert_int_equal(sb_log_writer_append(w, "start", p.buf, p.len, &err), 0);
	sb_canon_release(&p);
	if (exit_code >= 0 || signal > 0) {
		sb_canon_init(&p, 1 << 12);
		sb_canon_map(&p, 2);
		sb_canon_cstr(&p, "exit_code");
		sb_canon_int(&p, exit_code);
		sb_canon_cstr(&p, "signal");
		sb_canon_int(&p, signal);
		assert_false(p.failed);
		assert_int_equal(sb_log_writer_append(w, "finish", p.buf, p.len, &err), 0);
		sb_canon_release(&p);
	}
	assert_int_equal(sb_log_writer_close(w, &err), 0);
}

void sb_test_submit_attempt0(struct sb_bench *b, const size_t *children, size_t n,
			     struct sb_key *key)
{
	sb_test_submit_attempt(b, 0, children, n, "1000", key);
}

void sb_test_submit_attempt(struct sb_bench *b, int64_t attempt, const size_t *children, size_t n,
			    const char *job_id, struct sb_key *key)
{
	struct sb_chunks chunks = { 0 };
	struct sb_subm_writer *w;
	struct sb_subm_entry e;
	struct sb_error err = { 0 };

	assert_int_equal(sb_jobs_layout(b, attempt, children, n, 0, &chunks, &err), 0);
	assert_int_equal(sb_jobs_write(b, &chunks, "/usr/bin/sbagent", &err), 0);
	sb_chunks_release(&chunks);
	assert_int_equal(sb_bench_load_key(b, key, &err), 0);
	w = sb_subm_writer_create(b, key, &err);
	assert_non_null(w);
	memset(&e, 0, sizeof(e));
	e.type = SB_SUBM_SUBMITTED;
	e.child = e.end = -1;
	e.exit_code = e.signal = -1;
	e.attempt = attempt;
	e.job_id = job_id;
	assert_int_equal(sb_subm_append(w, &e, NULL, &err), 0);
	assert_int_equal(sb_subm_writer_close(w, &err), 0);
}

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
					   &cfg, &prov, NULL, NULL };
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
