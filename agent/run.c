/* The command as a child: spawn, the synchronous signal loop (signalfd),
 * heartbeats, the kill-wait budget, reaping the whole tree, and exiting like
 * the command did. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/watch_feed.h"
#include "proto/recordkeys.h"

/* Of the kill-wait budget, the last KILL_RESERVE seconds (at most 30 % of
 * it) are for killing what is left, hashing and writing finish; the last
 * FINISH_RESERVE seconds (at most 10 %) for the finish write alone. */
#define KILL_RESERVE 2.0
#define FINISH_RESERVE 0.5

/* fmin and ceil for the finite numbers here, without libm (one library
 * fewer for the dynamic loader: see docs/sbagent.md, PERFORMANCE; gcc
 * inlines ceil, clang calls it) */
static double min_d(double a, double b)
{
	return a < b ? a : b;
}

/* poll's timeout for s > 0 seconds: whole milliseconds rounded up (so the
 * loop does not wake just before its deadline), at most a day */
static int poll_ms(double s)
{
	double ms = s * 1000;
	int n;

	if (ms >= 86400000.0)
		return 86400000;
	n = (int)ms;
	return n < ms ? n + 1 : n;
}

struct loop {
	const struct sb_agent_run *run;
	struct sb_log_writer *w;
	uint64_t skipped;      /* records that could not even be created */
	pid_t child;
	int child_done;
	int status;
	double t0;
	double next_hb;
	int sfd;               /* the signalfd */
	int term_sig;          /* the first termination signal, 0 = none */
	double term_at, kill_at;
	int killed;
	struct sb_agent_early_hit early; /* an early-stop rule held: TERM was sent */
	int ckpt_sig;          /* the checkpoint's signal reached the command */
	struct sb_agent_metrics_track metrics; /* the metrics file at the heartbeats */
	int metrics_unsent;    /* the numbers of a heartbeat that was skipped */
};

/* A record that cannot be written is reported and the run goes on: the
 * writer keeps it pending and writes it before the next one (or, when an
 * earlier one is still pending, the record is skipped and counted). */
static void append(struct loop *l, const char *type, msgpack_sbuffer *sb, int rc)
{
	uint64_t before = sb_log_writer_count(l->w);
	struct sb_error err;

	if (rc != 0) {
		fprintf(stderr, "sbagent: cannot encode %s record: out of memory\n", type);
		l->skipped++;
		return;
	}
	if (sb_log_writer_append(l->w, type, sb->data, sb->size, &err) == 0)
		return;
	if (sb_log_writer_count(l->w) == before)
		l->skipped++;
	fprintf(stderr, "sbagent: cannot write %s record: %s; the command goes on, "
		"and the log is written again with the next record\n", type, err.msg);
}

static void record_signal(struct loop *l, int sig, const char *action)
{
	msgpack_sbuffer sb;
	int rc;

	msgpack_sbuffer_init(&sb);
	rc = sb_agent_payload_signal(&sb, sig, action);
	append(l, SB_RT_SIGNAL, &sb, rc);
	msgpack_sbuffer_destroy(&sb);
}

/* utime+cutime, stime+cstime (ticks) and VmHWM (kB) of a live process. */
static void proc_usage(pid_t pid, struct sb_agent_usage *u)
{
	char path[64], buf[4096], *p;
	unsigned long ut, st;
	long cut, cst, hz = sysconf(_SC_CLK_TCK);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || hz <= 0)
		return;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %ld %ld",
			&ut, &st, &cut, &cst) == 4) {
		u->user_s += (double)(ut + (unsigned long)cut) / (double)hz;
		u->sys_s += (double)(st + (unsigned long)cst) / (double)hz;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	p = strstr(buf, "\nVmHWM:");
	if (p) {
		long long kb = strtoll(p + 7, NULL, 10);

		if (kb > u->max_rss_kb)
			u->max_rss_kb = kb;
	}
}

static void children_usage(struct sb_agent_usage *u)
{
	struct rusage ru;

	memset(u, 0, sizeof(*u));
	if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
		return;
	u->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
	u->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	u->max_rss_kb = ru.ru_maxrss;
}

static int group_alive(const struct loop *l);

/* The first early-stop rule that holds stops the command as a termination
 * signal would: TERM to its group now, KILL at the end of the kill wait. */
static void early_stop(struct loop *l, const struct sb_agent_metrics *m, double now)
{
	double kw = l->run->kill_wait_s;
	int fwd;

	if (l->child_done || l->term_sig || l->early.fired ||
	    !sb_agent_early_stop_check(l->run->early_stop, m, now - l->t0, &l->early))
		return;
	fwd = group_alive(l) && kill(-l->child, SIGTERM) == 0;
	record_signal(l, SIGTERM, fwd ? "sent_for_early_stop" : "not_forwarded");
	l->kill_at = now + kw - min_d(KILL_RESERVE, 0.3 * kw);
}

static void heartbeat(struct loop *l, double now)
{
	const struct sb_agent_metrics *m = NULL;
	enum sb_agent_metrics_now mnow = SB_METRICS_NONE;
	struct sb_agent_usage u;
	msgpack_sbuffer sb;
	uint64_t dropped, skipped;
	int rc, every;

	/* reaped descendants, plus the command itself while it runs */
	children_usage(&u);
	if (!l->child_done)
		proc_usage(l->child, &u);
	/* Live watch: new watchers are found, gone ones forgotten
	 * (agent/watch_feed.h).  The metrics file, whenever the run has one
	 * (learning curves): a stat per heartbeat, read again only when it
	 * moved; a file the command is writing right now does not parse, and
	 * the next heartbeat reads it again.  Its numbers go into the heartbeat
	 * when they changed, or at every heartbeat while an early-stop rule or
	 * a watcher reads them. */
	sb_agent_watch_scan(l->run->watch);
	every = (l->run->early_stop && l->run->early_stop->n) || sb_agent_watch_active(l->run->watch);
	if (l->run->metrics && !l->child_done)
		mnow = sb_agent_metrics_track(&l->metrics, l->run->metrics);
	if (mnow == SB_METRICS_CHANGED || (mnow == SB_METRICS_SAME && (every || l->metrics_unsent)))
		m = l->metrics.last.n > 0 ? &l->metrics.last : NULL;
	dropped = sb_agent_watch_dropped(l->run->watch);
	skipped = l->skipped;
	msgpack_sbuffer_init(&sb);
	rc = sb_agent_payload_heartbeat(&sb, now - l->t0, &u, m,
		sb_agent_watch_active(l->run->watch) ? &dropped : NULL);
	append(l, SB_RT_HEARTBEAT, &sb, rc);
	msgpack_sbuffer_destroy(&sb);
	/* a heartbeat that was never created (the log could not be written)
	 * hands its numbers to the next one */
	l->metrics_unsent = m != NULL ? l->skipped != skipped : l->metrics_unsent && mnow == SB_METRICS_SAME;
	if (mnow != SB_METRICS_NONE && l->run->early_stop && l->run->early_stop->n)
		early_stop(l, &l->metrics.last, now);
}

static size_t list_children(pid_t *out, size_t max);

/* Whether the live watch helper is our one child left (it ends after us,
 * when we close its socket).  Without /proc to say (no child listed, the
 * helper being one), the command's orphans cannot be told from it: they
 * are not waited for rather than waiting forever on the helper. */
static int only_helper_left(const struct loop *l)
{
	pid_t kids[2], helper = sb_agent_watch_pid(l->run->watch);
	size_t n;

	if (helper <= 0)
		return 0;
	n = list_children(kids, 2);
	return n == 0 || (n == 1 && kids[0] == helper);
}

/* Reaps what has ended; 1 when no child is left but the watch helper. */
static int reap(struct loop *l)
{
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p > 0) {
			if (p == l->child) {
				l->status = st;
				l->child_done = 1;
			}
			continue;
		}
		if (p == 0)
			return l->child_done && only_helper_left(l);
		if (errno == EINTR)
			continue;
		return 1;
	}
}

/* Our direct children (the command, and orphans reparented to us), at most
 * max of them; 0 when /proc does not say. */
static size_t list_children(pid_t *out, size_t max)
{
	char path[64], buf[8192], *p, *end;
	size_t k = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (p = buf; *p && k < max; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0)
			out[k++] = (pid_t)pid;
	}
	return k;
}

/* Whether the command's process group may still have members.  Once the
 * command is reaped its group id could in principle be reused by an
 * unrelated group, so it is signalled only while one of our children is
 * still in it. */
static int group_alive(const struct loop *l)
{
	pid_t kids[1024];
	size_t i, n;

	if (!l->child_done)
		return 1;
	n = list_children(kids, sizeof(kids) / sizeof(kids[0]));
	for (i = 0; i < n; i++)
		if (getpgid(kids[i]) == l->child)
			return 1;
	return 0;
}

/* SIGKILLs the command's process group and every direct child (orphans
 * reparented to us, whatever their group).  Called again after each reap,
 * since killing a process reparents its own children to us. */
static void kill_tree(struct loop *l)
{
	pid_t kids[1024];
	size_t i, n;

	if (group_alive(l))
		kill(-l->child, SIGKILL);
	n = list_children(kids, sizeof(kids) / sizeof(kids[0]));
	for (i = 0; i < n; i++)
		if (kids[i] != sb_agent_watch_pid(l->run->watch))
			kill(kids[i], SIGKILL);
}

static int is_termination(int sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

static void handle_signal(struct loop *l, int sig)
{
	int fwd;

	switch (sig) {
	case SIGCHLD:
	case SIGTTIN:
	case SIGTTOU:
		return;
	case SIGTERM: case SIGINT: case SIGHUP: case SIGQUIT:
	case SIGUSR1: case SIGUSR2:
		fwd = group_alive(l) && kill(-l->child, sig) == 0;
		record_signal(l, sig, fwd ? "forwarded" : "not_forwarded");
		/* the pre-timeout signal reached the command while it ran: it
		 * checkpoints, and the run is interrupted whatever its exit */
		if (fwd && !l->child_done && l->run->checkpoint && l->run->checkpoint->present &&
		    sig == l->run->checkpoint->signal)
			l->ckpt_sig = 1;
		if (is_termination(sig) && l->term_sig == 0) {
			double kw = l->run->kill_wait_s;
			double reserve = min_d(KILL_RESERVE, 0.3 * kw);

			l->term_sig = sig;
			l->term_at = sb_agent_now();
			l->kill_at = l->term_at + kw - reserve;
		}
		return;
	default:
		/* everything else (WINCH, CONT, TSTP, ALRM, ...) passes quietly */
		if (group_alive(l))
			kill(-l->child, sig);
		return;
	}
}

static void drain_signals(struct loop *l, int sfd)
{
	struct signalfd_siginfo si[16];

	for (;;) {
		ssize_t n = read(sfd, si, sizeof(si));
		size_t i;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		for (i = 0; i < (size_t)n / sizeof(si[0]); i++)
			handle_signal(l, (int)si[i].ssi_signo);
	}
}

/* The time by which the finish must be written: CLOCK_MONOTONIC seconds, 0
 * while no termination signal came. */
static double finish_deadline(const struct loop *l)
{
	double kw = l->run->kill_wait_s;

	return l->term_sig ? l->term_at + kw - min_d(FINISH_RESERVE, 0.1 * kw) : 0;
}

/* Asked by the hashing between chunks: the command's tree is gone, but
 * Slurm's TERM can still come (a time limit, scancel); it is read, recorded
 * and it starts the budget at once, not after the hashing.  Heartbeats go
 * on, so that a long hashing does not look like a run gone quiet. */
static double hashing_deadline(void *arg)
{
	struct loop *l = arg;
	double now;

	drain_signals(l, l->sfd);
	now = sb_agent_now();
	if (l->next_hb > 0 && now >= l->next_hb) {
		heartbeat(l, now);
		l->next_hb = now + l->run->heartbeat_s;
	}
	return finish_deadline(l);
}

/* One candidate file: exec'd, or through /bin/sh when the kernel does not
 * know its format (ENOEXEC: a script without '#!'), as POSIX asks of
 * execvp and glibc does (musl's execvp does not).  Returns errno. */
static int exec_file(const char *file, char *const argv[], char **shargv)
{
	extern char **environ;

	execve(file, argv, environ);
	if (errno != ENOEXEC)
		return errno;
	shargv[1] = (char *)file;
	execve("/bin/sh", shargv, environ);
	return ENOEXEC;
}

/* execvp's search of PATH (default "/bin:/usr/bin" as glibc's), with
 * exec_file for each candidate; only stack memory is used.  Returns errno:
 * EACCES if a candidate was found but not executable, else ENOENT or the
 * first other error. */
static int exec_search(char *const argv[], char **shargv)
{
	const char *file = argv[0], *path = getenv("PATH"), *p, *end;
	size_t fl = strlen(file);
	char buf[PATH_MAX];
	int e, eacces = 0;

	if (*file == '\0')
		return ENOENT;
	if (strchr(file, '/') != NULL)
		return exec_file(file, argv, shargv);
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (p = path;; p = end + 1) {
		size_t dl;

		end = strchrnul(p, ':');
		dl = (size_t)(end - p);
		if (dl + 1 + fl < sizeof(buf)) {
			memcpy(buf, dl ? p : ".", dl ? dl : 1);
			dl = dl ? dl : 1;
			buf[dl] = '/';
			memcpy(buf + dl + 1, file, fl + 1);
			e = exec_file(buf, argv, shargv);
			if (e == EACCES)
				eacces = 1;
			else if (e != ENOENT && e != ENOTDIR && e != ENAMETOOLONG)
				return e;
		}
		if (*end == '\0')
			break;
	}
	return eacces ? EACCES : ENOENT;
}

/* The child between vfork and exec.  It shares sbagent's memory until exec,
 * so it only makes system calls on its own stack and stores exec's errno in
 * *exec_errno for the parent (no pipe is needed: the parent resumes once
 * the child has exec'd or exited).  Signal dispositions are not reset here:
 * sbagent set every ignored one back to the default at start
 * (unignore_signals in main.c) and installs no handler, and exec resets
 * caught ones anyway, so the command starts with every disposition at its
 * default with one system call instead of 64.  shargv is the command's
 * argv behind "sh" and a free slot, made by the parent. */
static void child_exec(const struct sb_agent_run *run, int tty, char **shargv,
	volatile int *exec_errno)
{
	sigset_t none;
	int e;

	setpgid(0, 0);
	if (tty)
		tcsetpgrp(STDIN_FILENO, getpid()); /* SIGTTOU is still blocked */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	e = exec_search(run->argv, shargv);
	*exec_errno = e;
	_exit(e == ENOENT ? SB_AGENT_EXIT_NOTFOUND : SB_AGENT_EXIT_NOEXEC);
}

/* Starts the command: its pid, or -1 (errno set).  vfork, not fork: the
 * command's exec does not wait for sbagent's page tables to be copied, nor
 * sbagent for copy-on-write faults afterwards (docs/sbagent.md,
 * PERFORMANCE).  *exec_errno is 0, or why exec failed (the child has then
 * exited 126 or 127). */
static pid_t spawn(const struct sb_agent_run *run, int tty, int *exec_errno)
{
	volatile int e = 0;
	char **shargv = calloc(run->argc + 2, sizeof(*shargv));
	pid_t pid;

	if (shargv == NULL)
		return -1;
	shargv[0] = "sh";
	memcpy(shargv + 2, run->argv + 1, (run->argc - 1) * sizeof(*shargv));
	pid = vfork();
	if (pid == 0)
		child_exec(run, tty, shargv, &e);
	free(shargv);
	*exec_errno = e;
	return pid;
}

static int set_child_env(const struct sb_agent_run *run, struct sb_error *err)
{
	if (run->run_dir && setenv("SB_RUN_DIR", run->run_dir, 1) != 0)
		return sb_errorf(err, "cannot set SB_RUN_DIR: %s", strerror(errno));
	/* the signal that asks the command to checkpoint (docs/spec.md) */
	if (run->checkpoint && run->checkpoint->present &&
	    setenv("SB_CHECKPOINT_SIGNAL", run->checkpoint->signal_name, 1) != 0)
		return sb_errorf(err, "cannot set SB_CHECKPOINT_SIGNAL: %s", strerror(errno));
	if (run->metrics) {
		char path[8192];
		int n;

		if (run->metrics[0] == '/' || run->run_dir == NULL)
			n = snprintf(path, sizeof(path), "%s", run->metrics);
		else
			n = snprintf(path, sizeof(path), "%s/%s", run->run_dir, run->metrics);
		if (n < 0 || (size_t)n >= sizeof(path))
			return sb_errorf(err, "metrics path '%s' too long", run->metrics);
		if (setenv("SB_METRICS_FILE", path, 1) != 0)
			return sb_errorf(err, "cannot set SB_METRICS_FILE: %s", strerror(errno));
	}
	return 0;
}

int sb_agent_run_command(const struct sb_agent_run *run,
	struct sb_log_writer *w, struct sb_agent_outcome *out,
	struct sb_agent_result *results, struct sb_error *err)
{
	struct loop l;
	sigset_t all;
	int sfd, e = 0, tty;

	memset(out, 0, sizeof(*out));
	memset(&l, 0, sizeof(l));
	l.run = run;
	l.w = w;
	if (set_child_env(run, err) != 0)
		return -1;
	sigfillset(&all);
	sfd = signalfd(-1, &all, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		return sb_errorf(err, "cannot create a signalfd: %s", strerror(errno));
	l.sfd = sfd;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		sb_errorf(err, "cannot become a subreaper: %s", strerror(errno));
		close(sfd);
		return -1;
	}
	tty = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
	l.t0 = sb_agent_now();
	l.child = spawn(run, tty, &e);
	if (l.child < 0) {
		sb_errorf(err, "cannot start the command: vfork failed: %s", strerror(errno));
		close(sfd);
		return -1;
	}
	/* no setpgid here: the parent resumes after the child's exec, its
	 * setpgid(0, 0) done */
	if (e != 0) {
		out->exec_errno = e;
		while (waitpid(l.child, &l.status, 0) < 0 && errno == EINTR)
			;
		l.child_done = 1;
	}

	if (run->heartbeat_s > 0)
		l.next_hb = l.t0 + run->heartbeat_s;
	while (!out->exec_errno) {
		struct pollfd p = { .fd = sfd, .events = POLLIN };
		double now, wake = INFINITY;
		int timeout;

		if (reap(&l) && l.child_done)
			break;
		if (l.killed)
			kill_tree(&l);
		now = sb_agent_now();
		if (l.next_hb > 0)
			wake = l.next_hb;
		if ((l.term_sig || l.early.fired) && !l.killed && l.kill_at < wake)
			wake = l.kill_at;
		if (l.killed && now + 0.01 < wake)
			wake = now + 0.01;
		if (isinf(wake))
			timeout = -1;
		else if (wake <= now)
			timeout = 0;
		else
			timeout = poll_ms(wake - now);
		if (poll(&p, 1, timeout) > 0)
			drain_signals(&l, sfd);
		now = sb_agent_now();
		if (l.next_hb > 0 && now >= l.next_hb) {
			heartbeat(&l, now);
			l.next_hb += run->heartbeat_s;
			if (l.next_hb <= now) /* fell behind: no burst to catch up */
				l.next_hb = now + run->heartbeat_s;
		}
		if ((l.term_sig || l.early.fired) && !l.killed && now >= l.kill_at) {
			record_signal(&l, l.term_sig ? l.term_sig : SIGTERM, "kill_after_killwait");
			kill_tree(&l);
			l.killed = 1;
		}
	}
	if (tty)
		tcsetpgrp(STDIN_FILENO, getpgrp());

	out->status = l.status;
	out->wall_s = sb_agent_now() - l.t0;
	children_usage(&out->usage);
	sb_agent_results_collect(run->results, run->nresults, hashing_deadline, &l, results);
	sb_agent_metrics_track_release(&l.metrics);
	close(sfd);
	out->terminating = l.term_sig != 0;
	out->term_sig = l.term_sig;
	out->finish_deadline = finish_deadline(&l);
	if (l.term_sig)
		out->kill_deadline = l.term_at + run->kill_wait_s;
	out->records_skipped = l.skipped;
	out->early = l.early;
	out->checkpoint_signalled = l.ckpt_sig;
	return 0;
}

void sb_agent_exit_like(const struct sb_agent_outcome *out)
{
	struct rlimit none = { 0, 0 };
	struct sigaction sa;
	sigset_t one;
	int sig;

	/* _exit: nothing is left to clean up, and OpenSSL's atexit teardown
	 * costs a measurable part of the start-up budget */
	fflush(NULL);
	if (!WIFSIGNALED(out->status))
		_exit(WIFEXITED(out->status) ? WEXITSTATUS(out->status) : SB_AGENT_EXIT_SELF);
	sig = WTERMSIG(out->status);
	setrlimit(RLIMIT_CORE, &none);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	kill(getpid(), sig);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	_exit(128 + sig);
}
