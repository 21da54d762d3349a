/* The lifetime of a benchmark's output cache (bench/output_cache.h). */
#include <stdlib.h>
#include <string.h>

#include "bench/output_cache.h"

void sb_output_chunk_forget_jobs(struct out_chunk *c)
{
	for (size_t i = 0; i < c->njobs; i++)
		free(c->jobs[i]);
	free(c->jobs);
	c->jobs = NULL;
	c->njobs = 0;
}

void sb_output_attempt_free(struct out_attempt *at)
{
	for (size_t k = 0; k < at->nchunks; k++) {
		sb_output_chunk_forget_jobs(&at->chunks[k]);
		free(at->chunks[k].map);
		free(at->chunks[k].dir);
		free(at->chunks[k].children);
	}
	free(at->chunks);
	memset(at, 0, sizeof(*at));
}

void sb_output_cache_free(struct sb_output_cache *c)
{
	if (c == NULL)
		return;
	for (size_t a = 0; a < c->nattempts; a++)
		sb_output_attempt_free(&c->attempts[a]);
	free(c->attempts);
	free(c);
}
