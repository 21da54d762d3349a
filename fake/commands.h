/* The commands of the multi-call binary, dispatched by main.c on argv[0]. */
#ifndef SB_FAKE_COMMANDS_H
#define SB_FAKE_COMMANDS_H

#include "fake/fake.h"

int fake_sbatch_main(int argc, char **argv);
int fake_squeue_main(int argc, char **argv);
int fake_sacct_main(int argc, char **argv);
int fake_scancel_main(int argc, char **argv);
int fake_scontrol_main(int argc, char **argv);
int fake_sbfake_main(int argc, char **argv);

/* scontrol requeue / sbfake requeue of one task; prints Slurm's error. */
int fake_requeue_request(struct fake_state *st, struct fake_task *t, const char *name);

#endif
