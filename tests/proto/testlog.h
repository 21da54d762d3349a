/* Test helpers: write realistic event logs (start, heartbeats, finish) with
 * a fixed clock, and find the frames of a log. */
#ifndef SB_TESTS_TESTLOG_H
#define SB_TESTS_TESTLOG_H

#include <stddef.h>
#include <stdint.h>

#include "sbench/key.h"
#include "sbench/log.h"

/* The fixed key of the golden files: bytes 0x00, 0x01, ..., 0x1f. */
void sbt_golden_key(struct sb_key *key);

/* The fixed identity of the golden files (child and attempt given). */
struct sb_run_ident sbt_ident(int64_t child, int64_t attempt);

/* Writes n records (n >= 1): start, n-2 heartbeats, finish (n == 1: start
 * only), times t0_ns + i seconds.  Returns 0 or -1 with err. */
int sbt_write_log(const char *path, const struct sb_key *key,
	const struct sb_run_ident *id, int n, int64_t t0_ns, struct sb_error *err);

/* The same bytes as sbt_write_log writes, built in memory without the
 * writer (an independent check of it, and fast: no fsync).  malloc'd. */
uint8_t *sbt_craft_log(const struct sb_key *key, const struct sb_run_ident *id,
	int n, int64_t t0_ns, size_t *len);

/* Offsets of the frames of a well-formed log in buf: fills off[0..max) and
 * returns the count (the end offset is off[count] when count < max). */
size_t sbt_frames(const uint8_t *buf, size_t len, size_t *off, size_t max);

/* Reads a whole file (malloc'd); NULL on error. */
uint8_t *sbt_read(const char *path, size_t *len);

/* Writes a whole file (mode 0644, replacing it); 0 or -1. */
int sbt_write(const char *path, const uint8_t *buf, size_t len);

#endif
