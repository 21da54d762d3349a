/* sbholdlock: takes the fcntl lock of a benchmark directory (its `lock`
 * file, as sbctl submit does) and holds it until its standard input closes:
 * for the test of a wait started while a submit is creating the benchmark
 * (tests/e2e/test_status_races.sh).  Not installed.
 *
 *   sbholdlock LOCKFILE     prints "locked" once it holds the lock
 */
#include <stdio.h>
#include <unistd.h>

#include "base/fsutil.h"

int main(int argc, char **argv)
{
	struct sb_error err;
	char c;
	int fd;

	if (argc != 2) {
		fputs("usage: sbholdlock LOCKFILE\n", stderr);
		return 2;
	}
	fd = sb_fs_lock(argv[1], &err);
	if (fd < 0) {
		fprintf(stderr, "sbholdlock: %s\n", err.msg);
		return 1;
	}
	puts("locked");
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) > 0)
		;
	close(fd);
	return 0;
}
