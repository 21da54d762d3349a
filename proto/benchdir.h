/* The paths inside a benchmark directory (docs/benchmark-dir.md), formatted
 * in one place for sbctl and sbagent, and the agents' log file names parsed
 * in one place (sb_log_name_parse and sb_log_name_cmp, public in
 * include/sbench/log.h, live in proto/benchdir.c).
 *
 * Each sb_bdir_* function writes "<dir>/<path>" into buf of size bytes, or
 * just "<path>" when dir is NULL, and returns its length; -1 when it does
 * not fit (never cut short: buf then holds a NUL-terminated prefix). */
#ifndef SB_PROTO_BENCHDIR_H
#define SB_PROTO_BENCHDIR_H

#include <stddef.h>
#include <stdint.h>

/* The benchmark's HMAC key, relative to its directory. */
#define SB_BENCH_KEY "keys/hmac.key"

/* keys/hmac.key: the benchmark's HMAC key. */
int sb_bdir_key(char *buf, size_t size, const char *dir);

/* runs/<child>: a child's run directory. */
int sb_bdir_run(char *buf, size_t size, const char *dir, int64_t child);

/* jobs/a<attempt>: the job files of an attempt. */
int sb_bdir_attempt(char *buf, size_t size, const char *dir, int64_t attempt);

/* jobs/a<attempt>/chunk-<chunk>.map: the task map of a chunk (ext "map"),
 * or its batch script (ext "sh"). */
int sb_bdir_chunk(char *buf, size_t size, const char *dir, int64_t attempt, int64_t chunk,
		  const char *ext);

/* jobs/.a<attempt>.tmp: where an attempt's job files are prepared before
 * they are renamed into jobs/a<attempt> whole. */
int sb_bdir_attempt_tmp(char *buf, size_t size, const char *dir, int64_t attempt);

/* Inside an attempt's directory adir (jobs/a<attempt>, or the one it is
 * prepared in): chunk-<chunk>.<ext>, the task map ("map") or batch script
 * ("sh") of a chunk; c<chunk>, the directory Slurm writes the chunk's
 * stdout and stderr into (sb_bdir_slurm_output).  In a benchmark directory
 * an earlier sbctl wrote, c<chunk> holds a symlink per task id to the
 * task's child's run directory instead (../../../runs/<child>), and the
 * output is in there. */
int sb_bdir_chunk_file(char *buf, size_t size, const char *adir, int64_t chunk, const char *ext);
int sb_bdir_chunk_output(char *buf, size_t size, const char *adir, int64_t chunk);

/* jobs/a<attempt>/c<chunk>/slurm-%A_%a: the sbatch --output/--error
 * pattern of a chunk (".out"/".err" appended), which Slurm expands to
 * jobs/a<attempt>/c<chunk>/slurm-<array job id>_<task id>.out: one
 * directory per chunk, made by sbctl submit, nothing per child. */
int sb_bdir_slurm_output(char *buf, size_t size, const char *dir, int64_t attempt, int64_t chunk);

/* events/<child/1000>/<child>.a<attempt>.j<job>.r<restart>.log: the log an
 * agent writes for one run of a child (job "none" outside Slurm). */
int sb_bdir_log(char *buf, size_t size, const char *dir, int64_t child, int64_t attempt,
		const char *job, int64_t restart);

#endif
