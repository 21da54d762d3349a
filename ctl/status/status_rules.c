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
	bool seen[SB_EARLY_STOP_MAX_RULES] = { false }, any = false, more = false;
	const char *names[NAMES_SHOWN];
	size_t nnames = 0, nseen = 0, r, c, i, len = 0;
	char *have = NULL;
	FILE *f;

	*notes = NULL;
	*nnotes = 0;
	if (spec == NULL || spec->nearly_stop == 0)
		return 0;
	/* one pass over the finished attempts, until every rule's metric is seen */
	for (c = 0; c < st->n && nseen < spec->nearly_stop; c++)
		for (i = 0; i < st->children[c].nattempts; i++) {
			const struct sb_attempt_status *a = &st->children[c].attempts[i];
			if (!a->log.has_finish || a->nmetrics == 0)
				continue;
			any = true;
			for (r = 0; r < spec->nearly_stop; r++)
				if (!seen[r] && has_metric(a, spec->early_stop[r].metric)) {
					seen[r] = true;
					nseen++;
				}
		}
	if (!any || nseen == spec->nearly_stop)
		return 0; /* nothing finished with a number yet, or nothing to say */
	/* a rule is unseen: the names the files did have, for the message */
	for (c = 0; c < st->n; c++)
		for (i = 0; i < st->children[c].nattempts; i++) {
			const struct sb_attempt_status *a = &st->children[c].attempts[i];
			if (a->log.has_finish)
				collect(a, names, &nnames, &more);
		}
	if ((f = open_memstream(&have, &len)) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	for (i = 0; i < nnames; i++)
		fprintf(f, "%s%s", i ? ", " : "", names[i]);
	if (more)
		fputs(", ...", f);
	if (fclose(f) != 0 || (*notes = calloc(spec->nearly_stop - nseen, sizeof(**notes))) == NULL) {
		free(have);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	for (r = 0; r < spec->nearly_stop; r++) {
		if (seen[r])
			continue;
		if (asprintf(&(*notes)[*nnotes], "early_stop rule %zu: metric '%s' never appeared in the "
			     "metrics file of a finished child, so the rule never stopped one; the file "
			     "has: %s", r + 1, spec->early_stop[r].metric, have) < 0) {
			free(have);
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		}
		(*nnotes)++;
	}
	free(have);
	return 0;
}
