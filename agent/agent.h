/* sbagent internals: the run description, the process and signal loop, the
 * payload encoders, result hashing and metrics parsing.  Not a public API. */
#ifndef SB_AGENT_AGENT_H
#define SB_AGENT_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <msgpack.h>

#include "agent/checkpoint.h"
#include "agent/earlystop.h"
#include "sbench/error.h"
#include "sbench/key.h"
#include "sbench/log.h"

#define SB_AGENT_EXIT_LOG 124       /* the finish record could not be made durable */
#define SB_AGENT_EXIT_SELF 125      /* sbagent failed before the command ran */
#define SB_AGENT_EXIT_NOEXEC 126    /* found but could not be executed */
#define SB_AGENT_EXIT_NOTFOUND 127  /* not found */

#define SB_AGENT_MAX_RESULTS 1024
#define SB_AGENT_MAX_ARGS 65536
#define SB_AGENT_MAX_SECONDS 1e7    /* upper bound of --heartbeat, --kill-wait */
#define SB_AGENT_DEFAULT_HEARTBEAT 60.0
#define SB_AGENT_MIN_HEARTBEAT 0.1     /* a shorter interval floods the log */
#define SB_AGENT_DEFAULT_KILL_WAIT 10.0

/* What to run and what to collect.  Filled from the command line in
 * standalone mode (main.c); benchmark mode will fill it from the benchmark
 * record.  Every pointer is borrowed. */
struct sb_agent_run {
	char *const *argv;            /* the command, NULL-terminated, argv[0] != NULL */
	size_t argc;
	const char *const *results;   /* declared result files, relative to run_dir */
	size_t nresults;
	const char *metrics;          /* the metrics file, or NULL */
	double heartbeat_s;           /* 0 disables heartbeats */
	double kill_wait_s;           /* budget after a termination signal */
	const char *run_dir;          /* absolute; the command's working directory */
	const struct sb_early_stop_rules *early_stop; /* NULL or no rules: none */
	struct sb_agent_watch *watch; /* live watch (agent/watch_feed.h), or NULL */
	const char *spec_dir;         /* benchmark mode: where the inputs are */
	const char *const *inputs;    /* the child's input files, relative to spec_dir */
	size_t ninputs;
	const struct sb_checkpoint_cfg *checkpoint; /* NULL or not present: none */
	const struct sb_agent_ckpt *resumed_from;   /* with checkpoint: the files
	                                 found before the command ran */
};

struct sb_agent_result;
struct sb_agent_watch;

struct sb_agent_usage {
	double user_s;
	double sys_s;
	int64_t max_rss_kb;
};

/* How the command ended (run.c). */
struct sb_agent_outcome {
	int exec_errno;               /* non-zero: execvp failed with this errno */
	int status;                   /* wait(2) status of the command */
	double wall_s;                /* fork to the whole tree gone */
	struct sb_agent_usage usage;  /* of every reaped descendant */
	int terminating;              /* a termination signal was received */
	int term_sig;                 /* the first one */
	double finish_deadline;       /* CLOCK_MONOTONIC seconds; 0 = none */
	double kill_deadline;         /* the end of the kill-wait budget; 0 = none */
	uint64_t records_skipped;     /* heartbeat/signal records never written */
	struct sb_agent_early_hit early; /* an early-stop rule stopped the command */
	int checkpoint_signalled;     /* the checkpoint's signal reached the command */
};

/* Seconds on CLOCK_MONOTONIC (one clock for the run loop and the result
 * hashing budget). */
static inline double sb_agent_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- run.c ---------------------------------------------------------- */


/* Runs run->argv as a child in its own process group and handles signals,
 * heartbeats and reaping until the whole process tree is gone, then stats
 * and hashes the results into results[run->nresults] while still reading
 * signals (a termination signal then gets its record, and the files that
 * cannot be hashed in its budget are recorded not hashed).  All signals
 * must already be blocked.  Records (heartbeat, signal) go to w; a failed
 * append is reported on stderr and the run goes on.  Returns -1 only when
 * the child could not be started at all (fork, pipe, signalfd); results are
 * then not collected. */
int sb_agent_run_command(const struct sb_agent_run *run,
	struct sb_log_writer *w, struct sb_agent_outcome *out,
	struct sb_agent_result *results, struct sb_error *err);

/* Exits like the command did: its exit code, or the same signal re-raised
 * with the default disposition and no core dump (128+N as a fallback),
 * 126/127 when it could not be executed. */
void sb_agent_exit_like(const struct sb_agent_outcome *out)
	__attribute__((noreturn));

/* ---- host.c --------------------------------------------------------- */

struct sb_agent_host {
	char cpu_model[256];          /* empty when unknown */
	int64_t cores;                /* online CPUs, -1 when unknown */
	int64_t cpus_allowed;         /* CPUs in the affinity mask, -1 when unknown */
	char kernel[256];             /* the release, as uname -r: "6.1.0-18-amd64" */
};

void sb_agent_host_facts(struct sb_agent_host *h);

/* The short host name (up to the first '.'). */
void sb_agent_short_hostname(char *buf, size_t size);

/* ---- results.c ------------------------------------------------------ */

enum sb_agent_result_state {
	SB_RESULT_HASHED,
	SB_RESULT_MISSING,
	SB_RESULT_NOT_HASHED,         /* no time left: size and mtime only */
	SB_RESULT_ERROR,              /* not a regular file, unreadable */
};

struct sb_agent_result {
	const char *path;             /* borrowed from the run */
	enum sb_agent_result_state state;
	uint64_t size;
	int64_t mtime_ns;
	char sha256[65];
	char error[160];              /* our own words and strerror, never a path */
};

/* Stats and hashes each result file (relative to the working directory),
 * size, mtime and hash from one descriptor: a file whose size or mtime
 * moved while it was hashed is an error ("changed while it was hashed"),
 * never a size that does not match its hash.  deadline (may be NULL) is
 * asked before each file and after each chunk for the time (CLOCK_MONOTONIC
 * seconds, 0 = none) by which hashing must stop; a file that cannot be
 * hashed before it is recorded as SB_RESULT_NOT_HASHED. */
void sb_agent_results_collect(const char *const *paths, size_t n,
	double (*deadline)(void *arg), void *arg, struct sb_agent_result *out);

/* ---- metrics.c ------------------------------------------------------ */

#define SB_METRICS_MAX_FILE (16u << 20)
#define SB_METRICS_MAX_COUNT 10000
#define SB_METRICS_MAX_NAME 256
#define SB_METRICS_MAX_DEPTH 8
/* libyaml's cost grows with the square of the nesting of flow collections
 * ([ and {): deeper files are refused before parsing, and a parse gets at
 * most this long (the finish record must fit in KillWait). */
#define SB_METRICS_MAX_FLOW_DEPTH 64
#define SB_METRICS_MAX_PARSE_S 2.0

struct sb_agent_metric {
	char *name;
	int is_float;
	int64_t i;
	double f;
	size_t order;                 /* position in the file */
};

struct sb_agent_metrics {
	struct sb_agent_metric *v;    /* sorted by name (raw bytes) */
	size_t n;
	char **skipped;               /* names of non-numbers, file order */
	size_t nskipped;
};

/* Reads the numeric values of a JSON or YAML top-level mapping; nested
 * mappings are flattened with '.' ("train.loss").  -1 with a message when the
 * file is missing, unreadable, too large or not a mapping (m is then empty). */
int sb_agent_metrics_read(const char *path, struct sb_agent_metrics *m,
	struct sb_error *err);

/* The same for a document in text[0..len); path names it in messages. */
int sb_agent_metrics_parse(const char *text, size_t len, const char *path,
	struct sb_agent_metrics *m, struct sb_error *err);

void sb_agent_metrics_release(struct sb_agent_metrics *m);

/* The metrics file as the heartbeats see it (learning curves,
 * docs/event-log.md §6.2): a stat(2) per heartbeat, and a read only when
 * the file's device, inode, size, mtime or ctime moved since the last one. */
struct sb_agent_metrics_track {
	bool seen;                    /* the fields below describe the last read */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	bool have;                    /* last holds the numbers of that read */
	struct sb_agent_metrics last;
	uint64_t reads;               /* reads made (for tests) */
};

enum sb_agent_metrics_now {
	SB_METRICS_NONE,              /* missing, or unreadable at the last read */
	SB_METRICS_SAME,              /* t->last: the numbers the heartbeat before saw */
	SB_METRICS_CHANGED,           /* t->last: numbers that differ from those before */
};

/* Looks at the metrics file at path: read again (sb_agent_metrics_read)
 * only when it changed since the last look, else the numbers read then.  A
 * read that fails (the file half written) gives NONE, and the next read
 * that succeeds is CHANGED, whatever its numbers; a file that does not
 * change after a failed read is not read again.  Free with
 * sb_agent_metrics_track_release. */
enum sb_agent_metrics_now sb_agent_metrics_track(struct sb_agent_metrics_track *t,
	const char *path);

void sb_agent_metrics_track_release(struct sb_agent_metrics_track *t);

/* Whether a and b hold the same names and numbers (ints and floats apart). */
bool sb_agent_metrics_equal(const struct sb_agent_metrics *a, const struct sb_agent_metrics *b);

/* ---- records.c: canonical msgpack payloads --------------------------- */

int sb_agent_payload_start(msgpack_sbuffer *sb, const struct sb_agent_run *run,
	const struct sb_key *key, const struct sb_agent_host *host);

/* At most this many metrics go into one heartbeat: the first ones in name
 * order; the number of the others is written as metrics_left_off
 * (docs/event-log.md §6.2).  With names of at most SB_METRICS_MAX_NAME
 * bytes, a heartbeat's metrics take at most about 68 KiB. */
#define SB_AGENT_HB_MAX_METRICS 256

/* metrics: NULL, or the numbers the metrics file holds now (written as
 * metrics, at most SB_AGENT_HB_MAX_METRICS of them); watch_dropped: NULL,
 * or the frames live watch dropped so far (written as watch_dropped);
 * docs/event-log.md. */
int sb_agent_payload_heartbeat(msgpack_sbuffer *sb, double elapsed_s,
	const struct sb_agent_usage *u, const struct sb_agent_metrics *metrics,
	const uint64_t *watch_dropped);

/* action: "forwarded", "not_forwarded" (no process left), "kill_after_killwait" */
int sb_agent_payload_signal(msgpack_sbuffer *sb, int sig, const char *action);

struct sb_agent_finish {
	const struct sb_agent_outcome *outcome;
	const char *error;            /* "exec failed: ...", or NULL */
	const struct sb_agent_result *results;
	size_t nresults;
	const struct sb_agent_metrics *metrics;
	const char *metrics_error;    /* the metrics file could not be read, or NULL */
	uint64_t records;             /* records in the file including this one */
	uint64_t records_skipped;     /* written as skipped_records when not 0 */
	const struct sb_early_stop_rules *early_stop; /* the rules outcome->early names */
	const struct sb_agent_ckpt *checkpoint;       /* NULL: no checkpoint section */
	const struct sb_agent_interrupt *interrupted; /* NULL or by NULL: not */
};

int sb_agent_payload_finish(msgpack_sbuffer *sb, const struct sb_agent_finish *f);

/* "TERM" for SIGTERM; "RTMIN+3"; "SIG%d" for unknown numbers. */
const char *sb_agent_signal_name(int sig, char buf[16]);

#endif
