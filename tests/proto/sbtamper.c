/* sbtamper: crafts, truncates, flips and splices event-log records for the
 * shell tests (tests/proto/sbctl_*.sh) and the benchmark.  Not installed.
 *
 *   sbtamper write KEYFILE OUT N [CHILD [ATTEMPT [BENCH]]]
 *                                                    a log of N records
 *   sbtamper golden-key OUT                          the fixed test key, mode 0600
 *   sbtamper gendir DIR FILES RECORDS                a benchmark-like directory
 *                                                    (crafted in memory: no fsync)
 *   sbtamper frames FILE                             "INDEX OFFSET SIZE" lines
 *   sbtamper truncate FILE LEN OUT
 *   sbtamper flip FILE BIT OUT                       flip bit BIT (0 = lsb of byte 0)
 *   sbtamper zero FILE N OUT                         append N zero bytes
 *   sbtamper drop FILE I OUT | dup FILE I OUT | swap FILE I J OUT
 *   sbtamper splice A I B J OUT                      record I of A := record J of B
 *   sbtamper append A B J OUT                        A, then record J of B
 *   sbtamper recrc FILE I OUT                        change the time of record I by
 *                                                    1 ns, recompute its CRC (tag now wrong)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/crc32c.h"
#include "proto/record.h"
#include "tests/proto/testlog.h"

#define MAXREC 4096

struct log {
	uint8_t *buf;
	size_t len, n, off[MAXREC + 1];
};

static void die(const char *msg)
{
	fprintf(stderr, "sbtamper: %s\n", msg);
	exit(2);
}

static void load(struct log *l, const char *path)
{
	l->buf = sbt_read(path, &l->len);
	if (l->buf == NULL)
		die("cannot read input");
	l->n = sbt_frames(l->buf, l->len, l->off, MAXREC);
}

static size_t idx(const struct log *l, const char *s)
{
	size_t i = strtoul(s, NULL, 10);

	if (i >= l->n)
		die("record index out of range");
	return i;
}

/* out := concatenation of pieces */
struct piece {
	const uint8_t *p;
	size_t n;
};

static int emit(const char *out, const struct piece *ps, int count)
{
	size_t total = 0, at = 0;
	uint8_t *buf;
	int i, rc;

	for (i = 0; i < count; i++)
		total += ps[i].n;
	buf = malloc(total ? total : 1);
	if (buf == NULL)
		die("out of memory");
	for (i = 0; i < count; i++) {
		memcpy(buf + at, ps[i].p, ps[i].n);
		at += ps[i].n;
	}
	rc = sbt_write(out, buf, total);
	free(buf);
	if (rc < 0)
		die("cannot write output");
	return 0;
}

static struct piece rec(const struct log *l, size_t i)
{
	return (struct piece){ l->buf + l->off[i], l->off[i + 1] - l->off[i] };
}

static struct piece span(const struct log *l, size_t from, size_t to)
{
	return (struct piece){ l->buf + from, to - from };
}

static int gendir(const char *dir, long files, int records)
{
	struct sb_error err;
	struct sb_key key;
	char path[4096];
	long i;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		die("cannot create directory");
	snprintf(path, sizeof(path), "%s/keys", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/keys/hmac.key", dir);
	if (sb_key_generate_file(path, &err) < 0 || sb_key_load(path, &key, &err) < 0)
		die(err.msg);
	/* no benchmark.msgpack: keys/ alone marks a benchmark directory */
	snprintf(path, sizeof(path), "%s/events", dir);
	mkdir(path, 0700);
	for (i = 0; i < files; i++) {
		struct sb_run_ident id = sbt_ident(i, 0);
		if (i % 1000 == 0) {
			snprintf(path, sizeof(path), "%s/events/%03ld", dir, i / 1000);
			mkdir(path, 0700);
		}
		size_t len;
		uint8_t *buf = sbt_craft_log(&key, &id, records, 1700000000000000000 + i, &len);
		snprintf(path, sizeof(path), "%s/events/%03ld/c%ld-a0-r0.log", dir, i / 1000, i);
		if (buf == NULL || sbt_write(path, buf, len) < 0)
			die("cannot write a log");
		free(buf);
	}
	sb_key_cleanse(&key);
	return 0;
}

static struct log a, b;

static int tamper(int argc, char **argv)
{
	struct sb_error err;
	struct sb_key key;
	const char *cmd = argc > 1 ? argv[1] : "";
	size_t i, j;

	if (!strcmp(cmd, "write") && argc >= 5) {
		struct sb_run_ident id = sbt_ident(argc > 5 ? atol(argv[5]) : 4,
			argc > 6 ? atol(argv[6]) : 0);
		if (argc > 7)
			id.bench = argv[7];
		if (sb_key_load(argv[2], &key, &err) < 0 ||
		    sbt_write_log(argv[3], &key, &id, atoi(argv[4]), 1700000000000000000, &err) < 0)
			die(err.msg);
		return 0;
	}
	if (!strcmp(cmd, "golden-key") && argc == 3) {
		sbt_golden_key(&key);
		unlink(argv[2]);
		if (sbt_write(argv[2], key.bytes, SB_KEY_LEN) < 0 || chmod(argv[2], 0600) < 0)
			die("cannot write key");
		return 0;
	}
	if (!strcmp(cmd, "gendir") && argc == 5)
		return gendir(argv[2], atol(argv[3]), atoi(argv[4]));
	if (argc < 3)
		die("usage: see the comment at the top of tests/proto/sbtamper.c");
	load(&a, argv[2]);
	if (!strcmp(cmd, "frames")) {
		for (i = 0; i < a.n; i++)
			printf("%zu %zu %zu\n", i, a.off[i], a.off[i + 1] - a.off[i]);
		return 0;
	}
	if (!strcmp(cmd, "truncate") && argc == 5) {
		size_t n = strtoul(argv[3], NULL, 10);
		struct piece p = { a.buf, n < a.len ? n : a.len };
		return emit(argv[4], &p, 1);
	}
	if (!strcmp(cmd, "flip") && argc == 5) {
		size_t bit = strtoul(argv[3], NULL, 10);
		struct piece p = { a.buf, a.len };
		if (bit / 8 >= a.len)
			die("bit out of range");
		a.buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		return emit(argv[4], &p, 1);
	}
	if (!strcmp(cmd, "zero") && argc == 5) {
		size_t n = strtoul(argv[3], NULL, 10);
		uint8_t *z = calloc(1, n + 1);
		struct piece p[2] = { { a.buf, a.len }, { z, n } };
		emit(argv[4], p, 2);
		free(z);
		return 0;
	}
	if (!strcmp(cmd, "drop") && argc == 5) {
		i = idx(&a, argv[3]);
		struct piece p[2] = { span(&a, 0, a.off[i]), span(&a, a.off[i + 1], a.len) };
		return emit(argv[4], p, 2);
	}
	if (!strcmp(cmd, "dup") && argc == 5) {
		i = idx(&a, argv[3]);
		struct piece p[3] = { span(&a, 0, a.off[i + 1]), rec(&a, i),
			span(&a, a.off[i + 1], a.len) };
		return emit(argv[4], p, 3);
	}
	if (!strcmp(cmd, "swap") && argc == 6) {
		i = idx(&a, argv[3]);
		j = idx(&a, argv[4]);
		if (i + 1 != j)
			die("swap needs adjacent records I and I+1");
		struct piece p[4] = { span(&a, 0, a.off[i]), rec(&a, j), rec(&a, i),
			span(&a, a.off[j + 1], a.len) };
		return emit(argv[5], p, 4);
	}
	if (!strcmp(cmd, "splice") && argc == 7) {
		i = idx(&a, argv[3]);
		load(&b, argv[4]);
		j = idx(&b, argv[5]);
		struct piece p[3] = { span(&a, 0, a.off[i]), rec(&b, j),
			span(&a, a.off[i + 1], a.len) };
		return emit(argv[6], p, 3);
	}
	if (!strcmp(cmd, "append") && argc == 6) {
		load(&b, argv[3]);
		j = idx(&b, argv[4]);
		struct piece p[2] = { { a.buf, a.len }, rec(&b, j) };
		return emit(argv[5], p, 2);
	}
	if (!strcmp(cmd, "recrc") && argc == 5) {
		struct sb_frame f;
		struct piece p = { a.buf, a.len };
		i = idx(&a, argv[3]);
		uint8_t *fr = a.buf + a.off[i];
		if (sb_frame_parse(fr, a.len - a.off[i], &f) != SB_FRAME_OK)
			die("bad frame");
		/* one nanosecond more in the "time" value (key a4 "time", then
		 * cf and 8 bytes): the body still decodes, only the tag is wrong */
		uint8_t *t = memmem(fr + SB_LOG_HEADER_LEN, f.body_len, "\xa4time\xcf", 6);
		if (t == NULL)
			die("no time field");
		t[13] ^= 1;
		sb_store_be32(fr + 8, sb_crc32c(0, fr + SB_LOG_HEADER_LEN, f.body_len));
		return emit(argv[4], &p, 1);
	}
	die("unknown command or wrong arguments (see tests/proto/sbtamper.c)");
	return 2;
}

int main(int argc, char **argv)
{
	int rc = tamper(argc, argv);

	free(a.buf);
	free(b.buf);
	return rc;
}
