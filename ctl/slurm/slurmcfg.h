/* What sbctl needs from `scontrol show config` (run exactly so, once). */
#ifndef SB_CTL_SLURMCFG_H
#define SB_CTL_SLURMCFG_H

#include <stdint.h>

#include "sbench/error.h"

#define SB_DEFAULT_MAX_ARRAY_SIZE 1001
#define SB_DEFAULT_KILL_WAIT 30

struct sb_slurm_config {
	int64_t max_array_size; /* MaxArraySize, or SB_DEFAULT_MAX_ARRAY_SIZE */
	int64_t kill_wait;      /* KillWait seconds, or SB_DEFAULT_KILL_WAIT */
	char cluster[128];      /* ClusterName, "" when unknown */
	char version[64];       /* SLURM_VERSION, "" when unknown */
	int from_scontrol;      /* 1 when scontrol answered */
};

/* Parses the text of `scontrol show config` ("Key = Value" lines); keys not
 * found keep their defaults. */
void sb_slurm_config_parse(const char *text, struct sb_slurm_config *cfg);

/* Runs `scontrol show config` and parses it; when scontrol is missing or
 * fails, cfg holds the defaults (from_scontrol 0) and, when warn is not
 * NULL, it receives a one-line explanation. */
void sb_slurm_config_read(struct sb_slurm_config *cfg, struct sb_error *warn);

#endif
