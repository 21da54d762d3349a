/* sbagent-watch BENCH_DIR HOST: live watch's sender for one sbagent
 * (docs/watch.md).  Started by sbagent (agent/watch_feed.c) when the benchmark
 * has a watcher, with the socket pair as fd 3: a SCAN makes it look at the
 * endpoint files again and report its dropped count, a FRAME goes to every
 * watcher (agent/sender.h).  When sbagent closes the pair (it has ended)
 * the frames still queued get a short linger, and the helper exits.  Not a
 * command for people: it says so and exits 2 when started by hand. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/sender.h"
#include "agent/watch_feed.h"
#include "sbench/log.h"

#define LINGER_MS 200           /* for the last frames, once sbagent ended */

static unsigned char msg[1 + SB_LOG_BODY_MAX + 4096];

int main(int argc, char **argv)
{
	struct sb_agent_sender *s;
	sigset_t all;
	int type = 0;
	socklen_t tl = sizeof(type);

	if (argc != 3 || getsockopt(3, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 ||
	    type != SOCK_SEQPACKET) {
		fprintf(stderr, "usage: %s BENCH_DIR HOST (started by sbagent, with its socket "
			"as fd 3; not a command of its own)\n", argv[0]);
		return 2;
	}
	/* the job's SIGTERM is for the command: this ends when sbagent does */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	s = sb_agent_sender_create(argv[1], argv[2]);
	if (s == NULL) {
		sb_agent_watch_warn("out of memory", NULL);
		return 1;
	}
	for (;;) {
		ssize_t n = recv(3, msg, sizeof(msg), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (msg[0] == SB_WATCH_MSG_FRAME) {
			sb_agent_sender_send(s, msg + 1, (size_t)n - 1);
		} else if (msg[0] == SB_WATCH_MSG_SCAN) {
			unsigned char rep[1 + sizeof(uint64_t)] = { SB_WATCH_MSG_REPORT };
			uint64_t d;

			sb_agent_sender_scan(s);
			d = sb_agent_sender_dropped(s);
			memcpy(rep + 1, &d, sizeof(d));
			send(3, rep, sizeof(rep), MSG_DONTWAIT | MSG_NOSIGNAL);
		}
	}
	sb_agent_sender_destroy(s, LINGER_MS);
	return 0;
}
