#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/benchmode.h"
#include "proto/benchdir.h"
#include "proto/mpcheck.h"
#include "proto/recordkeys.h"
#include "proto/util.h"

#define MAP_MAX ((size_t)1 << 30)
#define LIST_MAX 65536

int sb_agent_bench_mode(void)
{
	const char *v = getenv("SB_BENCH_DIR");
	return v && *v;
}

/* Formats a path into buf[PATH_MAX]; -1 when it does not fit (never cut). */
static int path_fmt(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int path_fmt(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n < 0 || n >= PATH_MAX ? -1 : 0;
}

static int env_int(const char *name, int64_t *out, struct sb_error *err)
{
	const char *v = getenv(name);
	char *end;
	long long n;

	if (v == NULL || *v == '\0')
		return sb_errorf(err, "benchmark mode needs %s in the environment (set by the batch "
				 "script sbctl wrote)", name);
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || *end != '\0' || n < 0)
		return sb_errorf(err, "%s='%s' is not a non-negative integer", name, v);
	*out = n;
	return 0;
}

static char *dup_str(const msgpack_object *o)
{
	char *s;

	if (o == NULL || o->type != MSGPACK_OBJECT_STR || memchr(o->via.str.ptr, 0, o->via.str.size))
		return NULL;
	s = malloc(o->via.str.size + 1);
	if (s) {
		memcpy(s, o->via.str.ptr, o->via.str.size);
		s[o->via.str.size] = '\0';
	}
	return s;
}

static int get_uint(const msgpack_object *map, const char *key, int64_t *out)
{
	const msgpack_object *o = sb_mp_get(map, key);

	if (o == NULL || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > INT64_MAX)
		return -1;
	*out = (int64_t)o->via.u64;
	return 0;
}

static int copy_hex(const msgpack_object *o, char out[65])
{
	if (o == NULL || o->type != MSGPACK_OBJECT_STR || o->via.str.size != 64)
		return -1;
	memcpy(out, o->via.str.ptr, 64);
	out[64] = '\0';
	return 0;
}

/* A NULL-terminated array of copies of the strings of an array object. */
static char **dup_list(const msgpack_object *o, size_t *n)
{
	char **v;
	uint32_t i;

	if (o == NULL || o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size > LIST_MAX)
		return NULL;
	v = calloc(o->via.array.size + 1, sizeof(*v));
	if (v == NULL)
		return NULL;
	for (i = 0; i < o->via.array.size; i++) {
		if ((v[i] = dup_str(&o->via.array.ptr[i])) == NULL) {
			for (uint32_t j = 0; j < i; j++)
				free(v[j]);
			free(v);
			return NULL;
		}
	}
	*n = o->via.array.size;
	return v;
}

static void free_list(char **v)
{
	if (v == NULL)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

/* The text of a parameter value for SB_PARAM_<name> (as in {name}). */
static int param_text(const msgpack_object *o, char *buf, size_t size)
{
	switch (o->type) {
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		return snprintf(buf, size, "%" PRIu64, o->via.u64) < (int)size ? 0 : -1;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		return snprintf(buf, size, "%" PRId64, o->via.i64) < (int)size ? 0 : -1;
	case MSGPACK_OBJECT_FLOAT64: {
		int n;
		for (n = 1; n <= 17; n++) {
			snprintf(buf, size, "%.*g", n, o->via.f64);
			if (strtod(buf, NULL) == o->via.f64)
				break;
		}
		if (strpbrk(buf, ".en") == NULL && strlen(buf) + 3 <= size)
			strcat(buf, ".0");
		return 0;
	}
	case MSGPACK_OBJECT_BOOLEAN:
		return snprintf(buf, size, "%s", o->via.boolean ? "true" : "false") < (int)size ? 0 : -1;
	case MSGPACK_OBJECT_STR:
		if (o->via.str.size >= size || memchr(o->via.str.ptr, 0, o->via.str.size))
			return -1;
		memcpy(buf, o->via.str.ptr, o->via.str.size);
		buf[o->via.str.size] = '\0';
		return 0;
	default:
		return -1;
	}
}

static int add_env(struct sb_agent_bench *b, size_t cap, const char *name, size_t nlen,
		   const char *value)
{
	char *s;

	if (b->nenv + 1 >= cap)
		return -1;
	if (asprintf(&s, "%.*s=%s", (int)nlen, name, value) < 0)
		return -1;
	b->env[b->nenv++] = s;
	b->env[b->nenv] = NULL;
	return 0;
}

/* The room env needs: the spec's env, the parameters, SB_CHILD,
 * SB_ATTEMPT, SB_SPEC_DIR and the NULL (with one to spare). */
static size_t env_cap(const msgpack_object *task)
{
	const msgpack_object *env = sb_mp_get(task, SB_TM_ENV), *params = sb_mp_get(task, SB_TM_PARAMS);

	return (env && env->type == MSGPACK_OBJECT_MAP ? env->via.map.size : 0) +
	       (params && params->type == MSGPACK_OBJECT_MAP ? params->via.map.size : 0) + 5;
}

/* Fills env: the spec's env (resolved), then SB_CHILD, SB_ATTEMPT and
 * SB_PARAM_<name>. */
static int build_env(struct sb_agent_bench *b, const msgpack_object *task, struct sb_error *err)
{
	const msgpack_object *env = sb_mp_get(task, SB_TM_ENV), *params = sb_mp_get(task, SB_TM_PARAMS);
	char num[32], *text;
	size_t cap;
	uint32_t i;

	if (env == NULL || env->type != MSGPACK_OBJECT_MAP || params == NULL ||
	    params->type != MSGPACK_OBJECT_MAP)
		return sb_errorf(err, "task %" PRId64 " of the map has no env or params", b->task);
	cap = env_cap(task);
	b->env = calloc(cap, sizeof(*b->env));
	text = malloc(1 << 20);
	if (b->env == NULL || text == NULL) {
		free(text);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < env->via.map.size; i++) {
		const msgpack_object *k = &env->via.map.ptr[i].key, *v = &env->via.map.ptr[i].val;
		if (k->type != MSGPACK_OBJECT_STR || v->type != MSGPACK_OBJECT_STR ||
		    param_text(v, text, 1 << 20) < 0 ||
		    add_env(b, cap, k->via.str.ptr, k->via.str.size, text) < 0) {
			free(text);
			return sb_errorf(err, "task %" PRId64 ": a bad env entry in the map", b->task);
		}
	}
	snprintf(num, sizeof(num), "%" PRId64, b->child);
	add_env(b, cap, "SB_CHILD", 8, num);
	snprintf(num, sizeof(num), "%" PRId64, b->attempt);
	add_env(b, cap, "SB_ATTEMPT", 10, num);
	for (i = 0; i < params->via.map.size; i++) {
		const msgpack_object *k = &params->via.map.ptr[i].key, *v = &params->via.map.ptr[i].val;
		char name[128];
		if (k->type != MSGPACK_OBJECT_STR || k->via.str.size > 100 ||
		    param_text(v, text, 1 << 20) < 0) {
			free(text);
			return sb_errorf(err, "task %" PRId64 ": a bad parameter in the map", b->task);
		}
		snprintf(name, sizeof(name), "SB_PARAM_%.*s", (int)k->via.str.size, k->via.str.ptr);
		if (add_env(b, cap, name, strlen(name), text) < 0) {
			free(text);
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		}
	}
	free(text);
	return 0;
}

/* s with every "{spec_dir}" replaced by dir (in POSIX single quotes when
 * quote: a shell string); malloc'd, or NULL when out of memory. */
static char *with_spec_dir(const char *s, const char *dir, bool quote)
{
	static const char ref[] = "{spec_dir}";
	size_t n = 0, dl = strlen(dir), len;
	char *out, *o;
	const char *p;

	for (p = s; (p = strstr(p, ref)) != NULL; p += sizeof(ref) - 1)
		n++;
	len = strlen(s) + n * (quote ? 4 * dl + 2 : dl) + 1;
	if ((out = malloc(len)) == NULL)
		return NULL;
	for (o = out, p = s; *p;) {
		if (strncmp(p, ref, sizeof(ref) - 1) != 0) {
			*o++ = *p++;
			continue;
		}
		if (quote)
			*o++ = '\'';
		for (const char *d = dir; *d; d++) {
			if (quote && *d == '\'') {
				memcpy(o, "'\\''", 4);
				o += 4;
			} else {
				*o++ = *d;
			}
		}
		if (quote)
			*o++ = '\'';
		p += sizeof(ref) - 1;
	}
	*o = '\0';
	return out;
}

/* Puts the spec's directory (the task map's spec_dir, NULL when an older
 * sbctl wrote none) in place of every {spec_dir} of the command (quoted in
 * a shell string) and the env values, and sets SB_SPEC_DIR
 * (docs/sbagent.md, "The spec's directory"). */
static int expand_spec_dir(struct sb_agent_bench *b, const char *dir, bool shell, size_t env_cap,
			   struct sb_error *err)
{
	size_t i;

	for (i = shell ? 2 : 0; i < b->argc; i++) {
		char *x;
		if (strstr(b->argv[i], "{spec_dir}") == NULL)
			continue;
		if (dir == NULL)
			return sb_errorf(err, "the command of child %" PRId64 " names {spec_dir}, but its "
					 "task map gives no spec directory (written by an older sbctl)",
					 b->child);
		if ((x = with_spec_dir(b->argv[i], dir, shell)) == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		free(b->argv[i]);
		b->argv[i] = x;
	}
	for (i = 0; i < b->nenv; i++) {
		char *x;
		if (strstr(b->env[i], "{spec_dir}") == NULL)
			continue;
		if (dir == NULL)
			return sb_errorf(err, "an env value of child %" PRId64 " names {spec_dir}, but its "
					 "task map gives no spec directory (written by an older sbctl)",
					 b->child);
		if ((x = with_spec_dir(b->env[i], dir, false)) == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		free(b->env[i]);
		b->env[i] = x;
	}
	if (dir && add_env(b, env_cap, "SB_SPEC_DIR", 11, dir) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	return 0;
}

static int read_map(const char *path, char **data, size_t *len, struct sb_error *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return sb_errorf(err, "cannot open task map '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > MAP_MAX) {
		close(fd);
		return sb_errorf(err, "task map '%s' is not a regular file of at most %zu bytes",
				 path, MAP_MAX);
	}
	if (sb_read_all(fd, MAP_MAX, (size_t)st.st_size, data, len) < 0) {
		int e = errno;
		close(fd);
		return sb_errorf(err, "cannot read task map '%s': %s", path,
				 e == EFBIG ? "it grew past its limit while being read" : strerror(e));
	}
	close(fd);
	return 0;
}

static int same_command(const struct sb_agent_bench *b, char *const *cmd, size_t ncmd)
{
	size_t i;

	if (ncmd != b->argc)
		return 0;
	for (i = 0; i < ncmd; i++)
		if (strcmp(cmd[i], b->argv[i]) != 0)
			return 0;
	return 1;
}

int sb_agent_bench_load(struct sb_agent_bench *b, char *const *cmd, size_t ncmd,
			struct sb_error *err)
{
	const char *dir = getenv("SB_BENCH_DIR"), *job = getenv("SLURM_JOB_ID");
	const msgpack_object *tasks, *task, *command, *o;
	char map[PATH_MAX], *data = NULL;
	bool shell = false;
	int64_t restart = 0, v;
	msgpack_unpacked u;
	size_t len = 0;
	int rc = -1;

	memset(b, 0, sizeof(*b));
	if (dir == NULL || dir[0] != '/')
		return sb_errorf(err, "SB_BENCH_DIR must be an absolute path");
	if (path_fmt(b->dir, "%s", dir) < 0)
		return sb_errorf(err, "SB_BENCH_DIR is longer than %d bytes", PATH_MAX - 1);
	if (env_int("SB_ATTEMPT", &b->attempt, err) < 0 || env_int("SB_CHUNK", &b->chunk, err) < 0 ||
	    env_int("SLURM_ARRAY_TASK_ID", &b->task, err) < 0)
		return -1;
	if (getenv("SLURM_RESTART_COUNT") && env_int("SLURM_RESTART_COUNT", &restart, err) < 0)
		return -1;
	if (job && strspn(job, "0123456789") != strlen(job))
		return sb_errorf(err, "SLURM_JOB_ID='%s' is not a job id", job);
	if (sb_bdir_chunk(map, PATH_MAX, dir, b->attempt, b->chunk, "map") < 0)
		return sb_errorf(err, "SB_BENCH_DIR is too long");
	if (read_map(map, &data, &len, err) < 0)
		return -1;
	msgpack_unpacked_init(&u);
	if (sb_mp_unpack_one(data, len, &u) < 0) {
		sb_errorf(err, "task map '%s' cannot be decoded", map);
		goto out;
	}
	tasks = sb_mp_get(&u.data, SB_TM_TASKS);
	if (get_uint(&u.data, SB_TM_FORMAT, &v) < 0 || v != 1 || copy_hex(sb_mp_get(&u.data, SB_TM_BENCH), b->digest) < 0 ||
	    tasks == NULL || tasks->type != MSGPACK_OBJECT_ARRAY) {
		sb_errorf(err, "task map '%s' is not a format-1 task map", map);
		goto out;
	}
	if ((uint64_t)b->task >= tasks->via.array.size) {
		sb_errorf(err, "task %" PRId64 " is not in task map '%s' (%u tasks)", b->task, map,
			  tasks->via.array.size);
		goto out;
	}
	task = &tasks->via.array.ptr[b->task];
	command = sb_mp_get(task, SB_TM_COMMAND);
	o = sb_mp_get(task, SB_TM_SHELL);
	if (get_uint(task, SB_TM_CHILD, &b->child) < 0 || copy_hex(sb_mp_get(task, SB_TM_DIGEST), b->child_digest) < 0 ||
	    command == NULL || o == NULL || o->type != MSGPACK_OBJECT_BOOLEAN) {
		sb_errorf(err, "task %" PRId64 " of task map '%s' lacks child, digest, command or shell",
			  b->task, map);
		goto out;
	}
	shell = o->via.boolean;
	if (o->via.boolean) {
		b->argv = calloc(4, sizeof(*b->argv));
		if (b->argv) {
			b->argv[0] = strdup("/bin/sh");
			b->argv[1] = strdup("-c");
			b->argv[2] = dup_str(command);
			b->argc = 3;
		}
		if (!b->argv || !b->argv[0] || !b->argv[1] || !b->argv[2]) {
			sb_errorf(err, "task %" PRId64 ": a bad shell command in the map", b->task);
			goto out;
		}
	} else if ((b->argv = dup_list(command, &b->argc)) == NULL || b->argc == 0) {
		sb_errorf(err, "task %" PRId64 ": a bad command in the map", b->task);
		goto out;
	}
	if (ncmd > 0 && !same_command(b, cmd, ncmd)) {
		sb_errorf(err, "the command after '--' is not the planned command of child %" PRId64
			  " (leave it empty in benchmark mode)", b->child);
		goto out;
	}
	if ((b->results = dup_list(sb_mp_get(&u.data, SB_TM_RESULTS), &b->nresults)) == NULL) {
		sb_errorf(err, "task map '%s': bad results", map);
		goto out;
	}
	o = sb_mp_get(&u.data, SB_TM_METRICS);
	if (o && o->type != MSGPACK_OBJECT_NIL && (b->metrics = dup_str(o)) == NULL) {
		sb_errorf(err, "task map '%s': bad metrics", map);
		goto out;
	}
	if (get_uint(&u.data, SB_TM_HEARTBEAT, &v) < 0) {
		sb_errorf(err, "task map '%s': bad heartbeat", map);
		goto out;
	}
	b->heartbeat_s = (double)v;
	if (get_uint(&u.data, SB_TM_KILL_WAIT, &v) < 0) {
		sb_errorf(err, "task map '%s': bad kill_wait", map);
		goto out;
	}
	b->kill_wait_s = (double)v;
	if (sb_early_stop_rules_decode(&b->early_stop, sb_mp_get(&u.data, SB_TM_EARLY_STOP), err) < 0 ||
	    sb_checkpoint_decode(&b->checkpoint, sb_mp_get(&u.data, SB_TM_CHECKPOINT), err) < 0 ||
	    build_env(b, task, err) < 0)
		goto out;
	o = sb_mp_get(&u.data, SB_TM_SPEC_DIR);
	if (o && o->type != MSGPACK_OBJECT_NIL && (b->spec_dir = dup_str(o)) == NULL) {
		sb_errorf(err, "task map '%s': bad spec_dir", map);
		goto out;
	}
	if (expand_spec_dir(b, b->spec_dir, shell, env_cap(task), err) < 0)
		goto out;
	o = sb_mp_get(task, SB_TM_INPUTS);
	if (o != NULL && ((b->inputs = dup_list(o, &b->ninputs)) == NULL || b->spec_dir == NULL)) {
		sb_errorf(err, "task %" PRId64 " of task map '%s': bad inputs, or inputs without a "
			  "spec_dir", b->task, map);
		goto out;
	}
	if (sb_bdir_run(b->run_dir, sizeof(b->run_dir), dir, b->child) < 0 ||
	    sb_bdir_key(b->key_path, sizeof(b->key_path), dir) < 0 ||
	    sb_bdir_log(b->log_path, sizeof(b->log_path), dir, b->child, b->attempt,
			job && *job ? job : "none", restart) < 0) {
		sb_errorf(err, "SB_BENCH_DIR is too long");
		goto out;
	}
	rc = 0;
out:
	msgpack_unpacked_destroy(&u);
	free(data);
	if (rc < 0)
		sb_agent_bench_release(b);
	return rc;
}

/* mkdir path 0755 unless a directory is there; a symbolic link or anything
 * else in its place is refused (what: how the message names it). */
static int make_dir(const char *path, const char *what, struct sb_error *err)
{
	struct stat st;

	if (mkdir(path, 0755) == 0)
		return 0;
	if (errno != EEXIST)
		return sb_errorf(err, "cannot create the %s '%s': %s", what, path, strerror(errno));
	if (lstat(path, &st) < 0)
		return sb_errorf(err, "cannot check the %s '%s': %s", what, path, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return sb_errorf(err, "the %s '%s' is a symbolic link (refused: the command runs only "
				 "in a directory of the benchmark; remove it and run the child again)",
				 what, path);
	if (!S_ISDIR(st.st_mode))
		return sb_errorf(err, "the %s '%s' exists and is not a directory (remove it and run the "
				 "child again)", what, path);
	return 0;
}

int sb_agent_bench_make_run_dir(const struct sb_agent_bench *b, struct sb_error *err)
{
	char runs[PATH_MAX];

	memcpy(runs, b->run_dir, sizeof(runs));
	*strrchr(runs, '/') = '\0';
	if (make_dir(runs, "directory of run directories", err) < 0)
		return -1;
	return make_dir(b->run_dir, "run directory", err);
}

int sb_agent_bench_prepare_log(const struct sb_agent_bench *b, struct sb_error *err)
{
	char shard[PATH_MAX];

	memcpy(shard, b->log_path, sizeof(shard));
	*strrchr(shard, '/') = '\0';
	if (mkdir(shard, 0755) < 0 && errno != EEXIST)
		return sb_errorf(err, "cannot create '%s': %s", shard, strerror(errno));
	return 0;
}

void sb_agent_bench_release(struct sb_agent_bench *b)
{
	if (b == NULL)
		return;
	free_list(b->argv);
	free_list(b->results);
	free_list(b->env);
	free_list(b->inputs);
	free(b->metrics);
	free(b->spec_dir);
	b->argv = b->results = b->env = b->inputs = NULL;
	b->metrics = b->spec_dir = NULL;
}
