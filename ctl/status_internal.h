/* What the files of the status pipeline share, private to them: status.c
 * runs the stages of sb_status_gather and reads sbctl's own records,
 * status_sched.c asks the scheduler, status_logs.c reads and verifies the
 * logs and the results they name. */
#ifndef SB_CTL_STATUS_INTERNAL_H
#define SB_CTL_STATUS_INTERNAL_H

#include <stdint.h>
#include <time.h>

#include <msgpack.h>

#include "ctl/status.h"
#include "proto/mpcheck.h"
#include "sbench/error.h"
#include "sbench/key.h"

static inline int64_t sb_status_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The integer at key of a msgpack map, dflt when there is none. */
static inline int64_t sb_status_mp_int(const msgpack_object *map, const char *key, int64_t dflt)
{
	const msgpack_object *o = sb_mp_get(map, key);

	if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX)
		return (int64_t)o->via.u64;
	if (o && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		return o->via.i64;
	return dflt;
}

/* The scheduler stage: takes st->asked_ns, then (unless o->offline) one
 * squeue call and the sacct calls for every submitted attempt, and gives
 * each its row.  -1 with err when the scheduler does not answer
 * (st->sched_failed, SB_ERR_SCHEDULER) or out of memory. */
int sb_status_ask_scheduler(struct sb_status *st, const struct sb_status_cfg *o,
			    struct sb_error *err);

/* The logs stage: takes st->now_ns, then finds each attempt's log in
 * events/, verifies it with key and reads its start and finish, and checks
 * the results a verified finish hashed.  The local index of the context
 * caches heads and hashes when it can be opened.  -1 with err when a log
 * cannot be read or out of memory. */
int sb_status_read_logs(struct sb_status *st, const struct sb_key *key,
			const struct sb_status_cfg *o, struct sb_error *err);

#endif
