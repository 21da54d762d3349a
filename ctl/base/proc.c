#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/proc.h"

struct capture {
	int fd;
	char *buf;
	size_t len, max;
	int truncated;
	int (*sink)(void *arg, const char *data, size_t len); /* not NULL: nothing kept */
	void *sink_arg;
	int sink_rc;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads what is available on c->fd; returns 0 at EOF (fd closed), 1 to go on. */
static int capture_read(struct capture *c)
{
	char tmp[8192];
	ssize_t n = read(c->fd, tmp, sizeof(tmp));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (n <= 0) {
		close(c->fd);
		c->fd = -1;
		return 0;
	}
	if (c->sink != NULL) {
		if (c->sink_rc == 0)
			c->sink_rc = c->sink(c->sink_arg, tmp, (size_t)n);
		return 1;
	}
	if (c->len < c->max) {
		size_t take = (size_t)n;
		if (take > c->max - c->len) {
			take = c->max - c->len;
			c->truncated = 1;
		}
		memcpy(c->buf + c->len, tmp, take);
		c->len += take;
	} else {
		c->truncated = 1;
	}
	return 1;
}

/* The child side of the fork: its own process group, dies with sbctl, the
 * pipes wired; exec; never returns. */
static void exec_child(char *const argv[], pid_t parent, int out_fd, int err_fd, int report_fd)
{
	int devnull = open("/dev/null", O_RDONLY);
	sigset_t none;

	setpgid(0, 0);
	/* sbctl killed (even by SIGKILL) takes the program with it, so that an
	 * sbatch cannot submit after the sbctl that would record its job id is
	 * gone; getppid() catches a parent that died before the prctl */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (devnull >= 0)
		dup2(devnull, 0);
	dup2(out_fd, 1);
	dup2(err_fd, 2);
	execvp(argv[0], argv);
	{
		int e = errno;
		ssize_t w = write(report_fd, &e, sizeof(e));
		(void)w;
	}
	_exit(127);
}

void sb_proc_interrupts(sigset_t *set)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	size_t i;

	sigemptyset(set);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa;
		if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			continue;
		sigaddset(set, sigs[i]);
	}
}

void sb_proc_defer_interrupts(sigset_t *saved)
{
	sigset_t set;

	sb_proc_interrupts(&set);
	sigprocmask(SIG_BLOCK, &set, saved);
}

/* An interrupt signal that is pending (blocked), taken; or 0. */
static int take_interrupt(void)
{
	static const struct timespec zero = { 0, 0 };
	sigset_t set;
	int sig;

	sb_proc_interrupts(&set);
	while ((sig = sigtimedwait(&set, NULL, &zero)) < 0 && errno == EINTR)
		;
	return sig > 0 ? sig : 0;
}

int sb_proc_resume_interrupts(const sigset_t *saved)
{
	int sig = take_interrupt(), more;

	while ((more = take_interrupt()) > 0) /* one of each kind can be pending */
		;
	sigprocmask(SIG_SETMASK, saved, NULL);
	return sig;
}

/* 1 once the child has exited; it stays a zombie (WNOWAIT) so that its pid,
 * which is also its process group id, cannot be reused before the group is
 * killed. */
static int child_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno != EINTR;
	return si.si_pid == pid;
}

static int64_t min_ms(int64_t a, int64_t b)
{
	return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

/* A file descriptor that polls readable once pid has exited (pidfd_open,
 * Linux 5.3), or -1 where there is none. */
static int exit_fd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

/* Reads the program's output until it is over (see sb_proc_run_opts) and
 * kills it on time; returns when the pipes may be closed. */
static void supervise(pid_t pid, struct capture cap[2], const struct sb_proc_opts *o,
		      struct sb_proc_result *res)
{
	int64_t start = now_ms(), deadline = o->timeout_ms > 0 ? start + o->timeout_ms : 0;
	int64_t kill_at = 0, exited_at = 0;
	int xfd = exit_fd(pid);

	for (;;) {
		struct pollfd pfd[3];
		int64_t now = now_ms(), next;
		int i, sig;

		if (!exited_at && child_exited(pid))
			exited_at = now;
		if (exited_at && ((cap[0].fd < 0 && cap[1].fd < 0) || now >= exited_at + SB_PROC_GRACE_MS)) {
			if (xfd >= 0)
				close(xfd);
			return;
		}
		while (o->interrupt_wait_ms > 0 && (sig = take_interrupt()) > 0) {
			if (res->interrupted == 0) {
				res->interrupted = sig;
				deadline = min_ms(deadline, now + o->interrupt_wait_ms);
			} else if (!exited_at) {
				kill(-pid, SIGKILL); /* interrupted twice: now */
				kill(pid, SIGKILL);
			}
		}
		if (!exited_at && deadline && now >= deadline && !kill_at) {
			kill(-pid, SIGTERM);
			kill(pid, SIGTERM);
			res->timed_out = 1;
			kill_at = now + SB_PROC_KILL_AFTER_MS;
		} else if (!exited_at && kill_at && now >= kill_at) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			kill_at = now + 50; /* again, until it is gone */
		}
		/* wake up for the next event: the program's exit (its pidfd) or,
		 * without one, at least every 50 ms to notice it while a
		 * descendant keeps the pipes open, every 1 ms once they are
		 * closed (the program is then exiting: sbatch's answer is not
		 * held back up to 50 ms) */
		next = exited_at ? exited_at + SB_PROC_GRACE_MS
			: now + (xfd >= 0 ? 50 : cap[0].fd < 0 && cap[1].fd < 0 ? 1 : 50);
		if (!exited_at && !kill_at && deadline && deadline < next)
			next = deadline;
		if (!exited_at && kill_at && kill_at < next)
			next = kill_at;
		for (i = 0; i < 2; i++)
			pfd[i] = (struct pollfd){ .fd = cap[i].fd, .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = exited_at ? -1 : xfd, .events = POLLIN };
		if (poll(pfd, 3, next > now ? (int)(next - now) : 0) < 0 && errno != EINTR) {
			if (xfd >= 0)
				close(xfd);
			return;
		}
		for (i = 0; i < 2; i++)
			if (cap[i].fd >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				capture_read(&cap[i]);
	}
}

int sb_proc_run_opts(char *const argv[], const struct sb_proc_opts *o,
		     struct sb_proc_result *res, struct sb_error *err)
{
	int out_pipe[2], err_pipe[2], rep_pipe[2], exec_errno = 0;
	struct capture cap[2];
	pid_t pid, self = getpid();
	ssize_t n;

	memset(res, 0, sizeof(*res));
	res->exit_code = -1;
	if (pipe2(out_pipe, O_CLOEXEC) < 0)
		return sb_errorf(err, "cannot run '%s': pipe: %s", argv[0], strerror(errno));
	if (pipe2(err_pipe, O_CLOEXEC) < 0) {
		close(out_pipe[0]);
		close(out_pipe[1]);
		return sb_errorf(err, "cannot run '%s': pipe: %s", argv[0], strerror(errno));
	}
	if (pipe2(rep_pipe, O_CLOEXEC) < 0) {
		close(out_pipe[0]); close(out_pipe[1]);
		close(err_pipe[0]); close(err_pipe[1]);
		return sb_errorf(err, "cannot run '%s': pipe: %s", argv[0], strerror(errno));
	}
	cap[0] = (struct capture){ .fd = out_pipe[0], .max = o->out_sink ? 0 : o->max_output,
				   .sink = o->out_sink, .sink_arg = o->out_sink_arg };
	cap[1] = (struct capture){ .fd = err_pipe[0], .max = o->max_output };
	cap[0].buf = malloc(cap[0].max + 1);
	cap[1].buf = malloc(o->max_output + 1);
	pid = cap[0].buf && cap[1].buf ? fork() : -1;
	if (pid < 0) {
		int e = errno;
		close(out_pipe[0]); close(out_pipe[1]);
		close(err_pipe[0]); close(err_pipe[1]);
		close(rep_pipe[0]); close(rep_pipe[1]);
		if (cap[0].buf == NULL || cap[1].buf == NULL) {
			free(cap[0].buf);
			free(cap[1].buf);
			return sb_error_set(err, SB_ERR_NOMEM, "cannot run '%s': out of memory", argv[0]);
		}
		free(cap[0].buf);
		free(cap[1].buf);
		return sb_errorf(err, "cannot run '%s': fork: %s", argv[0], strerror(e));
	}
	if (pid == 0)
		exec_child(argv, self, out_pipe[1], err_pipe[1], rep_pipe[1]);
	setpgid(pid, pid); /* also here: no window where the group does not exist */
	close(out_pipe[1]);
	close(err_pipe[1]);
	close(rep_pipe[1]);
	while ((n = read(rep_pipe[0], &exec_errno, sizeof(exec_errno))) < 0 && errno == EINTR)
		;
	close(rep_pipe[0]);

	supervise(pid, cap, o, res);
	for (int i = 0; i < 2; i++)
		if (cap[i].fd >= 0)
			close(cap[i].fd);
	kill(-pid, SIGKILL); /* what is left of the group; pid is not reaped yet */
	if (!child_exited(pid))
		kill(pid, SIGKILL);
	while (waitpid(pid, &res->status, 0) < 0 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof(exec_errno)) {
		free(cap[0].buf);
		free(cap[1].buf);
		return sb_errorf(err, exec_errno == ENOENT ? "'%s' not found in PATH"
				 : "cannot run '%s': %s", argv[0], strerror(exec_errno));
	}
	if (WIFEXITED(res->status))
		res->exit_code = WEXITSTATUS(res->status);
	else if (WIFSIGNALED(res->status))
		res->term_signal = WTERMSIG(res->status);
	res->out = cap[0].buf;
	res->out_len = cap[0].len;
	res->out[res->out_len] = '\0';
	res->err = cap[1].buf;
	res->err_len = cap[1].len;
	res->err[res->err_len] = '\0';
	res->truncated = cap[0].truncated || cap[1].truncated;
	res->sink_rc = cap[0].sink_rc;
	return 0;
}

int sb_proc_run(char *const argv[], size_t max_output, int timeout_ms,
		struct sb_proc_result *res, struct sb_error *err)
{
	struct sb_proc_opts o = { .max_output = max_output, .timeout_ms = timeout_ms };

	return sb_proc_run_opts(argv, &o, res, err);
}

void sb_proc_result_release(struct sb_proc_result *res)
{
	if (res == NULL)
		return;
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
}

void sb_sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}
