/* What sb_bench_output has learnt of a benchmark's Slurm output files
 * (bench/bench_output.c), kept in the benchmark (b->outputs) and freed with
 * it: for each attempt its chunks, their task maps and the array job ids
 * whose files each chunk directory holds. */
#ifndef SB_CTL_OUTPUT_CACHE_H
#define SB_CTL_OUTPUT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* One chunk of one attempt. */
struct out_chunk {
	char *map;                 /* jobs/a<attempt>/chunk-<k>.map, absolute */
	char *dir;                 /* jobs/a<attempt>/c<k>, absolute */
	size_t *children;          /* of each task id, once the map is read */
	size_t n;
	bool loaded, ascending;
	bool listed, legacy;       /* legacy: per-task links (an earlier sbctl) */
	struct timespec mtime;     /* of dir when it was listed */
	char **jobs;               /* the array job ids of its slurm-<A>_<t> files */
	size_t njobs;
};

/* An attempt's chunks; their maps are read when a look-up needs them. */
struct out_attempt {
	struct out_chunk *chunks;
	size_t nchunks;
	bool unordered;            /* its children are not in ascending order */
};

struct sb_output_cache {
	struct out_attempt *attempts; /* 0 .. nattempts-1 */
	size_t nattempts;
};

/* Forgets the job ids listed in c (it is listed again). */
void sb_output_chunk_forget_jobs(struct out_chunk *c);
/* Frees what at holds and zeroes it. */
void sb_output_attempt_free(struct out_attempt *at);
/* Frees the cache.  Accepts NULL. */
void sb_output_cache_free(struct sb_output_cache *c);

#endif
