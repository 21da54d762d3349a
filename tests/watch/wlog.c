/* Writes a signed agent log into a benchmark directory, for tests/watch:
 * a start record, then heartbeats, each carrying PAD bytes of padding (a
 * long log is quick to make), at events/<CHILD/1000>/<CHILD>.a0.j<JOB>.r0.log
 * with the identity of child CHILD (digest DIGEST) of the benchmark BENCH
 * (its digest), signed with DIR's key, as sbagent writes them.
 * usage: wlog DIR BENCH CHILD DIGEST JOB RECORDS PAD
 * Prints the log's path; exits 1 on an error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <msgpack.h>

#include "sbench/key.h"
#include "sbench/log.h"

static void str(msgpack_packer *pk, const char *s, size_t n)
{
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s, n);
}

int main(int argc, char **argv)
{
	struct sb_run_ident id = { .attempt = 0, .restart = -1, .host = "wlog" };
	char path[4096], *pad;
	struct sb_log_writer *w;
	struct sb_error err;
	struct sb_key key;
	msgpack_sbuffer pl;
	long long child, records, npad, i;

	if (argc != 8) {
		fputs("usage: wlog DIR BENCH CHILD DIGEST JOB RECORDS PAD\n", stderr);
		return 2;
	}
	child = atoll(argv[3]);
	records = atoll(argv[6]);
	npad = atoll(argv[7]);
	snprintf(path, sizeof(path), "%s/keys/hmac.key", argv[1]);
	if (sb_key_load(path, &key, &err) < 0) {
		fprintf(stderr, "wlog: %s\n", err.msg);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/events/%lld", argv[1], child / 1000);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "wlog: cannot create '%s': %s\n", path, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/events/%lld/%lld.a0.j%s.r0.log", argv[1], child / 1000,
		child, argv[5]);
	id.bench = argv[2];
	id.child = child;
	id.child_digest = argv[4];
	id.job_id = argv[5];
	id.pid = (int64_t)getpid();
	w = sb_log_writer_create(path, &key, &id, &err);
	pad = malloc((size_t)npad + 1);
	if (w == NULL || pad == NULL) {
		fprintf(stderr, "wlog: %s\n", w == NULL ? err.msg : "out of memory");
		return 1;
	}
	memset(pad, 'x', (size_t)npad);
	sb_log_writer_set_batch(w, true);
	msgpack_sbuffer_init(&pl);
	for (i = 0; i < records; i++) {
		msgpack_packer pk;

		msgpack_sbuffer_clear(&pl);
		msgpack_packer_init(&pk, &pl, msgpack_sbuffer_write);
		msgpack_pack_map(&pk, 2);
		str(&pk, "elapsed_s", 9);
		msgpack_pack_double(&pk, (double)i + 0.5);
		str(&pk, "pad", 3);
		str(&pk, pad, (size_t)npad);
		if (sb_log_writer_append(w, i == 0 ? "start" : "heartbeat", pl.data, pl.size, &err) < 0) {
			fprintf(stderr, "wlog: %s\n", err.msg);
			return 1;
		}
	}
	if (sb_log_writer_close(w, &err) < 0) {
		fprintf(stderr, "wlog: %s\n", err.msg);
		return 1;
	}
	msgpack_sbuffer_destroy(&pl);
	free(pad);
	printf("%s\n", path);
	return 0;
}
