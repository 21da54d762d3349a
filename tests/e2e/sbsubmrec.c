/* sbsubmrec: writes a signed submissions log holding one `submitted` record,
 * as `sbctl submit` would, at a chosen time: for the tests of a chunk
 * submitted twice (tests/e2e/test_status_races.sh).  Not installed.
 *
 *   sbsubmrec KEYFILE OUT BENCH_DIGEST ATTEMPT CHUNK JOB_ID TIME_NS
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/canon.h"
#include "sbench/key.h"
#include "sbench/log.h"

static int64_t fixed_now(void *arg)
{
	return *(const int64_t *)arg;
}

int main(int argc, char **argv)
{
	struct sb_run_ident id = { .child = -1, .attempt = -1, .restart = -1, .host = "crafted" };
	struct sb_log_writer *w;
	struct sb_error err;
	struct sb_canon c;
	struct sb_key key;
	int64_t t;
	int rc;

	if (argc != 8) {
		fputs("usage: sbsubmrec KEYFILE OUT BENCH_DIGEST ATTEMPT CHUNK JOB_ID TIME_NS\n", stderr);
		return 2;
	}
	if (sb_key_load(argv[1], &key, &err) < 0) {
		fprintf(stderr, "sbsubmrec: %s\n", err.msg);
		return 1;
	}
	id.bench = argv[3];
	id.pid = (int64_t)getpid();
	t = strtoll(argv[7], NULL, 10);
	w = sb_log_writer_create(argv[2], &key, &id, &err);
	if (w == NULL) {
		fprintf(stderr, "sbsubmrec: %s\n", err.msg);
		return 1;
	}
	sb_log_writer_set_clock(w, fixed_now, &t);
	/* the payload of sbctl's own submitted records, keys in byte order */
	sb_canon_init(&c, 1 << 12);
	sb_canon_map(&c, 4);
	sb_canon_cstr(&c, "attempt_index");
	sb_canon_int(&c, strtoll(argv[4], NULL, 10));
	sb_canon_cstr(&c, "chunk");
	sb_canon_int(&c, strtoll(argv[5], NULL, 10));
	sb_canon_cstr(&c, "job");
	sb_canon_cstr(&c, argv[6]);
	sb_canon_cstr(&c, "recovered");
	sb_canon_bool(&c, false);
	rc = c.failed ? -1 : sb_log_writer_append(w, "submitted", c.buf, c.len, &err);
	sb_canon_release(&c);
	if (sb_log_writer_close(w, rc == 0 ? &err : NULL) < 0)
		rc = -1;
	sb_key_cleanse(&key);
	if (rc < 0) {
		fprintf(stderr, "sbsubmrec: %s\n", err.msg);
		return 1;
	}
	return 0;
}
