/* Running a few jobs at once on threads, for the work that spreads over the
 * machine's cores (planning digests, formatting a large plan). */
#ifndef SB_CTL_PARALLEL_H
#define SB_CTL_PARALLEL_H

#include <stddef.h>

#define SB_PARALLEL_MAX 64

/* Calls fn on each of the n items of the array items (item_size bytes
 * each) at once: item 0 in the calling thread, the others on threads of
 * their own (an item whose thread cannot be started runs in the calling
 * thread, after item 0).  Returns when every call has returned.  n is at
 * most SB_PARALLEL_MAX. */
void sb_parallel_run(void *(*fn)(void *), void *items, size_t item_size, size_t n);

/* The number of threads worth starting for count units of work, at least
 * min_per_thread units each: between 1 and max (and the cores online). */
size_t sb_parallel_threads(size_t count, size_t min_per_thread, size_t max);

/* Readers of files wait on the file system as much as they compute: at
 * least this many, whatever the cores, so that requests are in flight
 * while others are decoded (on ext4 with a cold cache, 8 readers read
 * 100,000 logs in 43% of the time 2 take on two cores; docs/performance.md). */
#define SB_PARALLEL_IO_MIN 8

/* The number of readers worth starting for count files, at least
 * min_per_thread each: as sb_parallel_threads, with at least
 * SB_PARALLEL_IO_MIN (or max, when lower) instead of the cores alone. */
size_t sb_parallel_io_threads(size_t count, size_t min_per_thread, size_t max);

#endif
