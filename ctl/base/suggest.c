#include <stdio.h>
#include <string.h>

#include "base/suggest.h"

/* Levenshtein distance, capped: strings over 64 bytes count as far. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[65];

	if (la > 64 || lb > 64)
		return 100;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t cost = (a[i - 1] == b[j - 1] ||
				       (a[i - 1] ^ b[j - 1]) == 0x20) ? 0 : 1;
			size_t best = prev + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

const char *sb_suggest_closest(const char *word, const char *const *cands, size_t n)
{
	size_t i, best = 100, limit;
	const char *pick = NULL;

	limit = strlen(word) <= 4 ? 1 : strlen(word) <= 8 ? 2 : 3;
	for (i = 0; i < n; i++) {
		size_t d = distance(word, cands[i]);
		if (d < best) {
			best = d;
			pick = cands[i];
		}
	}
	return pick != NULL && best <= limit ? pick : NULL;
}

const char *sb_suggest(const char *word, const char *const *cands, size_t n,
		       char buf[SB_SUGGEST_MAX])
{
	const char *pick = sb_suggest_closest(word, cands, n);

	buf[0] = '\0';
	if (pick != NULL)
		snprintf(buf, SB_SUGGEST_MAX, " (did you mean '%s'?)", pick);
	return buf;
}
