/* sbagent in benchmark mode (docs/benchmark-dir.md, docs/sbagent.md): the
 * batch script sets SB_BENCH_DIR, SB_ATTEMPT and SB_CHUNK; the chunk's task
 * map names the child of $SLURM_ARRAY_TASK_ID and everything it runs. */
#ifndef SB_AGENT_BENCHMODE_H
#define SB_AGENT_BENCHMODE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "agent/earlystop.h"
#include "proto/checkpoint.h"
#include "sbench/error.h"

struct sb_agent_bench {
	char dir[PATH_MAX];          /* the benchmark directory */
	char digest[65];             /* the benchmark digest */
	int64_t attempt, chunk, task, child;
	char child_digest[65];
	char run_dir[PATH_MAX];      /* dir/runs/<child> */
	char key_path[PATH_MAX];     /* dir/keys/hmac.key */
	char log_path[PATH_MAX];     /* dir/events/<child/1000>/<child>.a<attempt>.j<job>.r<restart>.log */
	char **argv;                 /* the resolved command (NULL-terminated) */
	size_t argc;
	char **results;              /* declared result paths */
	size_t nresults;
	char *metrics;               /* or NULL */
	double heartbeat_s;
	double kill_wait_s;
	char **env;                  /* "NAME=VALUE" to set for the command, NULL-terminated */
	size_t nenv;
	struct sb_early_stop_rules early_stop; /* the task map's early_stop */
	struct sb_checkpoint_cfg checkpoint;   /* the task map's checkpoint */
	char *spec_dir;              /* the task map's spec_dir, or NULL */
	char **inputs;               /* the task's input files (relative to spec_dir) */
	size_t ninputs;
};

/* 1 when the environment asks for benchmark mode (SB_BENCH_DIR is set). */
int sb_agent_bench_mode(void);

/* Reads the task map and fills b.  cmd/ncmd: the argv after "--", which
 * must be empty or identical to the planned command.  -1 with a message
 * naming the file and the problem. */
int sb_agent_bench_load(struct sb_agent_bench *b, char *const *cmd, size_t ncmd,
			struct sb_error *err);

/* Makes b->run_dir, runs/<child>, where the command runs (mkdir -p, 0755;
 * sbctl submit leaves it to the job): an existing directory is used as it
 * is (a requeued or rerun child finds its own), a symbolic link or a
 * non-directory in its place is refused.  -1 with a message naming it. */
int sb_agent_bench_make_run_dir(const struct sb_agent_bench *b, struct sb_error *err);

/* Creates the shard directory of b->log_path (the log itself is created by
 * the log writer). */
int sb_agent_bench_prepare_log(const struct sb_agent_bench *b, struct sb_error *err);

void sb_agent_bench_release(struct sb_agent_bench *b);

#endif
