/* sbholdlock: takes the lock of a benchmark directory (its `lock` file and
 * owner file, as sbctl submit does: base/lock.h) and holds it until its standard input closes:
 * for the test of a wait started while a submit is creating the benchmark
 * (tests/e2e/test_status_races.sh).  Not installed.
 *
 *   sbholdlock LOCKFILE     prints "locked" once it holds the lock
 */
#include <stdio.h>
#include <unistd.h>

#include "base/lock.h"

int main(int argc, char **argv)
{
	struct sb_error err;
	struct sb_lock lk;
	char c;

	if (argc != 2) {
		fputs("usage: sbholdlock LOCKFILE\n", stderr);
		return 2;
	}
	if (sb_lock_take(argv[1], NULL, NULL, &lk, &err) < 0) {
		fprintf(stderr, "sbholdlock: %s\n", err.msg);
		return 1;
	}
	puts("locked");
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) > 0)
		;
	sb_lock_release(&lk);
	return 0;
}
