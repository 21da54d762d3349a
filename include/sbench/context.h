/* sbench — the context: the defaults every operation of libsbench uses.
 *
 * The library reads no environment variable and no global state behind the
 * caller's back.  Whatever a front end would take from the environment
 * (where benchmarks are created, which sbagent the batch scripts run, where
 * the local index lives, how long a verdict settles) is set on a context,
 * either one by one or all at once from an environment the caller hands in
 * (sb_ctx_load_env, which sbctl calls with its own environment, and the
 * Python package with os.environ).  Warnings and progress go to callbacks;
 * without them they are dropped.
 *
 * A context is not shared between threads unless the caller serialises its
 * use; distinct contexts are independent. */
#ifndef SBENCH_CONTEXT_H
#define SBENCH_CONTEXT_H

#include <stddef.h>

#include "sbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sb_ctx;

/* The default settle time, in seconds (see sb_ctx_set_settle). */
#define SB_CTX_SETTLE_DEFAULT 10.0
/* The storage lag (see sb_ctx_set_storage_lag): by the file system (the
 * default), what "by the file system" gives a shared one, and the most. */
#define SB_CTX_STORAGE_LAG_AUTO (-1.0)
#define SB_CTX_STORAGE_LAG_SHARED 60.0
#define SB_CTX_STORAGE_LAG_MAX 3600.0
/* The default lookup window, in seconds (see sb_ctx_set_lookup_window),
 * and the longest one. */
#define SB_CTX_LOOKUP_WINDOW_DEFAULT 5.0
#define SB_CTX_LOOKUP_WINDOW_MAX 3600.0

typedef void sb_warn_fn(void *user, const char *message);
typedef void sb_progress_fn(void *user, const char *what, size_t done, size_t total);

/* A context with the built-in defaults: root "./sbench-runs", no sbagent,
 * no local index, settle SB_CTX_SETTLE_DEFAULT, lookup window
 * SB_CTX_LOOKUP_WINDOW_DEFAULT, no callbacks.  NULL (and
 * err, SB_ERR_NOMEM) when out of memory.  Free it with sb_ctx_destroy. */
struct sb_ctx *sb_ctx_create(struct sb_error *err);

/* Frees ctx and every string it holds; accepts NULL. */
void sb_ctx_destroy(struct sb_ctx *ctx);

/* Sets the defaults from envp, a NULL-terminated array of "NAME=value"
 * strings (such as environ), exactly as sbctl does:
 *   SB_ROOT        the root (when set and not empty)
 *   SB_AGENT       the sbagent path (must be absolute)
 *   SB_INDEX       the local index file; else XDG_STATE_HOME (absolute)
 *                  /sbench/index.sqlite; else HOME/.local/state/sbench/
 *                  index.sqlite; else none
 *   SB_LOOKUP_WINDOW  the lookup window, in seconds (a decimal number,
 *                  when set and not empty)
 *   SB_THREADS     the threads reading and verifying logs (a whole number
 *                  from 1 to SB_CTX_THREADS_MAX, when set and not empty)
 *   SB_STORAGE_LAG the storage lag: "auto" or seconds (when set and not
 *                  empty)
 *   PATH           the search path of the checks before a submit (when set;
 *                  see sb_ctx_set_path)
 * Variables that are absent leave the current values.  -1 with
 * SB_ERR_INPUT when a value is unusable (a relative SB_AGENT, an
 * SB_LOOKUP_WINDOW that is not a number of seconds from 0 to
 * SB_CTX_LOOKUP_WINDOW_MAX, an SB_THREADS out of range), and nothing
 * changed then.  It reads envp
 * only, never the process's environment: sbctl finds the sbagent beside
 * its own executable itself when SB_AGENT is unset. */
int sb_ctx_load_env(struct sb_ctx *ctx, char *const envp[], struct sb_error *err);

/* Where sbctl submit creates benchmark directories (a path, relative to
 * the working directory or absolute).  -1 with SB_ERR_INPUT for an empty
 * path. */
int sb_ctx_set_root(struct sb_ctx *ctx, const char *dir, struct sb_error *err);
const char *sb_ctx_root(const struct sb_ctx *ctx);

/* The sbagent that batch scripts run: an absolute path (compute nodes run
 * it from another working directory), or NULL for none.  -1 with
 * SB_ERR_INPUT for a relative path. */
int sb_ctx_set_agent(struct sb_ctx *ctx, const char *path, struct sb_error *err);
const char *sb_ctx_agent(const struct sb_ctx *ctx);

/* The local index file (an SQLite database, a cache rebuildable from the
 * benchmark directories), or NULL to work without one. */
int sb_ctx_set_index(struct sb_ctx *ctx, const char *path, struct sb_error *err);
const char *sb_ctx_index(const struct sb_ctx *ctx);

/* How long, in seconds, a verdict that rests on something absent (no log,
 * no finish, no scheduler record) waits before it is given.  -1 with
 * SB_ERR_INPUT for a negative or non-finite value. */
int sb_ctx_set_settle(struct sb_ctx *ctx, double seconds, struct sb_error *err);
double sb_ctx_settle(const struct sb_ctx *ctx);

/* How long, in seconds, what a job wrote on a compute node may take to show
 * through the file system here (a client that caches attributes, names and
 * directory listings: docs/shared-storage.md).  A verdict that rests on a
 * file being absent, or on what a file looks like now, waits the settle
 * time plus this much after the job's End.  SB_CTX_STORAGE_LAG_AUTO (the
 * default): 0 when the benchmark directory is on a local file system,
 * SB_CTX_STORAGE_LAG_SHARED on a shared one (NFS, Lustre, GPFS, FUSE...) or
 * one not known to be local.  -1 with SB_ERR_INPUT for a value that is
 * neither that nor 0 to SB_CTX_STORAGE_LAG_MAX. */
int sb_ctx_set_storage_lag(struct sb_ctx *ctx, double seconds, struct sb_error *err);
double sb_ctx_storage_lag(const struct sb_ctx *ctx);

/* How long, in seconds, a submit that finds an sbatch of unknown outcome
 * (interrupted, killed, timed out) looks for its job by name in squeue and
 * sacct before it submits the chunk again: long enough for a submission
 * still in flight or an accounting record that lags.  -1 with SB_ERR_INPUT
 * for a value that is negative, not finite or above
 * SB_CTX_LOOKUP_WINDOW_MAX. */
int sb_ctx_set_lookup_window(struct sb_ctx *ctx, double seconds, struct sb_error *err);
double sb_ctx_lookup_window(const struct sb_ctx *ctx);

/* The search path (a colon-separated list of directories, as PATH) in
 * which the checks before a submit look for the program a spec's command
 * names by a bare name (sb_submit_check_command): the jobs inherit the
 * submitting environment, so by default the PATH they search.  NULL (the
 * default of a new context): not known, and such a program is not looked
 * for.  The library runs the Slurm commands through the process's own
 * PATH, whatever this is. */
int sb_ctx_set_path(struct sb_ctx *ctx, const char *path, struct sb_error *err);
const char *sb_ctx_path(const struct sb_ctx *ctx);

/* How many threads status, analyze and log verification read and verify
 * logs on: 0 (the default) for one per core online, at most
 * SB_CTX_THREADS_MAX.  The output is the same whatever the number.  -1 with
 * SB_ERR_INPUT above the limit. */
#define SB_CTX_THREADS_MAX 64
int sb_ctx_set_threads(struct sb_ctx *ctx, unsigned threads, struct sb_error *err);
unsigned sb_ctx_threads(const struct sb_ctx *ctx);

/* Callbacks for warnings (one message a call, no newline) and progress;
 * NULL drops them.  user is passed back unchanged. */
void sb_ctx_set_warn(struct sb_ctx *ctx, sb_warn_fn *fn, void *user);
void sb_ctx_set_progress(struct sb_ctx *ctx, sb_progress_fn *fn, void *user);

/* A stop callback, asked at least every 0.25 s while a long wait sleeps
 * (sb_status_wait between its polls): non-zero ends the wait with
 * SB_ERR_INTERRUPTED.  For a binding whose user pressed Ctrl-C (Python's
 * sbench.wait); NULL: never asked.  It may be called from any thread
 * that runs the wait. */
typedef int sb_stop_fn(void *user);
void sb_ctx_set_stop(struct sb_ctx *ctx, sb_stop_fn *fn, void *user);

/* Whether the stop callback asks to stop (0 when there is none). */
int sb_ctx_should_stop(const struct sb_ctx *ctx);

/* Calls the warning callback, if any, with a formatted message. */
void sb_ctx_warn(const struct sb_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Calls the progress callback, if any. */
void sb_ctx_progress(const struct sb_ctx *ctx, const char *what, size_t done, size_t total);

#ifdef __cplusplus
}
#endif

#endif
