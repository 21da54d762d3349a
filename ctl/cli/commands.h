/* The sbctl commands, one file each (cli/cmd_<name>.c).  Each takes the
 * arguments after the command name (argv[0] is the command name) and returns
 * the process exit status (docs/sbctl.md, "EXIT STATUS": 0, 1, 2, or 3). */
#ifndef SB_CTL_COMMANDS_H
#define SB_CTL_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/options.h"
#include "sbench/error.h"

enum sb_exit {
	SB_EXIT_OK = 0,
	SB_EXIT_RUNTIME = 1,
	SB_EXIT_USAGE = 2,
	SB_EXIT_PROBLEM = 3,
	SB_EXIT_LANE_BUSY = 4,  /* submit --lane only: nothing submitted (docs/lane.md) */
};

/* The exit status for a failed library call: 2 for input and not-found
 * errors, 1 for the rest (runtime, out of memory). */
static inline int sb_cli_exit(const struct sb_error *err)
{
	return err->code == SB_ERR_INPUT || err->code == SB_ERR_NOT_FOUND ? SB_EXIT_USAGE
									 : SB_EXIT_RUNTIME;
}

struct sb_ctx;
/* The context of this sbctl process (cli/context.c): the library's
 * defaults as the environment sets them, warnings and progress on stderr
 * as "sbctl CMD: ...".  Opened by main.c before a command runs (-1 with
 * err when the environment names something unusable), closed after. */
struct sb_ctx *sb_cli_ctx(void);
int sb_cli_ctx_open(const char *cmd, struct sb_error *err);
void sb_cli_ctx_close(void);

/* --settle VALUE of command cmd into the context: 0, or -1 after a usage
 * error on stderr. */
int sb_cli_set_settle(const char *cmd, const char *value);

/* --storage-lag VALUE ("auto" or seconds) of command cmd into the context:
 * 0, or -1 after a usage error on stderr. */
int sb_cli_set_storage_lag(const char *cmd, const char *value);

/* The options of the commands that classify (status, wait, analyze,
 * report), each with its key. */
#define SB_CLI_OPT_OFFLINE(key) \
	{ "offline", 0, (key), SB_OPT_FLAG, NULL, "classify from the logs alone, asking no scheduler" }
#define SB_CLI_OPT_SETTLE(key) \
	{ "settle", 0, (key), SB_OPT_VALUE, "SECONDS", \
	  "how long a job may be absent from squeue and sacct before it counts as gone (SB_SETTLE)" }
#define SB_CLI_OPT_STORAGE_LAG(key) \
	{ "storage-lag", 0, (key), SB_OPT_VALUE, "SECONDS|auto", \
	  "how late other nodes' writes may show here; auto: 60 on a shared file system, else 0 (SB_STORAGE_LAG)" }

struct sb_bench;
struct sb_status;
struct sb_status_opts;
/* The benchmark bench (a directory, name or digest prefix) found and its
 * status computed with o, its warnings on stderr as "sbctl CMD: warning:
 * ...": 0 with *b and *st (the caller destroys both), or the exit status
 * after the error on stderr (with the --offline hint when the scheduler did
 * not answer). */
int sb_cli_status(const char *cmd, const char *bench, const struct sb_status_opts *o,
		  struct sb_bench **b, struct sb_status **st);

/* A status (or wait) that failed: "sbctl CMD: message" on stderr, with the
 * --offline hint when the scheduler did not answer; the exit status. */
int sb_cli_status_fail(const char *cmd, const struct sb_error *err);

/* The status's warnings, "sbctl CMD: warning: ..." on stderr. */
void sb_cli_status_warnings(const char *cmd, const struct sb_status *st);

/* Copies the regular file at path to out; anything else (a FIFO in place
 * of an output file, a directory) or a file that cannot be opened is
 * skipped, never waited on. */
void sb_cli_copy_file(const char *path, FILE *out);

/* Whether child of b is reused from an earlier benchmark: 1 with *src that
 * benchmark (opened: destroy it) and *src_child the child there, after
 * "child N is reused from NAME DIGEST12 child M (DIR)" (no newline) to out;
 * 0 when it is not; -1 with err. */
int sb_cli_reused_source(const struct sb_bench *b, size_t child, FILE *out,
			 struct sb_bench **src, size_t *src_child, struct sb_error *err);

int cmd_keygen(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_wait(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_rerun(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_output(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_verify(int argc, char **argv);

struct sb_bundle_verify_opts;
struct sb_bundle_verdict;
/* Reads the bundle file and checks it (sb_bundle_verify) into vd: SB_EXIT_OK
 * when it was checked (vd->ok says how), else the exit code of why it could
 * not be, said on stderr as "sbctl CMD: ...". */
int sb_cli_verify_bundle(const char *cmd, const char *file, const struct sb_bundle_verify_opts *vo,
			 struct sb_bundle_verdict *vd);
int cmd_forget(int argc, char **argv);

struct sb_submit_opts;
struct sb_lane_opts;
/* sbctl submit with --check or --lane (ctl/cli/cmd_lane.c): submits, renders,
 * and returns 0, 1, 2, 3 (the check found a failure) or 4 (the lane was
 * busy). */
int cmd_submit_lane(const char *spec, const struct sb_submit_opts *o,
		    const struct sb_lane_opts *lo, bool json);

#endif
