/* Stage 7, the early-stop rules that could not have stopped anything
 * (status/status_stages.h): a rule whose metric no finished child's metrics
 * file ever had is a misspelt name or a metric the command never writes;
 * it is said, with the names the files did have, instead of staying quiet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_private.h"
#include "spec/spec_earlystop.h"
#include "spec/spec_private.h"
#include "status/status_stages.h"

#define NAMES_SHOWN 12

/* Whether a finished attempt's metrics name metric. */
static bool has_metric(const struct sb_attempt_status *a, const char *metric)
{
	for (size_t i = 0; i < a->nmetrics; i++)
		if (!strcmp(a->metrics[i].name, metric))
			return true;
	return false;
}

/* Adds the metric names of a to names (distinct, at most NAMES_SHOWN kept;
 * *more set when there were others). */
static void collect(const struct sb_attempt_status *a, const char **names, size_t *n, bool *more)
{
	for (size_t i = 0; i < a->nmetrics; i++) {
		size_t k;
		for (k = 0; k < *n && strcmp(names[k], a->metrics[i].name) != 0; k++)
			;
		if (k < *n)
			continue;
		if (*n < NAMES_SHOWN)
			names[(*n)++] = a->metrics[i].name;
		else
			*more = true;
	}
}

int sb_status_check_rules(struct sb_status *st, char ***notes, size_t *nnotes, struct sb_error *err)
{
	const struct sb_spec *spec = st->bench->spec;
	const char *names[NAMES_SHOWN];
	size_t nnames = 0, r, c, i, len;
	bool more = false, any = false;
	char have[NAMES_SHOWN * 72 + 8];

	*notes = NULL;
	*nnotes = 0;
	if (spec == NULL || spec->nearly_stop == 0)
		return 0;
	for (c = 0; c < st->n; c++)
		for (i = 0; i < st->children[c].nattempts; i++) {
			const struct sb_attempt_status *a = &st->children[c].attempts[i];
			if (a->log.has_finish && a->nmetrics > 0) {
				any = true;
				collect(a, names, &nnames, &more);
			}
		}
	if (!any)
		return 0; /* no finished child read a number yet: nothing to say */
	for (i = 0, len = 0; i < nnames; i++)
		len += (size_t)snprintf(have + len, sizeof(have) - len, "%s%.64s", i ? ", " : "", names[i]);
	if (more)
		snprintf(have + len, sizeof(have) - len, ", ...");
	if ((*notes = calloc(spec->nearly_stop, sizeof(**notes))) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	for (r = 0; r < spec->nearly_stop; r++) {
		const char *metric = spec->early_stop[r].metric;
		bool seen = false;

		for (c = 0; c < st->n && !seen; c++)
			for (i = 0; i < st->children[c].nattempts && !seen; i++)
				seen = st->children[c].attempts[i].log.has_finish &&
				       has_metric(&st->children[c].attempts[i], metric);
		if (seen)
			continue;
		if (asprintf(&(*notes)[*nnotes], "early_stop rule %zu: metric '%s' never appeared in the "
			     "metrics file of a finished child, so the rule never stopped one; the file "
			     "has: %s", r + 1, metric, have) < 0)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		(*nnotes)++;
	}
	return 0;
}
