#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>
#include <openssl/sha.h>

#include "bench/bench_private.h"
#include "bench/output_cache.h"
#include "sbench/context.h"
#include "plan/plan_canon.h"
#include "plan/plan_inputs.h"
#include "base/fsutil.h"
#include "base/lock.h"
#include "bench/index_private.h"
#include "log/logview_private.h"
#include "proto/inputs.h"
#include "proto/mpcheck.h"
#include "proto/recordkeys.h"
#include "proto/util.h"
#include "sbench/key.h"

char *sb_bench_dir_for(const char *root, const char *name, const char *digest,
		       struct sb_error *err)
{
	char cwd[PATH_MAX], *out;
	int n;

	if (root[0] == '/') {
		n = asprintf(&out, "%s/%s-%.12s", root, name, digest);
	} else {
		if (getcwd(cwd, sizeof(cwd)) == NULL) {
			sb_errorf(err, "cannot find the current directory: %s", strerror(errno));
			return NULL;
		}
		n = asprintf(&out, "%s/%s/%s-%.12s", cwd, root, name, digest);
	}
	if (n < 0) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	sb_fs_tidy_path(out);
	if (strlen(out) > PATH_MAX - 64) {
		sb_errorf(err, "benchmark directory '%s': path too long", out);
		free(out);
		return NULL;
	}
	return out;
}

static int join(const char *dir, const char *rel, char *buf, size_t size, struct sb_error *err)
{
	int n = snprintf(buf, size, "%s/%s", dir, rel);

	if (n < 0 || (size_t)n >= size)
		return sb_errorf(err, "path '%s/%s' is too long", dir, rel);
	return 0;
}

int sb_bench_path(const struct sb_bench *b, const char *rel, char *buf, size_t size,
		  struct sb_error *err)
{
	return join(b->dir, rel, buf, size, err);
}

/* Loads the key of a benchmark whose record is there, so its key is too
 * (it is made first): a "no such file" is this client's cache hiding a
 * key made through another node moments ago (sb_bench_check_dir looked
 * before it was made), and the file server is asked. */
static int load_made_key(const char *path, struct sb_key *key, struct sb_error *err)
{
	if (sb_key_load(path, key, err) == 0)
		return 0;
	if (access(path, F_OK) == 0 || errno != ENOENT || sb_fs_reveal(path) != 1)
		return -1;
	if (err)
		memset(err, 0, sizeof(*err));
	return sb_key_load(path, key, err);
}

int sb_bench_load_key(const struct sb_bench *b, struct sb_key *key, struct sb_error *err)
{
	char path[PATH_MAX];

	if (sb_bench_path(b, SB_BENCH_KEY, path, sizeof(path), err) < 0)
		return -1;
	return load_made_key(path, key, err);
}

static int mkdir_mode(const char *path, mode_t mode, struct sb_error *err)
{
	if (mkdir(path, mode) < 0 && errno != EEXIST)
		return sb_errorf(err, "cannot create directory '%s': %s", path, strerror(errno));
	return 0;
}

/* ---- ownership and modes ---------------------------------------------- */

/* One entry of the benchmark directory that check_dir looks at. */
struct dir_rule {
	const char *rel, *what;
	mode_t forbidden; /* mode bits it must not have */
	const char *fix;  /* how to fix the mode */
};

static const struct dir_rule dir_rules[] = {
	{ "events", "events directory", S_IWGRP | S_IWOTH, "chmod go-w" },
	{ "submissions", "submissions directory", S_IWGRP | S_IWOTH, "chmod go-w" },
	{ "jobs", "jobs directory", S_IWGRP | S_IWOTH, "chmod go-w" },
	{ "keys", "keys directory", 0077, "chmod 700" },
};

/* An entry dir/rel that exists must be a directory (not a symbolic link)
 * owned by the user, without the forbidden mode bits.  A missing one is
 * fine here: a half-made directory is completed by sb_bench_create, and the
 * commands that need an entry say so when they do not find it. */
static int check_entry(const char *dir, const struct dir_rule *r, struct sb_error *err)
{
	char path[PATH_MAX];
	struct stat st;

	if (join(dir, r->rel, path, sizeof(path), err) < 0)
		return -1;
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return sb_errorf(err, "cannot use %s '%s': %s", r->what, path, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return sb_errorf(err, "refusing %s '%s': %s, not a directory", r->what, path,
				 S_ISLNK(st.st_mode) ? "a symbolic link" : "a file");
	if (st.st_uid != geteuid())
		return sb_errorf(err, "refusing %s '%s': owned by uid %ld, not by you (uid %ld)",
				 r->what, path, (long)st.st_uid, (long)geteuid());
	if (st.st_mode & r->forbidden)
		return sb_errorf(err, "refusing %s '%s': mode %04o gives group or others %s "
				 "(%s '%s')", r->what, path, (unsigned)(st.st_mode & 07777),
				 r->forbidden == 0077 ? "access" : "write permission", r->fix, path);
	return 0;
}

int sb_bench_check_dir(const char *dir, struct sb_error *err)
{
	char key[PATH_MAX];
	struct stat st;
	struct sb_key k;
	size_t i;
	int rc;

	if (sb_fs_check_owned(dir, "benchmark directory", err) < 0)
		return -1;
	for (i = 0; i < sizeof(dir_rules) / sizeof(dir_rules[0]); i++)
		if (check_entry(dir, &dir_rules[i], err) < 0)
			return -1;
	if (join(dir, SB_BENCH_KEY, key, sizeof(key), err) < 0)
		return -1;
	if (lstat(key, &st) < 0 && errno == ENOENT)
		return 0;
	rc = sb_key_load(key, &k, err); /* the key rules: no link, yours, mode 600 */
	sb_key_cleanse(&k);
	return rc;
}

/* ---- the record ------------------------------------------------------ */

/* "inputs": every input file of the children, with its digest at submit
 * and whether the spec's `inputs` key gave it (docs/benchmark-dir.md). */
static void encode_inputs(struct sb_canon *c, const struct sb_inputs *in)
{
	size_t i, n, *order = sb_inputs_sorted(in, &n);

	if (order == NULL) {
		c->failed = true;
		return;
	}
	sb_canon_cstr(c, SB_BK_INPUTS);
	sb_canon_map(c, n);
	for (i = 0; i < n; i++) {
		const struct sb_input_file *f = sb_inputs_file(in, order[i]);
		sb_canon_cstr(c, f->rel);
		sb_canon_map(c, 2);
		sb_canon_cstr(c, SB_BK_LISTED);
		sb_canon_bool(c, f->listed);
		sb_canon_cstr(c, SB_BK_SHA256);
		sb_canon_bin(c, f->sha, sizeof(f->sha));
	}
	free(order);
}

static int encode_record(const struct sb_bench_new *n, struct sb_canon *c, struct sb_error *err)
{
	const struct sb_plan *plan = n->plan;
	const struct sb_spec *spec = sb_plan_spec(plan);
	const struct sb_provenance *p = n->prov;
	const struct sb_inputs *in = sb_plan_inputs(plan);
	size_t i, count = sb_plan_count(plan);
	struct sb_child *ch = sb_child_create();
	uint8_t sha[SHA256_DIGEST_LENGTH];
	char hex[65], when[32];

	if (ch == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	sb_canon_map(c, 10 + (n->lane ? 1 : 0) + (in ? 1 : 0));
	sb_canon_cstr(c, "child_list");
	sb_canon_array(c, count);
	for (i = 0; i < count; i++) {
		if (sb_plan_child(plan, i, ch, err) < 0) {
			sb_child_destroy(ch);
			return -1;
		}
		sb_canon_map(c, 4);
		sb_canon_key_cstr(c, "digest", sb_child_digest_hex(ch));
		sb_canon_cstr(c, "index");
		sb_canon_int(c, (int64_t)i);
		sb_canon_cstr(c, "params");
		sb_plan_canon_params(c, spec, ch);
		sb_canon_cstr(c, "repeat");
		sb_canon_int(c, sb_child_repeat(ch));
	}
	sb_child_destroy(ch);
	sb_canon_cstr(c, "children");
	sb_canon_int(c, (int64_t)count);
	sb_canon_key_cstr(c, "digest", sb_plan_benchmark_digest_hex(plan));
	sb_canon_cstr(c, "format");
	sb_canon_int(c, 1);
	if (in)
		encode_inputs(c, in);
	sb_canon_cstr(c, "kill_wait");
	sb_canon_int(c, n->cfg->kill_wait);
	if (n->lane)
		sb_canon_key_cstr(c, "lane", n->lane);
	sb_canon_cstr(c, "max_array_size");
	sb_canon_int(c, n->cfg->max_array_size);
	sb_canon_key_cstr(c, "name", sb_spec_name(spec));

	sb_canon_cstr(c, "provenance");
	sb_canon_map(c, 8);
	sb_canon_key_cstr(c, "cluster", n->cfg->cluster[0] ? n->cfg->cluster : NULL);
	sb_canon_cstr(c, "git");
	if (p->has_git) {
		sb_canon_map(c, 4);
		sb_canon_key_cstr(c, "commit", p->git_commit[0] ? p->git_commit : NULL);
		sb_canon_key_cstr(c, "diff_sha256", p->git_diff_sha256[0] ? p->git_diff_sha256 : NULL);
		sb_canon_cstr(c, "dirty");
		sb_canon_bool(c, p->git_dirty);
		sb_canon_key_cstr(c, "root", p->git_root);
	} else {
		sb_canon_nil(c);
	}
	sb_canon_key_cstr(c, "host", p->host);
	sb_canon_key_cstr(c, "sbctl_version", SB_VERSION);
	sb_canon_key_cstr(c, "slurm_version", n->cfg->version[0] ? n->cfg->version : NULL);
	sb_canon_key_cstr(c, "time", sb_fmt_time_ns(p->time_ns, when));
	sb_canon_cstr(c, "uid");
	sb_canon_int(c, p->uid);
	sb_canon_key_cstr(c, "user", p->user);

	sb_canon_cstr(c, "spec");
	sb_canon_map(c, 4);
	sb_canon_key_cstr(c, "dir", n->spec_dir);
	sb_canon_key_cstr(c, "path", n->spec_path);
	SHA256((const unsigned char *)n->spec_source, n->spec_len, sha);
	sb_hex_encode(sha, sizeof(sha), hex);
	sb_canon_key_cstr(c, "sha256", hex);
	sb_canon_cstr(c, "source");
	sb_canon_str(c, n->spec_source, n->spec_len);
	sb_canon_key_cstr(c, "tag", sb_spec_tag(spec));
	if (c->failed)
		return sb_error_set(err, SB_ERR_NOMEM, "benchmark record: out of memory or larger than %zu bytes",
				 SB_BENCH_RECORD_MAX);
	return 0;
}

/* The JSON twin of a msgpack record. */
static int write_json_twin(const char *path, const uint8_t *rec, size_t len, struct sb_error *err)
{
	msgpack_unpacked u;
	char *text = NULL;
	size_t tlen = 0;
	FILE *f;
	struct sb_json j;
	int rc;

	msgpack_unpacked_init(&u);
	if (sb_mp_unpack_one(rec, len, &u) < 0) {
		msgpack_unpacked_destroy(&u);
		return sb_errorf(err, "benchmark record: cannot decode what was just encoded");
	}
	f = open_memstream(&text, &tlen);
	if (f == NULL) {
		msgpack_unpacked_destroy(&u);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	sb_json_init(&j, f);
	sb_logview_json_value(&j, &u.data);
	fputc('\n', f);
	fclose(f);
	msgpack_unpacked_destroy(&u);
	rc = sb_fs_write_atomic(path, text, tlen, 0444, 0, err);
	free(text);
	return rc;
}

/* ---- creating ---------------------------------------------------------- */

static struct sb_bench *open_bench(const char *path, int *refused, struct sb_error *err);

/* The benchmark's key: 0 made now, 1 loaded (it was there), -1. */
static int make_key(const char *dir, struct sb_error *err)
{
	char keys[PATH_MAX], key[PATH_MAX];
	struct sb_key k;

	if (join(dir, "keys", keys, sizeof(keys), err) < 0 ||
	    join(dir, SB_BENCH_KEY, key, sizeof(key), err) < 0)
		return -1;
	if (mkdir_mode(keys, 0700, err) < 0)
		return -1;
	if (chmod(keys, 0700) < 0)
		return sb_errorf(err, "cannot chmod '%s': %s", keys, strerror(errno));
	/* an existing key is loaded, also one that a client's cache hid
	 * from access() but the file server knew (O_EXCL said EEXIST): the
	 * benchmark was made through another node (docs/shared-storage.md) */
	if (access(key, F_OK) != 0) {
		if (sb_key_generate_file(key, err) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
		if (err)
			memset(err, 0, sizeof(*err));
	}
	int rc = load_made_key(key, &k, err);
	sb_key_cleanse(&k);
	return rc < 0 ? -1 : 1;
}

/* Makes the benchmark in dir: 0, 1 when its key was there already (an
 * interrupted creation, or one through another node that this client's
 * cache does not show yet: the benchmark is taken as existing), or -1. */
static int fill(const struct sb_bench_new *n, const char *dir, struct sb_error *err)
{
	/* runs/<index>/ is made by each child's sbagent when it runs (mkdir
	 * -p), not here: nothing per child at submit */
	static const char *const subdirs[] = { "submissions", "events", "runs", "jobs" };
	char path[PATH_MAX];
	struct sb_canon c;
	size_t i;
	int rc, key_was_there = make_key(dir, err);

	if (key_was_there < 0)
		return -1;
	for (i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++)
		if (join(dir, subdirs[i], path, sizeof(path), err) < 0 ||
		    mkdir_mode(path, 0755, err) < 0)
			return -1;
	sb_canon_init(&c, SB_BENCH_RECORD_MAX);
	rc = encode_record(n, &c, err);
	if (rc == 0)
		rc = join(dir, SB_BENCH_RECORD_JSON, path, sizeof(path), err);
	if (rc == 0)
		rc = write_json_twin(path, c.buf, c.len, err);
	if (rc == 0)
		rc = join(dir, SB_BENCH_RECORD, path, sizeof(path), err);
	if (rc == 0)
		rc = sb_fs_write_atomic(path, c.buf, c.len, 0444, 1, err);
	sb_canon_release(&c);
	return rc < 0 ? rc : key_was_there;
}

int sb_bench_create(const struct sb_bench_new *n, char **dir_out, int *existed,
		    struct sb_error *err)
{
	const char *digest = sb_plan_benchmark_digest_hex(n->plan);
	char *dir, lock[PATH_MAX], rec[PATH_MAX];
	struct sb_lock lk;
	bool again;
	int rc = -1;

	*existed = 0;
	*dir_out = NULL;
	dir = sb_bench_dir_for(n->root, sb_spec_name(sb_plan_spec(n->plan)), digest, err);
	if (dir == NULL)
		return -1;
	if (sb_fs_mkdirs(n->root, 0755, err) < 0 || mkdir_mode(dir, 0755, err) < 0) {
		free(dir);
		return -1;
	}
	/* Another client may be making this directory right now (its key
	 * being written, a subdirectory not there yet): what the check
	 * refuses in its entries is judged again under the lock, once that
	 * client is done.  The directory itself must be ours before its lock
	 * is taken. */
	if ((again = sb_bench_check_dir(dir, err) < 0) &&
	    sb_fs_check_owned(dir, "benchmark directory", err) < 0) {
		free(dir);
		return -2;
	}
	if (join(dir, "lock", lock, sizeof(lock), err) < 0 ||
	    join(dir, SB_BENCH_RECORD, rec, sizeof(rec), err) < 0) {
		free(dir);
		return -1;
	}
	if (sb_lock_take(lock, NULL, NULL, &lk, err) < 0) {
		free(dir);
		return -1;
	}
	if (again && sb_bench_check_dir(dir, err) < 0) {
		sb_lock_release(&lk);
		free(dir);
		return -2;
	}
	/* a record this client's cache hides (made through another node
	 * moments ago) is asked of the file server: under the lock no one
	 * else writes it */
	if (access(rec, F_OK) == 0 || (errno == ENOENT && sb_fs_reveal(rec) == 1)) {
		int refused = 0;
		struct sb_bench *b = open_bench(dir, &refused, err);
		if (b == NULL && refused)
			rc = -2;
		else if (b != NULL && strcmp(b->digest, digest) != 0)
			sb_errorf(err, "benchmark directory '%s' holds benchmark %s, not %s", dir,
				  b->digest, digest);
		else if (b != NULL)
			rc = 0, *existed = 1;
		sb_bench_destroy(b);
	} else if ((rc = fill(n, dir, err)) == 1) {
		rc = 0, *existed = 1;
	}
	sb_lock_release(&lk);
	if (rc < 0) {
		free(dir);
		return rc;
	}
	*dir_out = dir;
	return 0;
}

/* ---- opening ----------------------------------------------------------- */

static char *get_str(const msgpack_object *map, const char *key, size_t *len)
{
	const msgpack_object *o = sb_mp_get(map, key);
	char *s;

	if (o == NULL || o->type != MSGPACK_OBJECT_STR)
		return NULL;
	s = malloc(o->via.str.size + 1);
	if (s == NULL)
		return NULL;
	memcpy(s, o->via.str.ptr, o->via.str.size);
	s[o->via.str.size] = '\0';
	if (len)
		*len = o->via.str.size;
	return s;
}

/* The record's "inputs" (absent: none) into a recorded table. */
static int read_inputs(struct sb_bench *b, const msgpack_object *o)
{
	char rel[SB_INPUTS_MAX_PATH];
	uint32_t i;

	b->inputs = sb_inputs_create(NULL);
	if (b->inputs == NULL)
		return -1;
	if (o == NULL)
		return 0;
	if (o->type != MSGPACK_OBJECT_MAP)
		return -1;
	for (i = 0; i < o->via.map.size; i++) {
		const msgpack_object *k = &o->via.map.ptr[i].key, *v = &o->via.map.ptr[i].val;
		const msgpack_object *sha = sb_mp_get(v, SB_BK_SHA256), *listed = sb_mp_get(v, SB_BK_LISTED);
		if (k->type != MSGPACK_OBJECT_STR || k->via.str.size >= sizeof(rel) || sha == NULL ||
		    sha->type != MSGPACK_OBJECT_BIN || sha->via.bin.size != 32 || listed == NULL ||
		    listed->type != MSGPACK_OBJECT_BOOLEAN)
			return -1;
		if (k->via.str.size)
			memcpy(rel, k->via.str.ptr, k->via.str.size);
		rel[k->via.str.size] = '\0';
		if (memchr(k->via.str.ptr, '\0', k->via.str.size) != NULL ||
		    sb_inputs_record(b->inputs, rel, (const uint8_t *)sha->via.bin.ptr, listed->via.boolean) < 0)
			return -1;
	}
	return 0;
}

static int get_int(const msgpack_object *map, const char *key, int64_t *out)
{
	const msgpack_object *o = sb_mp_get(map, key);

	if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX) {
		*out = (int64_t)o->via.u64;
		return 0;
	}
	return -1;
}

/* Finds the benchmark directory at or above path. */
static char *find_dir(const char *path, struct sb_error *err)
{
	char real[PATH_MAX], probe[PATH_MAX + 32];
	char *slash;

	if (realpath(path, real) == NULL) {
		sb_error_set(err, errno == ENOENT || errno == ENOTDIR ? SB_ERR_NOT_FOUND : SB_ERR_INPUT,
			     "cannot open benchmark '%s': %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		snprintf(probe, sizeof(probe), "%s/" SB_BENCH_RECORD, real);
		if (access(probe, F_OK) == 0)
			return strdup(real);
		slash = strrchr(real, '/');
		if (slash == NULL || slash == real)
			break;
		*slash = '\0';
	}
	sb_error_set(err, SB_ERR_NOT_FOUND, "'%s' is not in a benchmark directory (no %s found "
		     "in it or above it)", path, SB_BENCH_RECORD);
	return NULL;
}

/* sb_bench_open; *refused is set to 1 when the directory is refused by
 * sb_bench_check_dir. */
static struct sb_bench *open_bench(const char *path, int *refused, struct sb_error *err)
{
	struct sb_bench *b = calloc(1, sizeof(*b));
	char rec[PATH_MAX], *data = NULL, *digest = NULL;
	const msgpack_object *spec, *prov;
	msgpack_unpacked u;
	size_t len;
	int64_t children = -1, format = 0;
	char *when;

	if (b == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	b->dir = find_dir(path, err);
	if (b->dir != NULL && sb_bench_check_dir(b->dir, err) < 0) {
		*refused = 1;
		sb_bench_destroy(b);
		return NULL;
	}
	if (b->dir == NULL || join(b->dir, SB_BENCH_RECORD, rec, sizeof(rec), err) < 0 ||
	    sb_fs_read_file(rec, SB_BENCH_RECORD_MAX, &data, &len, err) < 0) {
		sb_bench_destroy(b);
		return NULL;
	}
	msgpack_unpacked_init(&u);
	if (sb_mp_unpack_one(data, len, &u) < 0 || u.data.type != MSGPACK_OBJECT_MAP) {
		sb_errorf(err, "'%s': not a benchmark record (cannot decode it)", rec);
		goto fail;
	}
	spec = sb_mp_get(&u.data, "spec");
	prov = sb_mp_get(&u.data, "provenance");
	b->name = get_str(&u.data, "name", NULL);
	b->lane = get_str(&u.data, "lane", NULL);
	b->tag = get_str(&u.data, "tag", NULL);
	digest = get_str(&u.data, "digest", NULL);
	b->spec_source = spec ? get_str(spec, "source", &b->spec_len) : NULL;
	b->spec_path = spec ? get_str(spec, "path", NULL) : NULL;
	b->spec_dir = spec ? get_str(spec, "dir", NULL) : NULL;
	if (prov && prov->type == MSGPACK_OBJECT_MAP) {
		msgpack_sbuffer sb;
		msgpack_packer pk;
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		if (msgpack_pack_object(&pk, *prov) < 0 || sb.data == NULL) {
			msgpack_sbuffer_destroy(&sb);
			sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			goto fail;
		}
		b->prov_mp_len = sb.size;
		b->prov_mp = msgpack_sbuffer_release(&sb);
	}
	if (read_inputs(b, sb_mp_get(&u.data, SB_BK_INPUTS)) < 0) {
		sb_errorf(err, "'%s': its 'inputs' are not a map of files to digests", rec);
		goto fail;
	}
	when = prov ? get_str(prov, "time", NULL) : NULL;
	if (when) {
		struct tm tm = { 0 };
		long ns = 0;
		if (sscanf(when, "%d-%d-%dT%d:%d:%d.%ldZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ns) == 7) {
			tm.tm_year -= 1900;
			tm.tm_mon -= 1;
			b->created_ns = (int64_t)timegm(&tm) * 1000000000LL + ns;
		}
		free(when);
	}
	if (get_int(&u.data, "format", &format) < 0 || format != 1) {
		sb_errorf(err, "'%s': benchmark record format %lld is not supported by sbctl %s",
			  rec, (long long)format, SB_VERSION);
		goto fail;
	}
	if (b->name == NULL || digest == NULL || strlen(digest) != 64 || b->spec_source == NULL ||
	    get_int(&u.data, "children", &children) < 0 ||
	    get_int(&u.data, "max_array_size", &b->max_array_size) < 0 ||
	    get_int(&u.data, "kill_wait", &b->kill_wait) < 0 || b->max_array_size < 1) {
		sb_errorf(err, "'%s': benchmark record lacks a required field", rec);
		goto fail;
	}
	memcpy(b->digest, digest, 65);
	b->children = (size_t)children;
	free(digest);
	free(data);
	msgpack_unpacked_destroy(&u);
	return b;
fail:
	free(digest);
	free(data);
	msgpack_unpacked_destroy(&u);
	sb_bench_destroy(b);
	return NULL;
}

struct sb_bench *sb_bench_open(const char *path, struct sb_error *err)
{
	struct sb_error e = { 0 };
	struct sb_bench *b;
	int refused = 0;

	b = open_bench(path, &refused, &e);
	if (b == NULL && err) {
		/* nothing there: not found; anything else (refused, a record that
		 * cannot be read or decoded) is a benchmark sbench will not use */
		*err = e;
		if (e.code != SB_ERR_NOMEM && (refused || e.code != SB_ERR_NOT_FOUND))
			err->code = SB_ERR_INPUT;
	}
	return b;
}

int sb_bench_plan(struct sb_bench *b, struct sb_error *err)
{
	char display[PATH_MAX + 32];

	if (b->plan)
		return 0;
	snprintf(display, sizeof(display), "%s (as recorded)", b->spec_path ? b->spec_path : "spec");
	b->spec = sb_spec_load_buffer(b->spec_source, b->spec_len, display, err);
	if (b->spec == NULL)
		return -1;
	b->plan = sb_plan_create_inputs(b->spec, b->inputs, err);
	if (b->plan != NULL && (strcmp(sb_plan_benchmark_digest_hex(b->plan), b->digest) != 0 ||
				sb_plan_count(b->plan) != b->children))
		sb_errorf(err, "benchmark '%s': its recorded spec plans to digest %s, not the "
			  "recorded %s (a different sbctl version, or a changed record)",
			  b->dir, sb_plan_benchmark_digest_hex(b->plan), b->digest);
	else if (b->plan != NULL)
		return 0;
	/* a recorded spec that does not plan is a broken benchmark, not the
	 * caller's input; a later call tries again, and never takes a wrong
	 * plan for the record's */
	if (err && err->code != SB_ERR_NOMEM)
		err->code = SB_ERR_RUNTIME;
	sb_plan_destroy(b->plan);
	sb_spec_destroy(b->spec);
	b->plan = NULL;
	b->spec = NULL;
	return -1;
}

void sb_bench_destroy(struct sb_bench *b)
{
	if (b == NULL)
		return;
	sb_output_cache_free(b->outputs);
	sb_plan_destroy(b->plan);
	sb_spec_destroy(b->spec);
	free(b->dir);
	free(b->name);
	free(b->tag);
	free(b->lane);
	free(b->spec_source);
	free(b->spec_path);
	free(b->spec_dir);
	sb_inputs_destroy(b->inputs);
	free(b->prov_mp);
	free(b);
}

void sb_bench_index_entry(const struct sb_bench *b, struct sb_index_bench *out)
{
	memset(out, 0, sizeof(*out));
	out->name = b->name;
	out->digest = (char *)b->digest;
	out->dir = b->dir;
	out->created_ns = b->created_ns;
	out->tag = b->tag;
	out->children = (int64_t)b->children;
}

struct sb_bench *sb_bench_find(const struct sb_ctx *ctx, const char *arg, struct sb_error *err)
{
	const char *index = ctx ? sb_ctx_index(ctx) : NULL;
	struct sb_index_bench ib;
	struct sb_index *idx;
	struct sb_bench *b;
	size_t named = 0;
	int found;

	if (strchr(arg, '/') || access(arg, F_OK) == 0) {
		/* a benchmark named by its path is (re)learnt by the local index, so
		 * that its name works again after the index was lost */
		b = sb_bench_open(arg, err);
		if (b != NULL && index && (idx = sb_index_open(index, NULL, NULL)) != NULL) {
			struct sb_index_bench nb;
			sb_bench_index_entry(b, &nb);
			sb_index_put_bench(idx, &nb, NULL);
			sb_index_close(idx);
		}
		return b;
	}
	if (index == NULL) {
		sb_error_set(err, SB_ERR_NOT_FOUND, "no benchmark '%s': not a path, and no local index "
			     "is configured to look the name up in", arg);
		return NULL;
	}
	idx = sb_index_open(index, NULL, err);
	if (idx == NULL)
		return NULL;
	found = sb_index_find_bench(idx, arg, &ib, &named, err);
	sb_index_close(idx);
	if (found < 0)
		return NULL;
	if (found == 0) {
		sb_error_set(err, SB_ERR_NOT_FOUND, "no benchmark '%s': not a path, and the local index knows no benchmark "
			  "of that name or digest prefix ('sbctl list' shows them; 'sbctl index "
			  "--rebuild ROOT' adds those under ROOT)", arg);
		return NULL;
	}
	if (named > 1) {
		char when[32];
		sb_ctx_warn(ctx, "'%s' names %zu benchmarks: using the latest, %s-%.12s%s%s (created %s; "
			    "'sbctl list' shows the others, a digest prefix or directory names one)", arg,
			    named, ib.name, ib.digest, ib.tag ? ", tag " : "", ib.tag ? ib.tag : "",
			    sb_fmt_time_ns(ib.created_ns, when));
	}
	b = sb_bench_open(ib.dir, err);
	if (b == NULL)
		sb_error_prefix(err, "benchmark '%s' (from the local index)", arg);
	sb_index_bench_release(&ib);
	return b;
}

const char *sb_bench_dir(const struct sb_bench *b) { return b->dir; }
const char *sb_bench_name(const struct sb_bench *b) { return b->name; }
const char *sb_bench_tag(const struct sb_bench *b) { return b->tag; }
const char *sb_bench_digest(const struct sb_bench *b) { return b->digest; }
size_t sb_bench_children(const struct sb_bench *b) { return b->children; }
