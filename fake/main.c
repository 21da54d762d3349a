/* The fake Slurm's multi-call binary: the command is argv[0]'s base name. */
#include <stdio.h>
#include <string.h>

#include "fake/commands.h"
#include "fake/sched.h"
#include "fake/util.h"

static const struct {
	const char *name;
	int (*main)(int, char **);
} commands[] = {
	{"sbatch", fake_sbatch_main},
	{"squeue", fake_squeue_main},
	{"sacct", fake_sacct_main},
	{"scancel", fake_scancel_main},
	{"scontrol", fake_scontrol_main},
	{"sbfake", fake_sbfake_main},
	{"sbfake-supervise", fake_supervise_main},
	{"sbfake-tick", fake_tick_main},
	{NULL, NULL},
};

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	int i;

	base = base ? base + 1 : argv[0];
	for (i = 0; commands[i].name; i++) {
		if (!strcmp(base, commands[i].name)) {
			fake_set_prog(commands[i].name);
			return commands[i].main(argc, argv);
		}
	}
	/* `sbfake sbatch ...` works too */
	if (argc > 1) {
		for (i = 0; commands[i].name; i++) {
			if (!strcmp(argv[1], commands[i].name) && strcmp(argv[1], "sbfake") != 0) {
				fake_set_prog(commands[i].name);
				return commands[i].main(argc - 1, argv + 1);
			}
		}
	}
	fake_set_prog("sbfake");
	return fake_sbfake_main(argc, argv);
}
