/* A verified finish record as sbctl reads it back (written by sbagent,
 * docs/event-log.md): its metrics, and its early_stop object turned into
 * the reason of class `stopped` (docs/classification.md). */
#ifndef SB_CTL_FINISH_H
#define SB_CTL_FINISH_H

#include <stdbool.h>
#include <stdint.h>

#include <msgpack.h>

/* One metric of a verified finish record. */
struct sb_metric {
	char *name;   /* in a status: interned (its stores), never freed alone */
	double value;
	bool is_int;
	int64_t i;
};

struct msgpack_object;
/* The value of a metric as a record holds it into m (value, is_int, i):
 * false when v is not a number.  An integer beyond int64 is kept as a
 * float. */
bool sb_metric_value(const struct msgpack_object *v, struct sb_metric *m);

/* *reason = "loss=7.3 above 5 after 600 s, as declared" (the rule's after;
 * "...; held on the final metrics, after the command exited by itself" when
 * the record's at_finish says so)
 * (malloc'd) when o is a finish record's early_stop map; NULL when o is
 * NULL or nil.  A map that lacks its keys still gives a reason (the
 * record is verified: the run was stopped).  -1 when out of memory. */
int sb_early_stop_reason(const msgpack_object *o, char **reason);

/* *reason (malloc'd) says how a run with a checkpoint section ended early
 * when the finish record pl has `interrupted`: "interrupted by SIGUSR1
 * before the time limit at restart 1 with checkpoint 3fa2c1d09e8b, and
 * requeued", "gave up after 3 restarts: ...", "interrupted by SIGTERM at
 * restart 0 with checkpoint none"; NULL when it has none.  -1 when out of
 * memory. */
int sb_interrupted_reason(const msgpack_object *pl, char **reason);

/* The digest a record holds under key (hex, 64 characters) into out
 * (65 bytes): 1, 0 when it is nil or absent, -1 when it is something
 * else. */
int sb_record_digest(const msgpack_object *pl, const char *key, char out[65]);

#endif
