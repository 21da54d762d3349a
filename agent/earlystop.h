/* Early stop in sbagent (docs/sbagent.md "Early stop"): the rules of the
 * spec's early_stop, read from the task map (proto/earlystop.h), checked at every heartbeat
 * against the metrics file the command keeps writing.  The first rule that
 * holds stops the command; the finish record says which, with the value. */
#ifndef SB_AGENT_EARLYSTOP_H
#define SB_AGENT_EARLYSTOP_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "proto/earlystop.h"
#include "sbench/error.h"

struct sb_agent_metrics;

/* The rule that held: filled by sb_agent_early_stop_check. */
struct sb_agent_early_hit {
	int fired;
	size_t index;                /* the rule's position in early_stop */
	double value;                /* the metric's value then */
	int value_is_int;
	int64_t value_i;
	double elapsed_s;            /* run time when it held */
	int at_finish;               /* it held on the final metrics, after the
	                                command had exited by itself */
};

/* The first rule whose metric is in m and holds after elapsed_s seconds of
 * run time: 1 with hit filled; 0 when none holds (a metric not in the file
 * yet holds nothing). */
int sb_agent_early_stop_check(const struct sb_early_stop_rules *es,
			      const struct sb_agent_metrics *m, double elapsed_s,
			      struct sb_agent_early_hit *hit);

/* The finish record's early_stop value: {"after_s", "declared_after_s",
 * "index", "metric", "rule", "value"}, rule being "above 5" or "below 0.1",
 * and "at_finish": true when the rule held only on the final metrics. */
int sb_agent_pack_early_stop(msgpack_packer *pk, const struct sb_early_stop_rules *es,
			     const struct sb_agent_early_hit *hit);

#endif
