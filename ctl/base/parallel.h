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

#endif
