/* Early stop in sbagent (docs/sbagent.md "Early stop"): the rules of the
 * spec's early_stop, read from the task map, checked at every heartbeat
 * against the metrics file the command keeps writing.  The first rule that
 * holds stops the command; the finish record says which, with the value. */
#ifndef SB_AGENT_EARLYSTOP_H
#define SB_AGENT_EARLYSTOP_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "sbench/error.h"

#define SB_EARLY_MAX_RULES 64
#define SB_EARLY_MAX_METRIC 256

struct sb_agent_metrics;

struct sb_agent_early_rule {
	char metric[SB_EARLY_MAX_METRIC + 1];
	int above;                   /* 1: above, 0: below */
	double threshold;
	char threshold_text[40];     /* as declared: "5", "0.25" */
	double after_s;              /* minimum run time */
};

struct sb_agent_early_stop {
	struct sb_agent_early_rule rules[SB_EARLY_MAX_RULES];
	size_t n;                    /* 0: no rules, nothing is read at heartbeats */
};

/* The rule that held: filled by sb_agent_early_stop_check. */
struct sb_agent_early_hit {
	int fired;
	size_t index;                /* the rule's position in early_stop */
	double value;                /* the metric's value then */
	int value_is_int;
	int64_t value_i;
	double elapsed_s;            /* run time when it held */
};

/* Reads the task map's early_stop (o may be NULL or nil: no rules).  -1
 * with a message when it is not a list of {metric, above|below, after}. */
int sb_agent_early_stop_load(struct sb_agent_early_stop *es, const msgpack_object *o,
			     struct sb_error *err);

/* The first rule whose metric is in m and holds after elapsed_s seconds of
 * run time: 1 with hit filled; 0 when none holds (a metric not in the file
 * yet holds nothing). */
int sb_agent_early_stop_check(const struct sb_agent_early_stop *es,
			      const struct sb_agent_metrics *m, double elapsed_s,
			      struct sb_agent_early_hit *hit);

/* The finish record's early_stop value: {"after_s", "declared_after_s",
 * "index", "metric", "rule", "value"}, rule being "above 5" or "below 0.1". */
int sb_agent_pack_early_stop(msgpack_packer *pk, const struct sb_agent_early_stop *es,
			     const struct sb_agent_early_hit *hit);

#endif
