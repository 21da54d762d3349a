/* Result files at finish: size, mtime and SHA-256, or why not. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/agent.h"
#include "proto/filehash.h"
#include "proto/util.h"

/* Assumed until measured: a conservative read+hash rate for the first file. */
#define SB_HASH_RATE_GUESS (200.0 * 1024 * 1024)

static void set_error(struct sb_agent_result *r, const char *what, int e)
{
	r->state = SB_RESULT_ERROR;
	snprintf(r->error, sizeof(r->error), "%s: %s", what, strerror(e));
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* The deadline now, 0 for none. */
static double ask(double (*deadline)(void *arg), void *arg)
{
	return deadline != NULL ? deadline(arg) : 0;
}

/* What the hashing of one file asks after each chunk: whether the rest
 * still fits before the deadline at *rate bytes/s (updated from this file
 * once a whole chunk is done). */
struct budget {
	double (*deadline)(void *arg);
	void *arg;
	double *rate;
	double t0;
};

static int out_of_time(void *arg, uint64_t done, uint64_t size)
{
	struct budget *b = arg;
	double d;

	if (done >= SB_FILEHASH_CHUNK) {
		double dt = sb_agent_now() - b->t0;

		if (dt > 0)
			*b->rate = (double)done / dt;
	}
	d = ask(b->deadline, b->arg);
	return d > 0 && done < size && sb_agent_now() + (double)(size - done) / *b->rate > d;
}

void sb_agent_results_collect(const char *const *paths, size_t n,
	double (*deadline)(void *arg), void *arg, struct sb_agent_result *out)
{
	double rate = SB_HASH_RATE_GUESS, d;
	size_t i;

	for (i = 0; i < n; i++) {
		struct sb_agent_result *r = &out[i];
		struct budget b = { deadline, arg, &rate, 0 };
		uint8_t md[SB_FILEHASH_LEN];
		struct sb_error err;
		struct stat st;
		int fd, rc;

		memset(r, 0, sizeof(*r));
		r->path = paths[i];
		fd = open(paths[i], O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0) {
			if (errno == ENOENT || errno == ENOTDIR)
				r->state = SB_RESULT_MISSING;
			else
				set_error(r, "cannot open", errno);
			continue;
		}
		if (fstat(fd, &st) != 0) {
			set_error(r, "cannot stat", errno);
			close(fd);
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(r->error, sizeof(r->error), "not a regular file");
			r->state = SB_RESULT_ERROR;
			close(fd);
			continue;
		}
		r->size = (uint64_t)st.st_size;
		r->mtime_ns = mtime_ns(&st);
		r->state = SB_RESULT_NOT_HASHED;
		d = ask(deadline, arg);
		if (d > 0 && sb_agent_now() + (double)r->size / rate > d) {
			close(fd);
			continue;
		}
		b.t0 = sb_agent_now();
		rc = sb_filehash_fd(fd, &st, out_of_time, &b, md, &err);
		if (rc == 0) {
			sb_hex_encode(md, sizeof(md), r->sha256);
			r->state = SB_RESULT_HASHED;
		} else if (rc < 0) {
			/* the hasher's words and a strerror, never a path: they fit */
			snprintf(r->error, sizeof(r->error), "%.*s", (int)sizeof(r->error) - 1,
				err.msg);
			r->state = SB_RESULT_ERROR;
		}
		close(fd);
	}
}
