#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

#include "base/parallel.h"

void sb_parallel_run(void *(*fn)(void *), void *items, size_t item_size, size_t n)
{
	pthread_t tids[SB_PARALLEL_MAX];
	bool started[SB_PARALLEL_MAX] = { false };
	char *base = items;
	size_t i;

	if (n > SB_PARALLEL_MAX)
		n = SB_PARALLEL_MAX;
	for (i = 1; i < n; i++)
		started[i] = pthread_create(&tids[i], NULL, fn, base + i * item_size) == 0;
	if (n > 0)
		fn(base);
	for (i = 1; i < n; i++) {
		if (started[i])
			pthread_join(tids[i], NULL);
		else
			fn(base + i * item_size);
	}
}

static size_t threads_of(size_t n, size_t count, size_t min_per_thread, size_t max);

size_t sb_parallel_threads(size_t count, size_t min_per_thread, size_t max)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	return threads_of(ncpu > 1 ? (size_t)ncpu : 1, count, min_per_thread, max);
}

size_t sb_parallel_io_threads(size_t count, size_t min_per_thread, size_t max)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = ncpu > 1 ? (size_t)ncpu : 1;

	return threads_of(n > SB_PARALLEL_IO_MIN ? n : SB_PARALLEL_IO_MIN, count, min_per_thread, max);
}

static size_t threads_of(size_t n, size_t count, size_t min_per_thread, size_t max)
{
	if (max > SB_PARALLEL_MAX)
		max = SB_PARALLEL_MAX;
	if (n > max)
		n = max;
	if (min_per_thread > 0 && count / min_per_thread < n)
		n = count / min_per_thread;
	return n > 0 ? n : 1;
}
