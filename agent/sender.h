/* The ZeroMQ side of live watch (docs/watch.md), run by the helper
 * sbagent-watch, never by sbagent itself: the endpoint files of the
 * benchmark's watch/ directory, looked at when asked; libzmq loaded
 * (dlopen) only when one exists; every record's frame sent to each watcher
 * without ever blocking; what could not be sent counted. */
#ifndef SB_AGENT_SENDER_H
#define SB_AGENT_SENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SB_SENDER_MAX_WATCHERS 16     /* endpoint files beyond are ignored */
#define SB_AGENT_SENDER_HWM 16        /* frames queued per watcher at most */

struct sb_agent_sender;

/* For the benchmark directory dir and this host's short name.  Looks at
 * nothing yet; NULL when out of memory (then no watch). */
struct sb_agent_sender *sb_agent_sender_create(const char *dir, const char *host);

/* Looks at the endpoint files again: connects to new watchers, forgets the
 * ones whose file went.  Never blocks on the network; a watcher that cannot
 * be used (a bad file, libzmq or the key missing) is told once on stderr and
 * the run goes on. */
void sb_agent_sender_scan(struct sb_agent_sender *w);

/* A struct sb_log_writer tap: sends frame[0..len) to every watcher with
 * ZMQ_DONTWAIT; a frame a watcher's queue cannot take is dropped and
 * counted.  arg is the struct sb_agent_sender (NULL: nothing). */
void sb_agent_sender_send(void *arg, const void *frame, size_t len);

/* Whether a watcher was ever found (heartbeats then carry watch_dropped),
 * and the frames dropped so far. */
bool sb_agent_sender_active(const struct sb_agent_sender *w);
uint64_t sb_agent_sender_dropped(const struct sb_agent_sender *w);

/* Closes every socket, waiting at most linger_ms for the frames still
 * queued (0: drops them), and frees w.  Accepts NULL. */
void sb_agent_sender_destroy(struct sb_agent_sender *w, int linger_ms);

#endif
