/* Early-stop rules (docs/spec.md "Early stop"), the part the spec loader
 * and sbagent share: the limits of a rule, its keys (the spec's mapping and
 * the task map's, the same words), the rule as sbagent holds it, read from
 * the task map, and the rule's text in the finish record ("above 5").  The
 * spec loader (ctl/spec/spec_earlystop.c) checks the YAML and writes the
 * task map's rules; sbagent (agent/earlystop.c) checks them at heartbeats
 * and writes the hit, under the keys of proto/recordkeys.h. */
#ifndef SB_PROTO_EARLYSTOP_H
#define SB_PROTO_EARLYSTOP_H

#include <stdbool.h>
#include <stddef.h>

#include <msgpack.h>

#include "sbench/error.h"

#define SB_EARLY_STOP_MAX_RULES 64
#define SB_EARLY_STOP_MAX_METRIC 256      /* bytes of a metric's name */
#define SB_EARLY_STOP_MAX_AFTER 10000000  /* seconds: about 115 days */
#define SB_EARLY_STOP_NUMBER_TEXT 40      /* room for a number's text */

/* A rule's keys: {metric, above | below, after}. */
#define SB_ES_ABOVE "above"
#define SB_ES_AFTER "after"
#define SB_ES_BELOW "below"
#define SB_ES_METRIC "metric"

struct sb_early_stop_rule {
	char metric[SB_EARLY_STOP_MAX_METRIC + 1];
	bool above;                                    /* true: above, false: below */
	double threshold;
	char threshold_text[SB_EARLY_STOP_NUMBER_TEXT]; /* as declared: "5", "0.25" */
	double after_s;                                /* minimum run time */
};

struct sb_early_stop_rules {
	struct sb_early_stop_rule v[SB_EARLY_STOP_MAX_RULES];
	size_t n; /* 0: no rules */
};

/* Reads the task map's early_stop (o may be NULL or nil: no rules) into
 * es.  -1 with a message when it is not a list of at most
 * SB_EARLY_STOP_MAX_RULES {metric, above or below, after}, a metric of 1 to
 * SB_EARLY_STOP_MAX_METRIC bytes without NUL, finite numbers, after >= 0. */
int sb_early_stop_rules_decode(struct sb_early_stop_rules *es, const msgpack_object *o,
			       struct sb_error *err);

/* The rule as the finish record states it, "above 5" or "below 0.25" (the
 * threshold as declared), into buf; returns buf. */
const char *sb_early_stop_rule_text(const struct sb_early_stop_rule *r, char *buf, size_t size);

#endif
