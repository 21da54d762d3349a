/* sbagent: run a command and leave signed start, heartbeat, signal and
 * finish records in an event log.  Standalone mode: everything comes from
 * the command line (docs/sbagent.md). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/benchmode.h"
#include "agent/watch_feed.h"
#include "proto/recordkeys.h"

struct options {
	const char *key;
	const char *log;
	const char *results[SB_AGENT_MAX_RESULTS];
	size_t nresults;
	const char *metrics;
	double heartbeat_s;
	double kill_wait_s;
};

static void usage(FILE *f)
{
	fputs("usage: sbagent --key KEYFILE --log PATH [--heartbeat SECONDS] "
	      "[--kill-wait SECONDS]\n"
	      "               [--result FILE]... [--metrics FILE] -- COMMAND [ARG...]\n"
	      "       sbagent --help | --version\n",
	      f);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("sbagent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(SB_AGENT_EXIT_SELF);
}

static double parse_seconds(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !isfinite(v) || v < 0 ||
	    v > SB_AGENT_MAX_SECONDS) {
		fprintf(stderr, "sbagent: bad %s '%s': need seconds from 0 to %g\n",
			opt, s, SB_AGENT_MAX_SECONDS);
		usage(stderr);
		exit(SB_AGENT_EXIT_SELF);
	}
	return v;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "log", required_argument, NULL, 'l' },
		{ "heartbeat", required_argument, NULL, 'b' },
		{ "kill-wait", required_argument, NULL, 'w' },
		{ "result", required_argument, NULL, 'r' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->heartbeat_s = SB_AGENT_DEFAULT_HEARTBEAT;
	o->kill_wait_s = SB_AGENT_DEFAULT_KILL_WAIT;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': o->key = optarg; break;
		case 'l': o->log = optarg; break;
		case 'b':
			o->heartbeat_s = parse_seconds("--heartbeat", optarg);
			if (o->heartbeat_s > 0 && o->heartbeat_s < SB_AGENT_MIN_HEARTBEAT)
				die("bad --heartbeat '%s': 0 (none) or at least %g seconds",
					optarg, SB_AGENT_MIN_HEARTBEAT);
			break;
		case 'w': o->kill_wait_s = parse_seconds("--kill-wait", optarg); break;
		case 'm': o->metrics = optarg; break;
		case 'r':
			if (o->nresults == SB_AGENT_MAX_RESULTS) {
				fprintf(stderr, "sbagent: more than %d --result files\n",
					SB_AGENT_MAX_RESULTS);
				exit(SB_AGENT_EXIT_SELF);
			}
			if (optarg[0] == '\0' || strlen(optarg) >= PATH_MAX) {
				fprintf(stderr, "sbagent: bad --result '%s'\n", optarg);
				exit(SB_AGENT_EXIT_SELF);
			}
			o->results[o->nresults++] = optarg;
			break;
		case 'h':
			usage(stdout);
			fputs("\nthe full reference: man sbagent\n", stdout);
			exit(0);
		case 'V':
			printf("sbagent %s\n", SB_VERSION);
			exit(0);
		case ':':
			fprintf(stderr, "sbagent: option '%s' needs a value\n", argv[optind - 1]);
			usage(stderr);
			exit(SB_AGENT_EXIT_SELF);
		default:
			fprintf(stderr, "sbagent: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			exit(SB_AGENT_EXIT_SELF);
		}
	}
	if (o->key == NULL || o->log == NULL) {
		fprintf(stderr, "sbagent: %s is required\n", o->key ? "--log" : "--key");
		usage(stderr);
		exit(SB_AGENT_EXIT_SELF);
	}
	if (optind >= argc) {
		fprintf(stderr, "sbagent: no command given\n");
		usage(stderr);
		exit(SB_AGENT_EXIT_SELF);
	}
	if ((size_t)(argc - optind) > SB_AGENT_MAX_ARGS)
		die("more than %d command arguments", SB_AGENT_MAX_ARGS);
	return optind;
}

/* Standalone mode: the run is described by the command line alone.
 * (Benchmark mode will fill the same struct from the benchmark record.) */
static void run_from_options(const struct options *o, char **cmd, size_t n,
	const char *cwd, struct sb_agent_run *run)
{
	memset(run, 0, sizeof(*run));
	run->argv = cmd;
	run->argc = n;
	run->results = o->results;
	run->nresults = o->nresults;
	run->metrics = o->metrics;
	run->heartbeat_s = o->heartbeat_s;
	run->kill_wait_s = o->kill_wait_s;
	run->run_dir = cwd;
}

/* Benchmark mode: everything comes from the task map of the chunk
 * (agent/benchmode.h); the command gets the child's env, and runs in its run
 * directory. */
static void run_from_bench(int argc, char **argv, struct sb_agent_bench *b,
	struct sb_agent_run *run)
{
	struct sb_error err;
	int first = 1;
	size_t i;

	if (argc > 1 && !strcmp(argv[1], "--"))
		first = 2;
	else if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		first = argc; /* fall through to the usage below */
	if (first != 2)
		die("SB_BENCH_DIR is set (benchmark mode): run as 'sbagent --' from the batch "
		    "script sbctl wrote, or unset SB_BENCH_DIR and give --key and --log");
	if (sb_agent_bench_load(b, argv + first, (size_t)(argc - first), &err) != 0)
		die("%s", err.msg);
	if (sb_agent_bench_make_run_dir(b, &err) != 0)
		die("%s", err.msg);
	if (chdir(b->run_dir) != 0)
		die("cannot enter the run directory '%s': %s", b->run_dir, strerror(errno));
	for (i = 0; i < b->nenv; i++)
		if (putenv(b->env[i]) != 0)
			die("cannot set the child's environment: %s", strerror(errno));
	if (sb_agent_bench_prepare_log(b, &err) != 0)
		die("%s", err.msg);
	memset(run, 0, sizeof(*run));
	run->argv = b->argv;
	run->argc = b->argc;
	run->results = (const char *const *)b->results;
	run->nresults = b->nresults;
	run->metrics = b->metrics;
	run->spec_dir = b->spec_dir;
	run->inputs = (const char *const *)b->inputs;
	run->ninputs = b->ninputs;
	run->heartbeat_s = b->heartbeat_s;
	run->kill_wait_s = b->kill_wait_s;
	run->run_dir = b->run_dir;
	run->early_stop = &b->early_stop;
	run->checkpoint = &b->checkpoint;
}

/* With fd 0, 1 or 2 closed, the log could get that number and a message
 * meant for stderr would land in it: keep them open on /dev/null. */
static void guard_stdio(void)
{
	int fd;

	for (fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		if (open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			exit(SB_AGENT_EXIT_SELF);
	}
}

static const char *env_or_null(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static int64_t env_int(const char *name)
{
	const char *v = env_or_null(name);
	char *end;
	long long n;

	if (v == NULL)
		return -1;
	errno = 0;
	n = strtoll(v, &end, 10);
	return errno || *end != '\0' || n < 0 ? -1 : n;
}

static void fill_ident(struct sb_run_ident *id, char *host, size_t hostsize)
{
	memset(id, 0, sizeof(*id));
	id->bench = NULL;
	id->child = -1;
	id->child_digest = NULL;
	id->attempt = -1;
	id->cluster = env_or_null("SLURM_CLUSTER_NAME");
	id->job_id = env_or_null("SLURM_JOB_ID");
	id->array_job_id = env_or_null("SLURM_ARRAY_JOB_ID");
	id->array_task_id = env_or_null("SLURM_ARRAY_TASK_ID");
	id->restart = env_int("SLURM_RESTART_COUNT");
	sb_agent_short_hostname(host, hostsize);
	id->host = host;
	id->pid = getpid();
}

/* An ignored signal is discarded when sent, even while blocked, so the loop
 * would never see it (a shell starts background jobs with INT and QUIT
 * ignored; nohup ignores HUP).  The command gets default dispositions
 * anyway, so sbagent takes them too. */
static void unignore_signals(void)
{
	struct sigaction sa;
	int sig;

	for (sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP ||
		    sigaction(sig, NULL, &sa) != 0 || sa.sa_handler != SIG_IGN)
			continue;
		sa.sa_handler = SIG_DFL;
		sigaction(sig, &sa, NULL);
	}
}

static int write_record(struct sb_log_writer *w, const char *type,
	msgpack_sbuffer *sb, int rc, struct sb_error *err)
{
	if (rc != 0)
		return sb_error_set(err, SB_ERR_NOMEM, "cannot encode the %s record: out of memory", type);
	return sb_log_writer_append(w, type, sb->data, sb->size, err);
}

/* The start and the finish must be on disk: a failed write or sync is
 * tried again (the writer keeps the record pending, or it was not created
 * because an earlier one is pending) after 50, 100, 200, 400 and 800 ms,
 * but never past the deadline (CLOCK_MONOTONIC seconds, 0 = none). */
static int write_durable(struct sb_log_writer *w, const char *type,
	msgpack_sbuffer *sb, int rc, double deadline, struct sb_error *err)
{
	uint64_t before = sb_log_writer_count(w);
	double delay = 0.05;
	int i;

	if (rc != 0)
		return write_record(w, type, sb, rc, err);
	rc = write_record(w, type, sb, 0, err);
	for (i = 0; rc != 0 && i < 5; i++, delay *= 2) {
		struct timespec ts = { 0, (long)(delay * 1e9) };

		if (deadline > 0 && sb_agent_now() + delay >= deadline)
			break;
		fprintf(stderr, "sbagent: %s; trying again\n", err->msg);
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
		rc = sb_log_writer_count(w) > before ? sb_log_writer_flush(w, err) :
			write_record(w, type, sb, 0, err);
	}
	return rc;
}

/* scontrol's time to answer the requeue (slurmctld may be busy) */
#define REQUEUE_TIMEOUT_S 30.0

/* Whether the run ended early, and whether sbagent requeues its job: the
 * checkpoint's signal reached the command while it ran (the time limit
 * comes: requeue when requeue_on names timeout, the job is a Slurm job and
 * max_restarts is not reached), or a termination signal came (preemption,
 * scancel, the limit itself: what follows is the scheduler's). */
static void interruption(const struct sb_agent_run *run, const struct sb_run_ident *id,
			 const struct sb_agent_outcome *o, struct sb_agent_interrupt *in)
{
	const struct sb_checkpoint_cfg *c = run->checkpoint;
	static char name[16];

	memset(in, 0, sizeof(*in));
	in->restart = id->restart < 0 ? 0 : id->restart;
	in->max_restarts = c->max_restarts;
	if (o->checkpoint_signalled) {
		in->by = "requeue_signal";
		in->signal = c->signal_name;
		if (!(c->requeue_on & SB_REQUEUE_TIMEOUT))
			in->why_not = "not_requested";
		else if (in->restart >= c->max_restarts)
			in->why_not = "max_restarts";
		else if (id->job_id == NULL)
			in->why_not = "not_a_slurm_job";
		else
			in->requeue = true;
	} else if (o->terminating) {
		in->by = "termination";
		in->signal = sb_agent_signal_name(o->term_sig, name);
		in->why_not = "scheduler";
	}
}

int main(int argc, char **argv)
{
	struct sb_agent_result results[SB_AGENT_MAX_RESULTS];
	struct sb_agent_metrics metrics = { 0 };
	struct sb_agent_outcome outcome;
	struct sb_agent_finish fin;
	struct sb_agent_ckpt ck_start, ck_end;
	struct sb_agent_interrupt intr;
	struct sb_agent_host host;
	struct sb_agent_run run;
	struct sb_agent_bench bench;
	struct sb_run_ident id;
	struct sb_log_writer *w;
	struct options opt;
	struct sb_error err;
	struct sb_key key;
	msgpack_sbuffer sb;
	char hostname[256], *cwd, exec_error[160], metrics_error[SB_ERROR_MAX];
	sigset_t all;
	int first, rc;

	/* signals wait in the queue until the loop reads them */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	unignore_signals();
	guard_stdio();

	if (sb_agent_bench_mode()) {
		run_from_bench(argc, argv, &bench, &run);
		cwd = strdup(bench.run_dir);
		opt.key = bench.key_path;
		opt.log = bench.log_path;
	} else {
		first = parse_options(argc, argv, &opt);
		cwd = getcwd(NULL, 0);
		if (cwd == NULL)
			die("cannot get the working directory: %s", strerror(errno));
		run_from_options(&opt, argv + first, (size_t)(argc - first), cwd, &run);
	}

	if (sb_key_load(opt.key, &key, &err) != 0) {
		free(cwd);
		die("%s", err.msg);
	}
	fill_ident(&id, hostname, sizeof(hostname));
	if (sb_agent_bench_mode()) {
		id.bench = bench.digest;
		id.child = bench.child;
		id.child_digest = bench.child_digest;
		id.attempt = bench.attempt;
	}
	w = sb_log_writer_create(opt.log, &key, &id, &err);
	if (w == NULL) {
		sb_key_cleanse(&key);
		free(cwd);
		die("%s", err.msg);
	}
	if (sb_agent_bench_mode()) {
		/* live watch: only a benchmark has a watch/ directory */
		run.watch = sb_agent_watch_create(bench.dir, hostname);
		sb_agent_watch_scan(run.watch);
		sb_log_writer_set_tap(w, sb_agent_watch_send, run.watch);
	}
	sb_agent_host_facts(&host);
	/* the checkpoint this run starts from, before the command can touch it */
	sb_agent_checkpoint_hash(run.checkpoint, &ck_start);
	run.resumed_from = &ck_start;
	msgpack_sbuffer_init(&sb);
	rc = sb_agent_payload_start(&sb, &run, &key, &host);
	sb_key_cleanse(&key); /* the writer holds its own keyed MAC */
	rc = write_durable(w, SB_RT_START, &sb, rc, 0, &err);
	msgpack_sbuffer_destroy(&sb);
	if (rc != 0) {
		struct sb_error cerr;

		sb_log_writer_close(w, &cerr);
		free(cwd);
		die("cannot write the start record to '%s', the command did not run: %s",
			opt.log, err.msg);
	}

	memset(&fin, 0, sizeof(fin));
	fin.outcome = &outcome;
	if (sb_agent_run_command(&run, w, &outcome, results, &err) != 0) {
		/* the start record is there: say in the log why nothing ran */
		fprintf(stderr, "sbagent: %s\n", err.msg);
		memset(&outcome, 0, sizeof(outcome));
		outcome.status = SB_AGENT_EXIT_SELF << 8;
		fin.error = err.msg;
		sb_agent_results_collect(run.results, run.nresults, NULL, NULL, results);
	} else if (outcome.exec_errno) {
		snprintf(exec_error, sizeof(exec_error), "exec failed: %s",
			strerror(outcome.exec_errno));
		fprintf(stderr, "sbagent: cannot execute '%s': %s\n", run.argv[0],
			strerror(outcome.exec_errno));
		fin.error = exec_error;
	}

	fin.results = results;
	fin.nresults = run.nresults;
	if (run.metrics) {
		struct sb_error merr;

		if (sb_agent_metrics_read(run.metrics, &metrics, &merr) != 0) {
			snprintf(metrics_error, sizeof(metrics_error), "%s", merr.msg);
			fin.metrics_error = metrics_error;
		}
	}
	fin.metrics = &metrics;
	/* the rules once more, on the final metrics: a run that met one
	 * between two heartbeats and then exited by itself was stopped too
	 * (not one that a termination signal ended: that is the scheduler's) */
	if (!outcome.early.fired && !outcome.terminating && !outcome.exec_errno &&
	    WIFEXITED(outcome.status) && !fin.metrics_error && run.early_stop && run.early_stop->n &&
	    sb_agent_early_stop_check(run.early_stop, &metrics, outcome.wall_s, &outcome.early))
		outcome.early.at_finish = 1;
	fin.records = sb_log_writer_count(w) + 1;
	fin.records_skipped = outcome.records_skipped;
	fin.early_stop = run.early_stop;
	memset(&intr, 0, sizeof(intr));
	if (run.checkpoint && run.checkpoint->present) {
		sb_agent_checkpoint_hash(run.checkpoint, &ck_end);
		fin.checkpoint = &ck_end;
		interruption(&run, &id, &outcome, &intr);
		fin.interrupted = &intr;
	}
	msgpack_sbuffer_init(&sb);
	rc = sb_agent_payload_finish(&sb, &fin);
	/* after a termination signal, Slurm's SIGKILL ends the retries anyway */
	rc = write_durable(w, SB_RT_FINISH, &sb, rc, outcome.kill_deadline, &err);
	msgpack_sbuffer_destroy(&sb);
	if (rc != 0)
		fprintf(stderr, "sbagent: cannot write the finish record to '%s': %s; "
			"exiting %d, not the command's status, since no finish proves how it ended\n",
			opt.log, err.msg, SB_AGENT_EXIT_LOG);
	if (sb_log_writer_close(w, &err) != 0 && rc == 0)
		fprintf(stderr, "sbagent: cannot close '%s': %s\n", opt.log, err.msg);
	sb_agent_watch_destroy(run.watch);
	sb_agent_metrics_release(&metrics);
	free(cwd);
	if (rc != 0) {
		fflush(NULL);
		_exit(SB_AGENT_EXIT_LOG);
	}
	/* only once the finish that says so is on disk */
	if (intr.requeue) {
		char msg[256], task[160];
		int n;

		/* an array task by its array's id and task: the raw id of the
		 * task that carries the array's own id names the whole array */
		if (id.array_job_id && id.array_task_id)
			n = snprintf(task, sizeof(task), "%s_%s", id.array_job_id, id.array_task_id);
		else
			n = snprintf(task, sizeof(task), "%s", id.job_id);
		if (n < 0 || n >= (int)sizeof(task))
			snprintf(task, sizeof(task), "(a job id of %d bytes)", n);
		fflush(NULL);
		if (sb_agent_requeue(task, REQUEUE_TIMEOUT_S, msg, sizeof(msg)) != 0) {
			/* the finish says requeued: the job's end without a
			 * later run shows it was not (status: killed) */
			fprintf(stderr, "sbagent: the run was interrupted for requeue (checkpoint %s), "
				"but the job could not be requeued: %s\n",
				ck_end.have ? ck_end.digest : "none", msg);
		} else {
			fprintf(stderr, "sbagent: interrupted by SIG%s at restart %" PRId64 " with checkpoint "
			"%.12s; the job is requeued\n", intr.signal, intr.restart,
			ck_end.have ? ck_end.digest : "(none)");
		}
	}
	sb_agent_exit_like(&outcome);
}
