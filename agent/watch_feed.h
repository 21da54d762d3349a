/* sbagent's side of live watch (docs/watch.md): the endpoint files of the
 * benchmark's watch/ directory are looked at when the run starts and at
 * every heartbeat; only when one exists is the helper sbagent-watch
 * started, which holds libzmq and the sockets (agent/sender.h).  sbagent
 * hands it every record's frame over a socket pair without ever blocking;
 * what could not be handed over or sent is counted for the next heartbeat.
 * sbagent itself links no libzmq and loads nothing (it is a static
 * program). */
#ifndef SB_AGENT_WATCH_FEED_H
#define SB_AGENT_WATCH_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The helper's name, beside sbagent (a build tree's bin/) or in
 * ../libexec/sbench/ from it (an installation). */
#define SB_AGENT_WATCH_HELPER "sbagent-watch"

/* What goes over the socket pair: one message a datagram, its first byte
 * the kind.  To the helper: SCAN (look at the endpoint files again) and
 * FRAME (the frame follows).  From the helper, after each SCAN: REPORT, a
 * uint64_t (native byte order) of frames dropped so far. */
enum {
	SB_WATCH_MSG_SCAN = 'S',
	SB_WATCH_MSG_FRAME = 'F',
	SB_WATCH_MSG_REPORT = 'D',
};

struct sb_agent_watch;

/* For the benchmark directory dir and this host's short name.  Looks at
 * nothing yet (the helper is looked for only when a watcher exists); NULL
 * when out of memory (then no watch). */
struct sb_agent_watch *sb_agent_watch_create(const char *dir, const char *host);

/* The helper's path for the sbagent at self (its /proc/self/exe) into buf;
 * -1 when neither place has it. */
int sb_agent_watch_find_helper(const char *self, char *buf, size_t size);

/* Looks at the endpoint files: with one (a watcher whose process is not
 * known gone) the helper is started, once, and from then on told to look
 * again.  Never blocks; a helper that cannot be started or that died is
 * told once on stderr and the run goes on. */
void sb_agent_watch_scan(struct sb_agent_watch *w);

/* A struct sb_log_writer tap: hands frame[0..len) to the helper without
 * blocking; a frame the socket pair cannot take is dropped and counted.
 * arg is the struct sb_agent_watch (NULL: nothing). */
void sb_agent_watch_send(void *arg, const void *frame, size_t len);

/* Whether a watcher was ever found (heartbeats then carry watch_dropped),
 * and the frames dropped so far, here and in the helper (its count as of
 * its last report). */
bool sb_agent_watch_active(const struct sb_agent_watch *w);
uint64_t sb_agent_watch_dropped(struct sb_agent_watch *w);

/* The helper's pid, or 0: it is sbagent's child, which the run's reaping
 * and killing leave alone. */
pid_t sb_agent_watch_pid(const struct sb_agent_watch *w);

/* The one warning of live watch going off, on stderr (sbagent's or its
 * helper's): what failed, and why (NULL: nothing more to say). */
void sb_agent_watch_warn(const char *what, const char *why);

/* Closes the socket pair (the helper sends what it holds, then exits) and
 * frees w.  Accepts NULL. */
void sb_agent_watch_destroy(struct sb_agent_watch *w);

#endif
