/* Recording and replay: see docs/fake-slurm.md. */
#include <stdio.h>

#include "fake/fake.h"

int fake_record_main(int argc, char **argv);
int fake_replay_main(int argc, char **argv);

int fake_record_main(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "sbfake: error: record is not implemented yet\n");
	return 1;
}

int fake_replay_main(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "sbfake: error: replay is not implemented yet\n");
	return 1;
}
