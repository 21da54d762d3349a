/* The early stop as sbctl reads it back: the early_stop object of a
 * verified finish record (written by sbagent, docs/event-log.md) turned
 * into the reason of class `stopped` (docs/classification.md). */
#ifndef SB_CTL_EARLYSTOP_H
#define SB_CTL_EARLYSTOP_H

#include <msgpack.h>

/* *reason = "loss=7.3 above 5 after 600 s, as declared" (the rule's after)
 * (malloc'd) when o is a finish record's early_stop map; NULL when o is
 * NULL or nil.  A map that lacks its keys still gives a reason (the
 * record is verified: the run was stopped).  -1 when out of memory. */
int sb_early_stop_reason(const msgpack_object *o, char **reason);

#endif
