#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <msgpack.h>
#include <openssl/sha.h>

#include "plan/plan_canon.h"
#include "plan/plan_inputs.h"
#include "base/fsutil.h"
#include "bench/jobs.h"
#include "spec/spec_checkpoint.h"
#include "spec/spec_earlystop.h"
#include "proto/benchdir.h"
#include "slurm/slurm_cmd.h"
#include "proto/mpcheck.h"
#include "proto/recordkeys.h"
#include "proto/util.h"
#include "sbench/context.h"

#define MAP_MAX ((size_t)1 << 30)

int sb_jobs_layout(const struct sb_bench *b, int64_t attempt, const size_t *children,
		   size_t n, const struct sb_attempt_settings *set, struct sb_chunks *out,
		   struct sb_error *err)
{
	return sb_jobs_layout_first(b, attempt, children, n, (size_t)b->max_array_size, set, out, err);
}

int sb_jobs_layout_first(const struct sb_bench *b, int64_t attempt, const size_t *children,
			 size_t n, size_t first_n, const struct sb_attempt_settings *set,
			 struct sb_chunks *out, struct sb_error *err)
{
	size_t per = (size_t)b->max_array_size, k, nchunks;
	int64_t throttle;

	if (first_n == 0 || first_n > per)
		first_n = per;
	if (first_n > n)
		first_n = n;
	/* chunk 0 holds first_n children, every later one up to per */
	nchunks = 1 + (n - first_n + per - 1) / per;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return sb_errorf(err, "no children to submit");
	if ((set ? sb_settings_copy(set, &out->set, err) : sb_settings_from_spec(b->spec, &out->set, err)) < 0)
		return -1;
	throttle = out->set.throttle;
	out->v = calloc(nchunks, sizeof(*out->v));
	if (out->v == NULL) {
		sb_settings_release(&out->set);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	out->n = nchunks;
	for (k = 0; k < nchunks; k++) {
		struct sb_chunk *c = &out->v[k];
		size_t first = k ? first_n + (k - 1) * per : 0, size = k ? per : first_n;

		c->attempt = attempt;
		c->index = k;
		c->n = n - first < size ? n - first : size;
		c->children = malloc(c->n * sizeof(*c->children));
		if (c->children == NULL) {
			sb_chunks_release(out);
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		}
		memcpy(c->children, children + first, c->n * sizeof(*c->children));
		/* in a lane, the lane first, so that squeue shows it (docs/lane.md) */
		snprintf(c->name, sizeof(c->name), "%s%ssb-%.12s-a%" PRId64 "-c%zu", b->lane ? b->lane : "",
			 b->lane ? "." : "", b->digest, attempt, k);
		if (throttle > 0)
			snprintf(c->array, sizeof(c->array), "0-%zu%%%" PRId64, c->n - 1, throttle);
		else
			snprintf(c->array, sizeof(c->array), "0-%zu", c->n - 1);
		if (sb_bdir_chunk(c->script, sizeof(c->script), b->dir, attempt, (int64_t)k, "sh") < 0 ||
		    sb_bdir_chunk(c->map, sizeof(c->map), b->dir, attempt, (int64_t)k, "map") < 0) {
			sb_chunks_release(out);
			return sb_errorf(err, "benchmark directory path '%s' is too long", b->dir);
		}
	}
	return 0;
}

void sb_chunks_release(struct sb_chunks *c)
{
	size_t k;

	if (c == NULL)
		return;
	for (k = 0; k < c->n; k++)
		free(c->v[k].children);
	free(c->v);
	sb_settings_release(&c->set);
	memset(c, 0, sizeof(*c));
}

char *sb_jobs_agent_path(const struct sb_ctx *ctx, struct sb_error *err)
{
	const char *agent = ctx ? sb_ctx_agent(ctx) : NULL;
	char *out;

	if (agent == NULL) {
		sb_errorf(err, "no sbagent is known to run the batch scripts (install sbagent beside "
			  "sbctl, or set SB_AGENT)");
		return NULL;
	}
	if ((out = strdup(agent)) == NULL)
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	return out;
}

/* s in POSIX single quotes, appended to f. */
static void shell_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

char *sb_jobs_script(const struct sb_bench *b, const struct sb_chunk *ch, const char *agent)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	fprintf(f, "#!/bin/sh\n"
		"# sbench benchmark %s (%s), attempt %" PRId64 ", chunk %zu: %zu child%s\n"
		"# Written by sbctl submit: each array task runs the child that\n"
		"# chunk-%zu.map names for its task id, under sbagent.\n"
		"SB_BENCH_DIR=", b->name, b->digest, ch->attempt, ch->index, ch->n,
		ch->n == 1 ? "" : "ren", ch->index);
	shell_quote(f, b->dir);
	fprintf(f, "\nSB_ATTEMPT=%" PRId64 "\nSB_CHUNK=%zu\n"
		"export SB_BENCH_DIR SB_ATTEMPT SB_CHUNK\nexec ", ch->attempt, ch->index);
	shell_quote(f, agent);
	fputs(" --\n", f);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* ---- the map ----------------------------------------------------------- */

static int encode_map(const struct sb_bench *b, const struct sb_chunk *ch, struct sb_canon *c,
		      struct sb_error *err)
{
	const struct sb_spec *spec = b->spec;
	size_t t, k, ne = sb_spec_env_count(spec);
	size_t nr = sb_spec_result_count(spec);
	const struct sb_spec_checkpoint *ck = sb_spec_checkpoint(spec);
	struct sb_child *child = sb_child_create();

	if (child == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	sb_canon_map(c, 10 + (sb_spec_early_stop_count(spec) ? 1 : 0) + (ck ? 1 : 0));
	sb_canon_cstr(c, SB_TM_ATTEMPT);
	sb_canon_int(c, ch->attempt);
	sb_canon_cstr(c, SB_TM_BENCH);
	sb_canon_cstr(c, b->digest);
	if (ck) { /* read by sbagent (agent/checkpoint.c) */
		sb_canon_cstr(c, SB_TM_CHECKPOINT);
		sb_checkpoint_canon(c, ck);
	}
	sb_canon_cstr(c, SB_TM_CHUNK);
	sb_canon_int(c, (int64_t)ch->index);
	if (sb_spec_early_stop_count(spec)) { /* read by sbagent (agent/earlystop.c) */
		sb_canon_cstr(c, SB_TM_EARLY_STOP);
		sb_early_stop_canon(c, spec);
	}
	sb_canon_cstr(c, SB_TM_FORMAT);
	sb_canon_int(c, 1);
	sb_canon_cstr(c, SB_TM_HEARTBEAT);
	sb_canon_int(c, sb_spec_heartbeat(spec));
	sb_canon_cstr(c, SB_TM_KILL_WAIT);
	sb_canon_int(c, b->kill_wait);
	sb_canon_cstr(c, SB_TM_METRICS);
	if (sb_spec_metrics(spec))
		sb_canon_cstr(c, sb_spec_metrics(spec));
	else
		sb_canon_nil(c);
	sb_canon_cstr(c, SB_TM_RESULTS);
	sb_canon_array(c, nr);
	for (k = 0; k < nr; k++)
		sb_canon_cstr(c, sb_spec_result(spec, k));
	/* the spec's directory, which sbagent gives the command ({spec_dir},
	 * SB_SPEC_DIR); nil in a benchmark an older sbctl recorded */
	sb_canon_key_cstr(c, SB_TM_SPEC_DIR, b->spec_dir);
	sb_canon_cstr(c, SB_TM_TASKS);
	sb_canon_array(c, ch->n);
	for (t = 0; t < ch->n; t++) {
		if (sb_plan_child(b->plan, ch->children[t], child, err) < 0) {
			sb_child_destroy(child);
			return -1;
		}
		const struct sb_input_set *in = sb_plan_child_inputs(b->plan, ch->children[t]);
		sb_canon_map(c, in ? 8 : 7);
		sb_canon_cstr(c, SB_TM_CHILD);
		sb_canon_int(c, (int64_t)ch->children[t]);
		sb_canon_cstr(c, SB_TM_COMMAND);
		if (sb_child_is_shell(child)) {
			sb_canon_cstr(c, sb_child_shell(child));
		} else {
			sb_canon_array(c, sb_child_argc(child));
			for (k = 0; k < sb_child_argc(child); k++)
				sb_canon_cstr(c, sb_child_argv(child)[k]);
		}
		sb_canon_cstr(c, SB_TM_DIGEST);
		sb_canon_cstr(c, sb_child_digest_hex(child));
		sb_canon_cstr(c, SB_TM_ENV);
		sb_canon_map(c, ne);
		for (k = 0; k < ne; k++) {
			sb_canon_cstr(c, sb_spec_env_name(spec, k));
			sb_canon_cstr(c, sb_child_env_value(child, k));
		}
		if (in) { /* hashed again by sbagent when the job starts */
			sb_canon_cstr(c, SB_TM_INPUTS);
			sb_canon_array(c, in->n);
			for (k = 0; k < in->n; k++)
				sb_canon_cstr(c, sb_inputs_file(sb_plan_inputs(b->plan), in->files[k])->rel);
		}
		sb_canon_cstr(c, SB_TM_PARAMS);
		sb_plan_canon_params(c, spec, child);
		sb_canon_cstr(c, SB_TM_REPEAT);
		sb_canon_int(c, sb_child_repeat(child));
		sb_canon_cstr(c, SB_TM_SHELL);
		sb_canon_bool(c, sb_child_is_shell(child));
	}
	sb_child_destroy(child);
	if (c->failed)
		return sb_error_set(err, SB_ERR_NOMEM, "task map of chunk %zu: out of memory or too large",
				    ch->index);
	return 0;
}

/* Writes data to path unless it already holds exactly that. */
static int write_if_changed(const char *path, const void *data, size_t len, mode_t mode,
			    struct sb_error *err)
{
	char *old;
	size_t olen;

	if (sb_fs_read_file(path, len + 1, &old, &olen, NULL) == 0) {
		int same = olen == len && memcmp(old, data, len) == 0;
		free(old);
		if (same)
			return 0;
	}
	return sb_fs_write_atomic(path, data, len, mode, 0, err);
}

/* The directory Slurm writes a chunk's stdout and stderr into, dir/c<k>/
 * (dir: the attempt's directory, in place or being prepared): one mkdir per
 * chunk, nothing per child (each task's run directory is made by its
 * sbagent when the task runs). */
static int make_output_dir(const char *dir, const struct sb_chunk *ch, struct sb_error *err)
{
	char cdir[PATH_MAX];

	if (sb_bdir_chunk_output(cdir, sizeof(cdir), dir, (int64_t)ch->index) < 0)
		return sb_errorf(err, "path '%s' is too long", dir);
	return sb_fs_mkdirs(cdir, 0755, err);
}

/* Writes one chunk's map, script and output directory into dir, the
 * attempt's directory (in place, or the one it is prepared in). */
static int write_chunk(const struct sb_bench *b, const struct sb_chunk *ch, const char *agent,
		       const char *dir, struct sb_error *err)
{
	char path[PATH_MAX];
	struct sb_canon c;
	char *script;
	int rc;

	if (sb_bdir_chunk_file(path, sizeof(path), dir, (int64_t)ch->index, "map") < 0)
		return sb_errorf(err, "path '%s' is too long", dir);
	sb_canon_init(&c, MAP_MAX);
	rc = encode_map(b, ch, &c, err);
	if (rc == 0)
		rc = write_if_changed(path, c.buf, c.len, 0444, err);
	sb_canon_release(&c);
	if (rc < 0)
		return -1;
	script = sb_jobs_script(b, ch, agent);
	if (script == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	sb_bdir_chunk_file(path, sizeof(path), dir, (int64_t)ch->index, "sh"); /* as long */
	rc = write_if_changed(path, script, strlen(script), 0555, err);
	free(script);
	if (rc < 0)
		return -1;
	return make_output_dir(dir, ch, err);
}

/* Removes the entries of dir whose names match pattern (fnmatch), with
 * what is inside them. */
static int remove_matching(const char *dir, const char *pattern, struct sb_error *err)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dp = opendir(dir);
	int rc = 0;

	if (dp == NULL)
		return errno == ENOENT ? 0 : sb_errorf(err, "cannot read directory '%s': %s", dir,
						       strerror(errno));
	while (rc == 0 && (d = readdir(dp)) != NULL) {
		if (fnmatch(pattern, d->d_name, FNM_PERIOD) != 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, d->d_name) >= (int)sizeof(path))
			rc = sb_errorf(err, "path '%s/%s' is too long", dir, d->d_name);
		else
			rc = sb_fs_remove_tree(path, err);
	}
	closedir(dp);
	return rc;
}

/* jobs/a<attempt> (tmp 0) or jobs/.a<attempt>.tmp (tmp 1), the directory an
 * attempt is prepared in before it is renamed into place; one at a time,
 * under the benchmark's lock. */
static int attempt_path(const struct sb_bench *b, int64_t attempt, int tmp, char *buf, size_t size,
			struct sb_error *err)
{
	if ((tmp ? sb_bdir_attempt_tmp(buf, size, b->dir, attempt)
		 : sb_bdir_attempt(buf, size, b->dir, attempt)) < 0)
		return sb_errorf(err, "benchmark directory path '%s' is too long", b->dir);
	return 0;
}

int sb_jobs_write(const struct sb_bench *b, const struct sb_chunks *chunks,
		  const char *agent, struct sb_error *err)
{
	char jobs[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX];
	int64_t attempt;
	struct stat st;
	size_t k;
	int rc = 0;

	if (chunks->n == 0)
		return 0;
	attempt = chunks->v[0].attempt;
	if (sb_bench_path(b, "jobs", jobs, sizeof(jobs), err) < 0 ||
	    attempt_path(b, attempt, 0, dir, sizeof(dir), err) < 0 ||
	    attempt_path(b, attempt, 1, tmp, sizeof(tmp), err) < 0)
		return -1;
	/* what an earlier preparation left when it failed or died */
	if (sb_fs_mkdirs(jobs, 0755, err) < 0 || remove_matching(jobs, ".a*.tmp", err) < 0)
		return sb_error_prefix(err, "cannot prepare the jobs of attempt %" PRId64, attempt);
	if (lstat(dir, &st) == 0) {
		/* prepared before (a resume): each file is checked, and filled in
		 * or replaced atomically */
		rc = remove_matching(dir, "chunk-*.tmp.*", err);
		for (k = 0; rc == 0 && k < chunks->n; k++)
			rc = write_chunk(b, &chunks->v[k], agent, dir, err);
		return rc < 0 ? sb_error_prefix(err, "cannot update the jobs of attempt %" PRId64, attempt) : 0;
	}
	/* a new attempt: prepared whole in jobs/.a<N>.tmp, then renamed into
	 * place, so that jobs/a<N> never exists half written */
	rc = sb_fs_mkdirs(tmp, 0755, err);
	for (k = 0; rc == 0 && k < chunks->n; k++)
		rc = write_chunk(b, &chunks->v[k], agent, tmp, err);
	if (rc == 0)
		rc = sb_fs_sync_dir(tmp, err);
	if (rc == 0)
		rc = sb_fs_rename(tmp, dir, err);
	if (rc < 0) {
		sb_fs_remove_tree(tmp, NULL); /* else the next submit or rerun removes it */
		return sb_error_prefix(err, "cannot prepare the jobs of attempt %" PRId64, attempt);
	}
	if (sb_fs_sync_dir(jobs, err) < 0)
		return sb_error_prefix(err, "the jobs of attempt %" PRId64 " are written but not synced",
				       attempt);
	return 0;
}

int sb_jobs_discard_attempt(const struct sb_bench *b, int64_t attempt, struct sb_error *err)
{
	char dir[PATH_MAX], tmp[PATH_MAX];

	if (attempt_path(b, attempt, 0, dir, sizeof(dir), err) < 0 ||
	    attempt_path(b, attempt, 1, tmp, sizeof(tmp), err) < 0)
		return -1;
	/* out of sight at once (a status reading the attempts sees all of it
	 * or nothing), then removed: a leftover is the next preparation's */
	if (sb_fs_remove_tree(tmp, err) < 0 || sb_fs_rename(dir, tmp, err) < 0 ||
	    sb_fs_remove_tree(tmp, err) < 0)
		return sb_error_prefix(err, "cannot remove the unprepared jobs of attempt %" PRId64, attempt);
	return 0;
}

/* ---- sbatch ------------------------------------------------------------ */

int sb_jobs_identity(const struct sb_bench *b, const struct sb_chunk *ch, char *buf, size_t size)
{
	uint8_t sha[32];
	char hex[65];

	SHA256((const unsigned char *)b->dir, strlen(b->dir), sha);
	sb_hex_encode(sha, sizeof(sha), hex);
	return snprintf(buf, size, "sbench:%.16s:%s", hex, ch->name) < (int)size ? 0 : -1;
}

char **sb_jobs_sbatch_argv(const struct sb_bench *b, const struct sb_chunks *chunks,
			   const struct sb_chunk *ch, const char *dependency, struct sb_error *err)
{
	const struct sb_attempt_settings *set = &chunks->set;
	const struct sb_slurm_options *o = sb_spec_slurm(b->spec);
	const struct sb_spec_checkpoint *ck = sb_spec_checkpoint(b->spec);
	char out[PATH_MAX], ident[SB_JOBS_IDENTITY_MAX], signal[32];
	struct sb_slurm_sbatch s = {
		.array = ch->array, .job_name = ch->name, .comment = ident, .output = out, .after = dependency,
		.partition = o->partition, .time = set->time, .mem = o->mem, .gres = o->gres,
		.nodes = o->nodes, .constraint = o->constraint, .cpus_per_task = o->cpus_per_task,
		.ntasks = o->ntasks, .extra = (const char *const *)set->extra, .nextra = set->nextra,
		.script = ch->script,
	};

	if (ck) { /* the pre-timeout signal to the batch step, and requeue */
		sb_checkpoint_sbatch_signal(ck, signal, sizeof(signal));
		s.signal = signal;
		s.requeue = ck->requeue_on ? 1 : -1;
	}

	if (sb_jobs_identity(b, ch, ident, sizeof(ident)) < 0 ||
	    sb_bdir_slurm_output(out, sizeof(out), b->dir, ch->attempt, (int64_t)ch->index) < 0) {
		sb_errorf(err, "benchmark directory path '%s' is too long", b->dir);
		return NULL;
	}
	return sb_slurm_sbatch_argv(&s, err);
}

int64_t sb_jobs_last_attempt(const struct sb_bench *b)
{
	char dir[PATH_MAX];
	int64_t a = -1;

	for (;;) {
		if (attempt_path(b, a + 1, 0, dir, sizeof(dir), NULL) < 0)
			return a;
		if (access(dir, F_OK) != 0)
			return a;
		a++;
	}
}

int sb_jobs_map_children(const char *path, size_t **children, size_t *n, struct sb_error *err)
{
	const msgpack_object *tasks = NULL;
	msgpack_unpacked u;
	char *data;
	size_t len;
	uint32_t i;
	int rc = -1;

	if (sb_fs_read_file(path, MAP_MAX, &data, &len, err) < 0)
		return -1;
	msgpack_unpacked_init(&u);
	if (sb_mp_unpack_one(data, len, &u) == 0)
		tasks = sb_mp_get(&u.data, SB_TM_TASKS);
	if (tasks == NULL || tasks->type != MSGPACK_OBJECT_ARRAY || tasks->via.array.size == 0 ||
	    (*children = malloc(tasks->via.array.size * sizeof(**children))) == NULL) {
		sb_errorf(err, "task map '%s' cannot be read back", path);
		goto out;
	}
	for (i = 0; i < tasks->via.array.size; i++) {
		const msgpack_object *t = &tasks->via.array.ptr[i];
		const msgpack_object *v = sb_mp_get(t, SB_TM_CHILD);
		(*children)[i] = v && v->type == MSGPACK_OBJECT_POSITIVE_INTEGER ? (size_t)v->via.u64 : SIZE_MAX;
		if ((*children)[i] == SIZE_MAX) {
			free(*children);
			sb_errorf(err, "task map '%s': task %u names no child", path, i);
			goto out;
		}
	}
	*n = tasks->via.array.size;
	rc = 0;
out:
	msgpack_unpacked_destroy(&u);
	free(data);
	return rc;
}

int sb_jobs_read_attempt(const struct sb_bench *b, int64_t attempt,
			 const struct sb_attempt_settings *set,
			 struct sb_chunks *out, enum sb_jobs_found *found, struct sb_error *err)
{
	char path[PATH_MAX];
	size_t *all = NULL, n = 0, k, first_n = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	*found = SB_JOBS_NONE;
	if (attempt_path(b, attempt, 0, path, sizeof(path), err) < 0)
		return -1;
	if (access(path, F_OK) != 0)
		return 0;
	for (k = 0;; k++) {
		size_t *c, cn, *v;
		if (sb_bdir_chunk(path, sizeof(path), b->dir, attempt, (int64_t)k, "map") < 0 ||
		    access(path, F_OK) != 0)
			break;
		if (sb_jobs_map_children(path, &c, &cn, err) < 0)
			goto out;
		v = realloc(all, (n + cn) * sizeof(*v));
		if (v == NULL) {
			free(c);
			sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			goto out;
		}
		all = v;
		memcpy(all + n, c, cn * sizeof(*c));
		n += cn;
		if (k == 0)
			first_n = cn;
		free(c);
	}
	if (n == 0) {
		*found = SB_JOBS_UNPREPARED;
		rc = 0;
		goto out;
	}
	*found = SB_JOBS_PREPARED;
	/* the maps were written by sb_jobs_layout_first: laying the same
	 * children out again, chunk 0 as large as its map, gives the same
	 * chunks */
	rc = sb_jobs_layout_first(b, attempt, all, n, first_n, set, out, err);
out:
	free(all);
	return rc;
}
