#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl/proc.h"

struct capture {
	int fd;
	char *buf;
	size_t len, max;
	int truncated;
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

/* The child side of the fork: wire the pipes and exec; never returns. */
static void exec_child(char *const argv[], int out_fd, int err_fd, int report_fd)
{
	int devnull = open("/dev/null", O_RDONLY);
	sigset_t none;

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

int sb_proc_run(char *const argv[], size_t max_output, int timeout_ms,
		struct sb_proc_result *res, struct sb_error *err)
{
	int out_pipe[2], err_pipe[2], rep_pipe[2], exec_errno = 0;
	struct capture cap[2];
	int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0, kill_at = 0;
	pid_t pid;
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
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close(out_pipe[0]); close(out_pipe[1]);
		close(err_pipe[0]); close(err_pipe[1]);
		close(rep_pipe[0]); close(rep_pipe[1]);
		return sb_errorf(err, "cannot run '%s': fork: %s", argv[0], strerror(e));
	}
	if (pid == 0)
		exec_child(argv, out_pipe[1], err_pipe[1], rep_pipe[1]);
	close(out_pipe[1]);
	close(err_pipe[1]);
	close(rep_pipe[1]);
	while ((n = read(rep_pipe[0], &exec_errno, sizeof(exec_errno))) < 0 && errno == EINTR)
		;
	close(rep_pipe[0]);

	cap[0] = (struct capture){ .fd = out_pipe[0], .max = max_output };
	cap[1] = (struct capture){ .fd = err_pipe[0], .max = max_output };
	cap[0].buf = malloc(max_output + 1);
	cap[1].buf = malloc(max_output + 1);
	if (cap[0].buf == NULL || cap[1].buf == NULL) {
		kill(pid, SIGKILL);
		close(out_pipe[0]);
		close(err_pipe[0]);
		while (waitpid(pid, &res->status, 0) < 0 && errno == EINTR)
			;
		free(cap[0].buf);
		free(cap[1].buf);
		return sb_errorf(err, "cannot run '%s': out of memory", argv[0]);
	}
	while (cap[0].fd >= 0 || cap[1].fd >= 0) {
		struct pollfd pfd[2];
		int i, wait_ms = -1;

		for (i = 0; i < 2; i++)
			pfd[i] = (struct pollfd){ .fd = cap[i].fd, .events = POLLIN };
		if (deadline) {
			int64_t left = (kill_at ? kill_at : deadline) - now_ms();
			wait_ms = left > 0 ? (int)left : 0;
		}
		if (poll(pfd, 2, wait_ms) < 0 && errno != EINTR)
			break;
		for (i = 0; i < 2; i++)
			if (cap[i].fd >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				capture_read(&cap[i]);
		if (deadline && now_ms() >= deadline && !kill_at) {
			kill(pid, SIGTERM);
			res->timed_out = 1;
			kill_at = now_ms() + 1000;
		} else if (kill_at && now_ms() >= kill_at) {
			kill(pid, SIGKILL);
			kill_at = 0;
			deadline = 0;
		}
	}
	for (int i = 0; i < 2; i++)
		if (cap[i].fd >= 0)
			close(cap[i].fd);
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
	return 0;
}

void sb_proc_result_release(struct sb_proc_result *res)
{
	if (res == NULL)
		return;
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
}
