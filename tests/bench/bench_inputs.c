/* What hashing a child's input files costs sbagent at every job start
 * (docs/performance.md, "What input files cost"): sb_inputs_hash, the
 * agent's own call, on a script-sized file and on a file at the bound of
 * 64 MiB, beside the floor of reading the same bytes without hashing.
 * Both files are in the page cache (a warm-up read first): this is the
 * agent's CPU, not the storage's.
 * usage: build/tests/bench_inputs [DIR]  (DIR: where the files go, /tmp) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/inputs.h"
#include "tests/bench/bench_clock.h"

static int make(const char *path, size_t size)
{
	char buf[65536];
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 131 + 7);
	while (size > 0) {
		size_t n = size < sizeof(buf) ? size : sizeof(buf);
		if (fwrite(buf, 1, n, f) != n)
			break;
		size -= n;
	}
	return fclose(f) == 0 && size == 0 ? 0 : -1;
}

/* The floor: open, read every byte, close. */
static int read_all(const char *path)
{
	static char buf[1 << 20];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n < 0 ? -1 : 0;
}

/* Median seconds per call of hashing (1) or reading (0) dir/name, runs times. */
static double median(const char *dir, const char *name, int hash, int runs)
{
	double *t = malloc((size_t)runs * sizeof(*t)), m;
	char path[4200];
	uint8_t sha[32];
	uint64_t size;
	struct sb_error err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (int i = 0; i < runs; i++) {
		double t0 = now();
		int rc = hash ? sb_inputs_hash(dir, name, SB_INPUTS_MAX_BYTES, sha, &size, &err)
			      : read_all(path);
		t[i] = now() - t0;
		if (rc != 0) {
			fprintf(stderr, "bench_inputs: %s failed\n", path);
			exit(1);
		}
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp_double);
	m = t[runs / 2];
	free(t);
	return m;
}

int main(int argc, char **argv)
{
	char dir[4096];
	char small[4200], big[4200];
	double hs, rs, hb, rb;

	snprintf(dir, sizeof(dir), "%s/bench_inputs.XXXXXX", argc > 1 ? argv[1] : "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror("bench_inputs: mkdtemp");
		return 1;
	}
	snprintf(small, sizeof(small), "%s/train.py", dir);
	snprintf(big, sizeof(big), "%s/big.bin", dir);
	if (make(small, 10 * 1024) < 0 || make(big, (size_t)SB_INPUTS_MAX_BYTES) < 0) {
		fprintf(stderr, "bench_inputs: cannot write the files in %s\n", dir);
		return 1;
	}
	read_all(small);
	read_all(big);
	hs = median(dir, "train.py", 1, 2001);
	rs = median(dir, "train.py", 0, 2001);
	hb = median(dir, "big.bin", 1, 9);
	rb = median(dir, "big.bin", 0, 9);
	printf("a 10 KiB script:  %8.1f us per job start (floor: reading it, %.1f us); budget 1000 us\n",
	       hs * 1e6, rs * 1e6);
	printf("64 MiB, the bound: %7.1f ms per job start (floor: reading it, %.1f ms); budget 200 ms\n",
	       hb * 1e3, rb * 1e3);
	unlink(small);
	unlink(big);
	rmdir(dir);
	return hs < 1e-3 && hb < 0.2 ? 0 : 1;
}
