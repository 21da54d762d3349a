/* Live watch, sbagent's side (agent/watch_feed.h, docs/watch.md): the helper
 * sbagent-watch is started at the first endpoint file and fed over a
 * SOCK_SEQPACKET socket pair, one datagram a message, never waiting. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "agent/watch_feed.h"
#include "proto/watchfmt.h"

struct sb_agent_watch {
	char bench[PATH_MAX];        /* the benchmark directory */
	char dir[PATH_MAX];          /* its watch/ */
	char host[256];
	bool active, broken;
	int fd;                      /* our end of the socket pair, -1 */
	pid_t pid;                   /* the helper, 0 */
	uint64_t dropped_here;       /* frames the socket pair did not take */
	uint64_t dropped_there;      /* the helper's count, as last reported */
};

struct sb_agent_watch *sb_agent_watch_create(const char *dir, const char *host)
{
	struct sb_agent_watch *w = calloc(1, sizeof(*w));
	int a, b;

	if (w == NULL)
		return NULL;
	a = snprintf(w->bench, sizeof(w->bench), "%s", dir);
	b = snprintf(w->dir, sizeof(w->dir), "%s/%s", dir, SB_WATCH_DIR);
	if (a < 0 || (size_t)a >= sizeof(w->bench) || b < 0 || (size_t)b >= sizeof(w->dir)) {
		free(w);
		return NULL;
	}
	snprintf(w->host, sizeof(w->host), "%s", host);
	w->fd = -1;
	return w;
}

int sb_agent_watch_find_helper(const char *self, char *buf, size_t size)
{
	static const char *const where[] = { "", "../libexec/sbench/" };
	const char *slash = strrchr(self, '/');
	size_t dl = slash ? (size_t)(slash - self + 1) : 0, i;

	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		int n = snprintf(buf, size, "%.*s%s%s", (int)dl, self, where[i], SB_AGENT_WATCH_HELPER);

		if (n >= 0 && (size_t)n < size && access(buf, X_OK) == 0)
			return 0;
	}
	return -1;
}

void sb_agent_watch_warn(const char *what, const char *why)
{
	fprintf(stderr, "sbagent: warning: live watch off: %s%s%s (the log files have "
		"every record)\n", what, why ? ": " : "", why ? why : "");
}

/* Told once: the run goes on without live watch. */
static void give_up(struct sb_agent_watch *w, const char *what, const char *why)
{
	w->broken = true;
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	sb_agent_watch_warn(what, why);
}

/* Whether watch/ has an endpoint file of a watcher that may be alive. */
static bool any_watcher(const struct sb_agent_watch *w)
{
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(w->dir);

	if (d == NULL)
		return false;
	while (!found && (de = readdir(d)) != NULL)
		found = sb_watch_name_usable(de->d_name, w->host);
	closedir(d);
	return found;
}

/* The helper, with its end of the socket pair as fd 3, /dev/null as its
 * stdin and stdout (a shell reading sbagent's output does not wait for
 * it), stderr the job's, and every signal still blocked (it ends when the
 * pair closes, after sending what it holds, not at the job's SIGTERM). */
static int start(struct sb_agent_watch *w)
{
	char self[PATH_MAX], helper[PATH_MAX + 64];
	char *argv[] = { helper, w->bench, w->host, NULL };
	posix_spawn_file_actions_t fa;
	extern char **environ;
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int sv[2], rc;

	self[sl > 0 ? sl : 0] = '\0';
	if (sb_agent_watch_find_helper(self, helper, sizeof(helper)) != 0) {
		give_up(w, "no " SB_AGENT_WATCH_HELPER " beside sbagent", NULL);
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		give_up(w, "cannot make a socket pair", strerror(errno));
		return -1;
	}
	rc = posix_spawn_file_actions_init(&fa);
	if (rc == 0) {
		rc = posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
		if (rc == 0)
			rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
		if (rc == 0)
			rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		if (rc == 0)
			rc = posix_spawn(&w->pid, helper, &fa, NULL, argv, environ);
		posix_spawn_file_actions_destroy(&fa);
	}
	close(sv[1]);
	w->fd = sv[0];
	if (rc != 0) {
		w->pid = 0;
		give_up(w, "cannot start " SB_AGENT_WATCH_HELPER, strerror(rc));
		return -1;
	}
	return 0;
}

/* Sends one message; false (and broken, told) when the helper is gone. */
static bool put(struct sb_agent_watch *w, char kind, const void *data, size_t len)
{
	struct iovec iov[2] = { { &kind, 1 }, { (void *)data, len } };
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = data ? 2 : 1 };

	if (w->fd < 0)
		return false;
	if (sendmsg(w->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
		return true;
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EMSGSIZE || errno == ENOBUFS ||
	    errno == EINTR) {
		w->dropped_here += kind == SB_WATCH_MSG_FRAME;
		return true;
	}
	give_up(w, SB_AGENT_WATCH_HELPER " has ended", strerror(errno));
	return false;
}

/* Takes the helper's reports that have come, without waiting. */
static void take_reports(struct sb_agent_watch *w)
{
	unsigned char msg[1 + sizeof(uint64_t)];
	ssize_t n;

	while (w->fd >= 0 && (n = recv(w->fd, msg, sizeof(msg), MSG_DONTWAIT)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				give_up(w, SB_AGENT_WATCH_HELPER " has ended", strerror(errno));
			return;
		}
		if (n == (ssize_t)sizeof(msg) && msg[0] == SB_WATCH_MSG_REPORT)
			memcpy(&w->dropped_there, msg + 1, sizeof(uint64_t));
	}
	if (w->fd >= 0)
		give_up(w, SB_AGENT_WATCH_HELPER " has ended", NULL);
}

void sb_agent_watch_scan(struct sb_agent_watch *w)
{
	if (w == NULL || w->broken)
		return;
	if (w->fd < 0) {
		if (!any_watcher(w))
			return;
		w->active = true;
		if (start(w) != 0)
			return;
	}
	take_reports(w);
	put(w, SB_WATCH_MSG_SCAN, NULL, 0);
}

void sb_agent_watch_send(void *arg, const void *frame, size_t len)
{
	struct sb_agent_watch *w = arg;

	if (w != NULL && !w->broken)
		put(w, SB_WATCH_MSG_FRAME, frame, len);
}

bool sb_agent_watch_active(const struct sb_agent_watch *w)
{
	return w != NULL && w->active;
}

uint64_t sb_agent_watch_dropped(struct sb_agent_watch *w)
{
	if (w == NULL)
		return 0;
	take_reports(w);
	return w->dropped_here + w->dropped_there;
}

pid_t sb_agent_watch_pid(const struct sb_agent_watch *w)
{
	return w != NULL ? w->pid : 0;
}

void sb_agent_watch_destroy(struct sb_agent_watch *w)
{
	if (w == NULL)
		return;
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}
