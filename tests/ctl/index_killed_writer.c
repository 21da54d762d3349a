/* index_killed_writer PATH: leaves the local index at PATH as a writer
 * killed with SIGKILL inside a transaction leaves it (a hot journal, and
 * whatever locks its VFS leaves), for tests/e2e/test_index_kill.sh.  Prints
 * the size of the journal left behind. */
#include <stdio.h>
#include <sys/stat.h>

#include "killed_writer.h"

int main(int argc, char **argv)
{
	char journal[4200];
	struct stat st;

	if (argc != 2) {
		fputs("usage: index_killed_writer PATH\n", stderr);
		return 2;
	}
	if (kill_writer_inside_tx(argv[1]) < 0) {
		fputs("index_killed_writer: the writer did not die inside its transaction\n", stderr);
		return 1;
	}
	snprintf(journal, sizeof(journal), "%s-journal", argv[1]);
	printf("%lld\n", stat(journal, &st) == 0 ? (long long)st.st_size : -1LL);
	return 0;
}
