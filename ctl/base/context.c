/* The context of libsbench: defaults and callbacks (include/sbench/context.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbench/context.h"

struct sb_ctx {
	char *root;
	char *agent;
	char *index;
	char *path;               /* PATH of the checks before a submit; NULL: unknown */
	double settle_s;
	double storage_lag_s;     /* SB_CTX_STORAGE_LAG_AUTO: by the file system */
	double lookup_window_s;
	unsigned threads;
	sb_warn_fn *warn;
	void *warn_user;
	sb_progress_fn *progress;
	void *progress_user;
	sb_stop_fn *stop;
	void *stop_user;
};

static int replace(char **slot, const char *value, struct sb_error *err)
{
	char *copy = NULL;

	if (value && (copy = strdup(value)) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	free(*slot);
	*slot = copy;
	return 0;
}

struct sb_ctx *sb_ctx_create(struct sb_error *err)
{
	struct sb_ctx *ctx = calloc(1, sizeof(*ctx));

	if (ctx == NULL || replace(&ctx->root, "./sbench-runs", err) < 0) {
		free(ctx);
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	ctx->settle_s = SB_CTX_SETTLE_DEFAULT;
	ctx->storage_lag_s = SB_CTX_STORAGE_LAG_AUTO;
	ctx->lookup_window_s = SB_CTX_LOOKUP_WINDOW_DEFAULT;
	return ctx;
}

void sb_ctx_destroy(struct sb_ctx *ctx)
{
	if (ctx == NULL)
		return;
	free(ctx->root);
	free(ctx->agent);
	free(ctx->index);
	free(ctx->path);
	free(ctx);
}

/* The value of NAME in envp, or NULL. */
static const char *env_get(char *const envp[], const char *name)
{
	size_t n = strlen(name);

	for (; envp && *envp; envp++)
		if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

/* The index path the environment names, malloc'd; NULL when it names none
 * (err untouched) or when out of memory (err says so). */
static char *env_index(char *const envp[], struct sb_error *err)
{
	const char *v;
	char *path = NULL;
	int n = 0;

	if ((v = env_get(envp, "SB_INDEX")) && *v)
		n = asprintf(&path, "%s", v);
	else if ((v = env_get(envp, "XDG_STATE_HOME")) && *v == '/')
		n = asprintf(&path, "%s/sbench/index.sqlite", v);
	else if ((v = env_get(envp, "HOME")) && *v)
		n = asprintf(&path, "%s/.local/state/sbench/index.sqlite", v);
	else
		return NULL;
	if (n < 0) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	return path;
}

static bool valid_window(double seconds)
{
	return isfinite(seconds) && seconds >= 0 && seconds <= SB_CTX_LOOKUP_WINDOW_MAX;
}

/* SB_LOOKUP_WINDOW's value in *seconds; -1 when it is not a number of
 * seconds in range. */
static int parse_window(const char *text, double *seconds)
{
	char *end;

	errno = 0;
	*seconds = strtod(text, &end);
	return errno || *end || end == text || !valid_window(*seconds) ? -1 : 0;
}

static bool valid_lag(double seconds)
{
	return seconds == SB_CTX_STORAGE_LAG_AUTO ||
	       (isfinite(seconds) && seconds >= 0 && seconds <= SB_CTX_STORAGE_LAG_MAX);
}

/* SB_STORAGE_LAG's value ("auto", or seconds) in *seconds; -1 when it is
 * neither. */
static int parse_lag(const char *text, double *seconds)
{
	char *end;

	if (!strcmp(text, "auto")) {
		*seconds = SB_CTX_STORAGE_LAG_AUTO;
		return 0;
	}
	errno = 0;
	*seconds = strtod(text, &end);
	return errno || *end || end == text || !(*seconds >= 0) || !valid_lag(*seconds) ? -1 : 0;
}

/* SB_THREADS: a whole number from 1 to SB_CTX_THREADS_MAX. */
static int parse_threads(const char *text, unsigned *threads)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(text, &end, 10);
	if (errno || *end || end == text || text[0] == '-' || n < 1 || n > SB_CTX_THREADS_MAX)
		return -1;
	*threads = (unsigned)n;
	return 0;
}

int sb_ctx_load_env(struct sb_ctx *ctx, char *const envp[], struct sb_error *err)
{
	const char *root = env_get(envp, "SB_ROOT"), *agent = env_get(envp, "SB_AGENT");
	const char *window = env_get(envp, "SB_LOOKUP_WINDOW"), *threads_s = env_get(envp, "SB_THREADS");
	const char *lag = env_get(envp, "SB_STORAGE_LAG"), *path = env_get(envp, "PATH");
	double window_s = ctx->lookup_window_s, lag_s = ctx->storage_lag_s;
	unsigned threads = ctx->threads;
	struct sb_error e = { 0 };
	char *index;

	if (agent && *agent && agent[0] != '/')
		return sb_error_set(err, SB_ERR_INPUT, "SB_AGENT '%s' must be an absolute path", agent);
	if (window && *window && parse_window(window, &window_s) < 0)
		return sb_error_set(err, SB_ERR_INPUT, "SB_LOOKUP_WINDOW '%s' is not a number of seconds "
				    "from 0 to %.0f", window, SB_CTX_LOOKUP_WINDOW_MAX);
	if (lag && *lag && parse_lag(lag, &lag_s) < 0)
		return sb_error_set(err, SB_ERR_INPUT, "SB_STORAGE_LAG '%s' is neither 'auto' nor a number "
				    "of seconds from 0 to %.0f", lag, SB_CTX_STORAGE_LAG_MAX);
	if (threads_s && *threads_s && parse_threads(threads_s, &threads) < 0)
		return sb_error_set(err, SB_ERR_INPUT, "SB_THREADS '%s' is not a number of threads "
				    "from 1 to %d", threads_s, SB_CTX_THREADS_MAX);
	index = env_index(envp, &e);
	if (index == NULL && e.code != SB_ERR_NONE) {
		if (err)
			*err = e;
		return -1;
	}
	if ((root && *root && replace(&ctx->root, root, err) < 0) ||
	    (agent && *agent && replace(&ctx->agent, agent, err) < 0) ||
	    (path && replace(&ctx->path, path, err) < 0)) {
		free(index);
		return -1;
	}
	if (index) {
		free(ctx->index);
		ctx->index = index;
	}
	ctx->lookup_window_s = window_s;
	ctx->storage_lag_s = lag_s;
	ctx->threads = threads;
	return 0;
}

int sb_ctx_set_threads(struct sb_ctx *ctx, unsigned threads, struct sb_error *err)
{
	if (threads > SB_CTX_THREADS_MAX)
		return sb_error_set(err, SB_ERR_INPUT, "%u threads: at most %d", threads,
				    SB_CTX_THREADS_MAX);
	ctx->threads = threads;
	return 0;
}

unsigned sb_ctx_threads(const struct sb_ctx *ctx)
{
	return ctx ? ctx->threads : 0;
}

int sb_ctx_set_root(struct sb_ctx *ctx, const char *dir, struct sb_error *err)
{
	if (dir == NULL || *dir == '\0')
		return sb_error_set(err, SB_ERR_INPUT, "the benchmark root must not be empty");
	return replace(&ctx->root, dir, err);
}

const char *sb_ctx_root(const struct sb_ctx *ctx)
{
	return ctx->root;
}

int sb_ctx_set_agent(struct sb_ctx *ctx, const char *path, struct sb_error *err)
{
	if (path && path[0] != '/')
		return sb_error_set(err, SB_ERR_INPUT, "the sbagent path '%s' must be absolute", path);
	return replace(&ctx->agent, path, err);
}

const char *sb_ctx_agent(const struct sb_ctx *ctx)
{
	return ctx->agent;
}

int sb_ctx_set_index(struct sb_ctx *ctx, const char *path, struct sb_error *err)
{
	if (path && *path == '\0')
		return sb_error_set(err, SB_ERR_INPUT, "the index path must not be empty");
	return replace(&ctx->index, path, err);
}

const char *sb_ctx_index(const struct sb_ctx *ctx)
{
	return ctx->index;
}

int sb_ctx_set_path(struct sb_ctx *ctx, const char *path, struct sb_error *err)
{
	return replace(&ctx->path, path, err);
}

const char *sb_ctx_path(const struct sb_ctx *ctx)
{
	return ctx ? ctx->path : NULL;
}

int sb_ctx_set_settle(struct sb_ctx *ctx, double seconds, struct sb_error *err)
{
	if (!isfinite(seconds) || seconds < 0)
		return sb_error_set(err, SB_ERR_INPUT, "the settle time must be a number of seconds >= 0");
	ctx->settle_s = seconds;
	return 0;
}

double sb_ctx_settle(const struct sb_ctx *ctx)
{
	return ctx->settle_s;
}

int sb_ctx_set_storage_lag(struct sb_ctx *ctx, double seconds, struct sb_error *err)
{
	if (!valid_lag(seconds))
		return sb_error_set(err, SB_ERR_INPUT, "the storage lag must be %g (auto) or a number of "
				    "seconds from 0 to %.0f", SB_CTX_STORAGE_LAG_AUTO, SB_CTX_STORAGE_LAG_MAX);
	ctx->storage_lag_s = seconds;
	return 0;
}

double sb_ctx_storage_lag(const struct sb_ctx *ctx)
{
	return ctx->storage_lag_s;
}

int sb_ctx_set_lookup_window(struct sb_ctx *ctx, double seconds, struct sb_error *err)
{
	if (!valid_window(seconds))
		return sb_error_set(err, SB_ERR_INPUT, "the lookup window must be a number of seconds "
				    "from 0 to %.0f", SB_CTX_LOOKUP_WINDOW_MAX);
	ctx->lookup_window_s = seconds;
	return 0;
}

double sb_ctx_lookup_window(const struct sb_ctx *ctx)
{
	return ctx->lookup_window_s;
}

void sb_ctx_set_warn(struct sb_ctx *ctx, sb_warn_fn *fn, void *user)
{
	ctx->warn = fn;
	ctx->warn_user = user;
}

void sb_ctx_set_progress(struct sb_ctx *ctx, sb_progress_fn *fn, void *user)
{
	ctx->progress = fn;
	ctx->progress_user = user;
}

void sb_ctx_set_stop(struct sb_ctx *ctx, sb_stop_fn *fn, void *user)
{
	ctx->stop = fn;
	ctx->stop_user = user;
}

int sb_ctx_should_stop(const struct sb_ctx *ctx)
{
	return ctx && ctx->stop ? ctx->stop(ctx->stop_user) != 0 : 0;
}

void sb_ctx_warn(const struct sb_ctx *ctx, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int n;

	if (ctx == NULL || ctx->warn == NULL)
		return;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	ctx->warn(ctx->warn_user, n < 0 ? "out of memory while formatting a warning" : msg);
	if (n >= 0)
		free(msg);
}

void sb_ctx_progress(const struct sb_ctx *ctx, const char *what, size_t done, size_t total)
{
	if (ctx && ctx->progress)
		ctx->progress(ctx->progress_user, what, done, total);
}
