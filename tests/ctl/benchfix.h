/* A benchmark directory made for a unit test (tests/ctl/benchfix.c): a
 * spec's text planned and created in a temporary root, with a chosen
 * MaxArraySize, and the root removed afterwards. */
#ifndef SB_TESTS_BENCHFIX_H
#define SB_TESTS_BENCHFIX_H

#include <stdint.h>

#include "sbench/error.h"

/* Plans spec_text (named spec_name) and creates its benchmark under root
 * (which must exist), MaxArraySize max_array_size, KillWait 30, created at
 * created_ns by user "tester" on "host".  *dir gets the directory (malloc'd;
 * the old value is freed), *existed whether it was there already.  The
 * digest goes to digest (65 bytes) when it is not NULL.  sb_bench_create's
 * return value. */
int sb_test_bench_create(const char *root, const char *spec_name, const char *spec_text,
			 int64_t max_array_size, int64_t created_ns, char **dir, int *existed,
			 char *digest, struct sb_error *err);

struct sb_bench;
struct sb_key;

/* Writes child's log of attempt 0 into b's events/ (the shard directory
 * made), as its agent would: run as job (its task id the child's index,
 * array job 1000, host node1, pid 4242), a start record and, when
 * exit_code >= 0 or signal > 0, a finish with them.  path (PATH_MAX bytes)
 * gets the file.  Fails the test on an error. */
void sb_test_write_log(const struct sb_bench *b, const struct sb_key *key, int64_t child,
		       const char *job, int exit_code, int signal, char *path);

/* Lays out attempt `attempt` of b (planned) with the n children, writes
 * its job files and records its chunk 0 submitted as array job job_id;
 * *key gets b's key.  Fails the test on an error. */
void sb_test_submit_attempt(struct sb_bench *b, int64_t attempt, const size_t *children, size_t n,
			    const char *job_id, struct sb_key *key);

/* sb_test_submit_attempt of attempt 0 as array job 1000. */
void sb_test_submit_attempt0(struct sb_bench *b, const size_t *children, size_t n,
			     struct sb_key *key);

/* Removes root and everything below it, whatever the modes. */
int sb_test_rmtree(const char *root);

#endif
