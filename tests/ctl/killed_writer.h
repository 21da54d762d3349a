/* A writer of the local index killed with SIGKILL inside a transaction
 * (tests/ctl/test_index.c and tests/ctl/index_killed_writer.c). */
#ifndef SB_TEST_KILLED_WRITER_H
#define SB_TEST_KILLED_WRITER_H

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/index_private.h"

/* Forks a child that opens the index at path, begins a transaction, writes
 * benchmarks "lost-N" with long directory names (several MB: more than
 * SQLite's page cache, so pages reach the database file and the journal is
 * hot), says so through a pipe and sleeps; the parent then kills it with
 * SIGKILL.  Returns 0 when the child died of SIGKILL inside the transaction. */
static int kill_writer_inside_tx(const char *path)
{
	int pfd[2], status;
	char c = 0;
	pid_t pid;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct sb_index *idx;
		char name[32], digest[32], dir[2048];
		int i;

		close(pfd[0]);
		idx = sb_index_open(path, NULL, NULL);
		if (idx == NULL || sb_index_begin(idx, NULL) < 0)
			_exit(1);
		memset(dir, 'd', sizeof(dir) - 1);
		dir[0] = '/';
		dir[sizeof(dir) - 1] = '\0';
		for (i = 0; i < 4000; i++) {
			struct sb_index_bench b = { .name = name, .digest = digest, .dir = dir, .created_ns = i };
			snprintf(name, sizeof(name), "lost-%d", i);
			snprintf(digest, sizeof(digest), "ffff%08d", i);
			snprintf(dir + 1, 9, "%08d", i); /* a row per directory */
			dir[9] = 'd';
			if (sb_index_put_bench(idx, &b, NULL) < 0)
				_exit(1);
		}
		if (write(pfd[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1)
		c = 0;
	close(pfd[0]);
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0)
		;
	return c == 'x' && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : -1;
}

#endif
