#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/lock.h"
#include "submit/lane_private.h"
#include "base/proc.h"
#include "base/render.h"
#include "slurm/slurm_cmd.h"
#include "submit/submit_private.h"
#include "proto/json.h"
#include "proto/util.h"
#include "sbench/plan.h"
#include "sbench/spec.h"

#define LIST_MAX (16u << 20)
#define SQUEUE_MAX (64u << 20)

static char *lane_path(const char *root, const char *lane, const char *ext)
{
	char *p;

	return asprintf(&p, "%s/%s/%s.%s", root, SB_LANE_DIR, lane, ext) < 0 ? NULL : p;
}

/* ---- the lane's list: "<digest> <dir>\t<name>" lines -------------------- */

/* The dir and name the list gives a digest prefix; 0 and both NULL when
 * none does. */
static int list_find(const char *list, const char *digest12, char **dir, char **name)
{
	const char *line = list;

	*dir = *name = NULL;
	while (line && *line) {
		const char *end = strchr(line, '\n'), *sp = strchr(line, ' '), *tab;

		if (end == NULL)
			end = line + strlen(line);
		tab = sp ? memchr(sp, '\t', (size_t)(end - sp)) : NULL;
		if (sp && tab && sp < end && (size_t)(sp - line) == 64 && !strncmp(line, digest12, 12)) {
			free(*dir);
			free(*name);
			*dir = strndup(sp + 1, (size_t)(tab - sp - 1));
			*name = strndup(tab + 1, (size_t)(end - tab - 1));
			if (*dir == NULL || *name == NULL)
				return -1;
		}
		line = *end ? end + 1 : end;
	}
	return 0;
}

static int list_add(const char *path, const struct sb_submit_result *r, struct sb_error *err)
{
	char *line;
	int fd, n, rc = 0;

	if (strchr(r->dir, '\n') || strchr(r->dir, '\t'))
		return 0; /* cannot be listed: squeue still shows its jobs, without a dir */
	n = asprintf(&line, "%s %s\t%s\n", r->digest, r->dir, r->name);
	if (n < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, (size_t)n) != n || fsync(fd) != 0)
		rc = sb_errorf(err, "cannot add the benchmark to the lane's list '%s': %s", path,
			       strerror(errno));
	if (fd >= 0)
		close(fd);
	free(line);
	return rc;
}

/* ---- the queue ---------------------------------------------------------- */

static struct sb_lane_active *active_for(struct sb_lane_result *r, const char *digest12)
{
	struct sb_lane_active *v;
	size_t i;

	for (i = 0; i < r->nactive; i++)
		if (!strcmp(r->active[i].digest12, digest12))
			return &r->active[i];
	v = realloc(r->active, (r->nactive + 1) * sizeof(*v));
	if (v == NULL)
		return NULL;
	r->active = v;
	v += r->nactive++;
	memset(v, 0, sizeof(*v));
	memcpy(v->digest12, digest12, 13);
	return v;
}

static int add_job(struct sb_lane_active *a, const char *id, size_t len)
{
	char **v;
	size_t i;

	for (i = 0; i < a->njobs; i++)
		if (strlen(a->job_ids[i]) == len && !strncmp(a->job_ids[i], id, len))
			return 0;
	v = realloc(a->job_ids, (a->njobs + 1) * sizeof(*v));
	if (v == NULL)
		return -1;
	a->job_ids = v;
	if ((v[a->njobs] = strndup(id, len)) == NULL)
		return -1;
	a->njobs++;
	return 0;
}

/* One squeue call: the benchmarks of the lane with a job in the queue
 * (pending, running, completing...). */
static int find_active(struct sb_lane_result *r, const char *list, struct sb_error *err)
{
	char **argv = sb_slurm_squeue_mine_argv(err);
	struct sb_proc_result pr = { 0 };
	size_t plen = strlen(r->lane);
	char *line, *save = NULL;
	int rc = 0;

	if (argv == NULL)
		return -1;
	rc = sb_proc_run(argv, SQUEUE_MAX, 120000, &pr, err);
	sb_slurm_argv_free(argv);
	if (rc < 0) {
		sb_error_recode(err, SB_ERR_SCHEDULER);
		return -1;
	}
	if (pr.exit_code != 0 || pr.truncated) {
		rc = sb_error_set(err, SB_ERR_SCHEDULER, "squeue failed (%s): %.200s",
				  pr.truncated ? "its output is too long" : "non-zero exit",
				  pr.err ? pr.err : "");
		goto out;
	}
	for (line = strtok_r(pr.out ? pr.out : (char[]){ 0 }, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *name, *d;
		char digest12[13];
		size_t job_len;
		struct sb_lane_active *a;

		if (sb_slurm_mine_row(line, &job_len, &name) < 0)
			continue;
		/* "<lane>.sb-<12 hex>-a..." */
		if (strncmp(name, r->lane, plen) != 0 || strncmp(name + plen, ".sb-", 4) != 0)
			continue;
		d = name + plen + 4;
		if (strspn(d, "0123456789abcdef") < 12 || d[12] != '-')
			continue;
		memcpy(digest12, d, 12);
		digest12[12] = '\0';
		if ((a = active_for(r, digest12)) == NULL || add_job(a, line, job_len) < 0 ||
		    (a->dir == NULL && list_find(list, digest12, &a->dir, &a->name) < 0)) {
			rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
out:
	sb_proc_result_release(&pr);
	return rc;
}

/* ---- submit ------------------------------------------------------------- */

/* The spec's name and digest, for a result that submitted nothing. */
static int spec_identity(const char *spec_path, struct sb_lane_result *r, struct sb_error *err)
{
	struct sb_spec *s = sb_spec_load(spec_path, err);
	struct sb_plan *p = s ? sb_plan_create(s, err) : NULL;

	if (p == NULL) {
		sb_spec_destroy(s);
		return -1;
	}
	r->spec_name = strdup(sb_spec_name(s));
	memcpy(r->spec_digest, sb_plan_benchmark_digest_hex(p), 65);
	sb_plan_destroy(p);
	sb_spec_destroy(s);
	return r->spec_name ? 0 : sb_error_set(err, SB_ERR_NOMEM, "out of memory");
}

/* Under the lane's lock: busy, or submitted and listed. */
static int lane_submit(const struct sb_ctx *ctx, const char *spec_path,
		       const struct sb_submit_opts *sopts, struct sb_lane_result *r,
		       struct sb_error *err)
{
	const char *root = sb_ctx_root(ctx);
	char *dir = NULL, *lock = NULL, *listp = NULL, *list = NULL;
	size_t len = 0;
	struct sb_lock lk = { .fd = -1 };
	int rc = -1;

	if (asprintf(&dir, "%s/%s", root, SB_LANE_DIR) < 0 ||
	    (lock = lane_path(root, r->lane, "lock")) == NULL ||
	    (listp = lane_path(root, r->lane, "list")) == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (sb_fs_mkdirs(dir, 0755, err) < 0 || sb_lock_take(lock, NULL, NULL, &lk, err) < 0)
		goto out;
	if (access(listp, F_OK) == 0 && sb_fs_read_file(listp, LIST_MAX, &list, &len, err) < 0)
		goto out;
	if (find_active(r, list ? list : "", err) < 0)
		goto out;
	if ((int64_t)r->nactive >= r->max_active) {
		r->busy = true;
		rc = spec_identity(spec_path, r, err);
		goto out;
	}
	rc = sb_submit_lane(ctx, spec_path, sopts, r->lane, &r->submit, err);
	/* listed even after a partial submit: its jobs are in the queue */
	if (r->submit && r->submit->dir && !r->submit->already_submitted &&
	    list_add(listp, r->submit, rc == 0 ? err : NULL) < 0 && rc == 0)
		rc = -1;
out:
	sb_lock_release(&lk);
	free(dir);
	free(lock);
	free(listp);
	free(list);
	return rc;
}

int sb_lane_submit(const struct sb_ctx *ctx, const char *spec_path,
		   const struct sb_submit_opts *sopts, const struct sb_lane_opts *opts,
		   struct sb_lane_result **res, struct sb_error *err)
{
	bool dry_run = sopts && sopts->dry_run;
	struct sb_lane_opts lo = opts ? *opts : (struct sb_lane_opts){ 0 };
	struct sb_lane_result *r;
	int rc;

	*res = NULL;
	if (dry_run && (lo.check || lo.lane))
		return sb_error_set(err, SB_ERR_INPUT, "a dry run submits nothing: it cannot be "
				    "checked or kept in a lane");
	if (lo.lane && sb_lane_name_check(lo.lane, err) < 0)
		return -1;
	if (lo.max_active < 0 || lo.check_seconds < 0 || lo.check_interval < 0)
		return sb_error_set(err, SB_ERR_INPUT, "max_active, check_seconds and check_interval "
				    "must not be negative");
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	r->max_active = lo.max_active ? lo.max_active : 1;
	if (lo.lane) {
		if ((r->lane = strdup(lo.lane)) == NULL) {
			free(r);
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		}
		rc = lane_submit(ctx, spec_path, sopts, r, err);
	} else {
		rc = sb_submit_lane(ctx, spec_path, sopts, NULL, &r->submit, err);
	}
	if (rc == 0 && lo.check && !r->busy) {
		const struct sb_submit_result *s = r->submit;
		const size_t *first = NULL;
		size_t nfirst = 0;

		if (s->njobs > 0) {
			/* after a smoke test that passed, the first array of the rest */
			size_t k = s->smoke.outcome == SB_SUBMIT_SMOKE_PASSED && s->njobs > 1 ? 1 : 0;
			first = s->jobs[k].children;
			nfirst = s->jobs[k].n;
		}
		rc = sb_check_run(ctx, s->dir, first, nfirst, lo.check_seconds ? lo.check_seconds
				  : SB_CHECK_DEFAULT_SECONDS, lo.check_interval, &r->check, err);
		r->checked = rc == 0;
	}
	if (rc == 0 || r->submit)
		*res = r;
	else
		sb_lane_result_destroy(r);
	return rc;
}

bool sb_lane_result_busy(const struct sb_lane_result *r)
{
	return r && r->busy;
}

bool sb_lane_result_healthy(const struct sb_lane_result *r)
{
	return !r || !r->checked || r->check.healthy;
}

const struct sb_submit_result *sb_lane_result_submit(const struct sb_lane_result *r)
{
	return r ? r->submit : NULL;
}

/* ---- rendering ---------------------------------------------------------- */

static void json_lane(struct sb_json *j, const struct sb_lane_result *r)
{
	size_t i, k;

	sb_json_obj_begin(j);
	sb_json_key(j, "name");
	sb_json_str(j, r->lane);
	sb_json_key(j, "busy");
	sb_json_bool(j, r->busy);
	sb_json_key(j, "max_active");
	sb_json_int(j, r->max_active);
	sb_json_key(j, "active");
	sb_json_arr_begin(j);
	for (i = 0; i < r->nactive; i++) {
		const struct sb_lane_active *a = &r->active[i];
		sb_json_obj_begin(j);
		sb_json_key(j, "dir");
		sb_json_str(j, a->dir);
		sb_json_key(j, "name");
		sb_json_str(j, a->name);
		sb_json_key(j, "digest_prefix");
		sb_json_str(j, a->digest12);
		sb_json_key(j, "job_ids");
		sb_json_arr_begin(j);
		for (k = 0; k < a->njobs; k++)
			sb_json_str(j, a->job_ids[k]);
		sb_json_arr_end(j);
		sb_json_obj_end(j);
	}
	sb_json_arr_end(j);
	sb_json_obj_end(j);
}

/* The submit's document without its closing brace, then the lane's keys. */
static int render_json(const struct sb_lane_result *r, FILE *out, struct sb_error *err)
{
	struct sb_json j;
	char *buf = NULL;
	size_t len = 0;

	if (r->submit) {
		if (sb_submit_render_buffer(r->submit, SB_FORMAT_JSON, &buf, &len, err) < 0)
			return -1;
		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
			len--;
		if (len == 0 || buf[len - 1] != '}') {
			free(buf);
			return sb_error_set(err, SB_ERR_RUNTIME, "the submit's JSON is not an object");
		}
		fwrite(buf, 1, len - 1, out);
		free(buf);
	} else { /* busy: the benchmark the spec would be, nothing submitted */
		fputs("{\"format\":1,\"benchmark\":", out);
		sb_json_init(&j, out);
		sb_json_obj_begin(&j);
		sb_json_key(&j, "name");
		sb_json_str(&j, r->spec_name);
		sb_json_key(&j, "digest");
		sb_json_str(&j, r->spec_digest);
		sb_json_key(&j, "dir");
		sb_json_null(&j);
		sb_json_obj_end(&j);
		fputs(",\"already_submitted\":false,\"jobs\":[]", out);
	}
	if (r->lane) {
		fputs(",\"lane\":", out);
		sb_json_init(&j, out);
		json_lane(&j, r);
	}
	if (r->checked) {
		fputs(",\"check\":", out);
		sb_json_init(&j, out);
		sb_check_json(&j, &r->check);
	}
	fputs("}\n", out);
	return 0;
}

static void render_text(const struct sb_lane_result *r, FILE *out)
{
	size_t i, k;

	if (r->busy) {
		fprintf(out, "lane %s is busy: %zu of at most %" PRId64 " benchmark%s still active, "
			"nothing submitted\n", r->lane, r->nactive, r->max_active,
			r->max_active == 1 ? "" : "s");
		for (i = 0; i < r->nactive; i++) {
			const struct sb_lane_active *a = &r->active[i];
			fprintf(out, "  %s (%s): jobs", a->name ? a->name : "?",
				a->dir ? a->dir : a->digest12);
			for (k = 0; k < a->njobs; k++)
				fprintf(out, " %s", a->job_ids[k]);
			fputc('\n', out);
		}
		return;
	}
	if (r->lane)
		fprintf(out, "lane %s: %zu other benchmark%s active (at most %" PRId64 ")\n", r->lane,
			r->nactive, r->nactive == 1 ? "" : "s", r->max_active);
	if (r->checked)
		sb_check_text(out, &r->check);
}

static int render(const void *obj, int format, FILE *out, struct sb_error *err)
{
	const struct sb_lane_result *r = obj;

	if (format == SB_FORMAT_JSON) {
		if (render_json(r, out, err) < 0)
			return -1;
	} else if (format == SB_FORMAT_TEXT) {
		if (r->submit && sb_submit_render(r->submit, SB_FORMAT_TEXT, out, err) < 0)
			return -1;
		render_text(r, out);
	} else {
		return sb_error_set(err, SB_ERR_INPUT, "a lane submit is rendered as text or JSON, "
				    "not format %d", format);
	}
	return sb_render_flush(out, err);
}

int sb_lane_render(const struct sb_lane_result *r, enum sb_format format, FILE *out,
		   struct sb_error *err)
{
	return render(r, (int)format, out, err);
}

int sb_lane_render_buffer(const struct sb_lane_result *r, enum sb_format format, char **buf,
			  size_t *len, struct sb_error *err)
{
	return sb_render_buffer(render, r, (int)format, buf, len, err);
}

void sb_lane_result_destroy(struct sb_lane_result *r)
{
	size_t i, k;

	if (r == NULL)
		return;
	for (i = 0; i < r->nactive; i++) {
		for (k = 0; k < r->active[i].njobs; k++)
			free(r->active[i].job_ids[k]);
		free(r->active[i].job_ids);
		free(r->active[i].dir);
		free(r->active[i].name);
	}
	free(r->active);
	free(r->lane);
	free(r->spec_name);
	sb_submit_result_destroy(r->submit);
	sb_check_release(&r->check);
	free(r);
}
