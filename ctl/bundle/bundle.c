/* The signed bundle of a benchmark (sbctl export, docs/sbctl-export.md):
 * an in-toto Statement v1 in a DSSE envelope signed with Ed25519.
 *
 * The predicate reuses the owners of each format: the status of every
 * child is the JSON of `sbctl status --json`, the analysis that of
 * `sbctl analyze --json`, each child's metrics those of `sbctl analyze
 * --runs --json`; this file adds what no renderer says (the heads of the
 * logs, the result digests of the verified finish records) and the
 * envelope. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <msgpack.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "sbench/analyze.h"
#include "sbench/bench.h"
#include "sbench/bundle.h"
#include "sbench/key.h"
#include "sbench/log.h"
#include "sbench/sbench.h"

#include "bench/bench_private.h"
#include "log/logfiles.h"
#include "plan/plan_inputs.h"
#include "status/evidence.h"
#include "proto/benchdir.h"
#include "proto/json.h"
#include "proto/mpcheck.h"
#include "proto/recordkeys.h"
#include "proto/util.h"

/* A JSON document of a renderer without its line end, for sb_json_raw. */
static void chomp(char *s, size_t *len)
{
	while (*len > 0 && (s[*len - 1] == '\n' || s[*len - 1] == '\r'))
		s[--*len] = '\0';
}

/* base64 (RFC 4648, with padding) of n bytes, malloc'd; NULL when out of memory. */
static char *base64_of(const unsigned char *b, size_t n)
{
	size_t cap = 4 * ((n + 2) / 3) + 1, done = 0;
	char *out = malloc(cap);

	if (out == NULL)
		return NULL;
	/* EVP_EncodeBlock takes an int: in pieces of a multiple of 3 bytes */
	while (n > 0) {
		size_t piece = n > (size_t)3 << 20 ? (size_t)3 << 20 : n;
		done += (size_t)EVP_EncodeBlock((unsigned char *)out + done, b, (int)piece);
		b += piece;
		n -= piece;
	}
	out[done] = '\0';
	return out;
}

/* Closes the memory stream of j: -1 when the document is not whole (the
 * writer's error is read before the stream goes). */
static int close_json(struct sb_json *j, FILE *mf)
{
	bool bad = sb_json_error(j);

	if (fclose(mf) != 0)
		bad = true;
	return bad ? -1 : 0;
}

/* The private key at path: a regular file of the user's, no group or other bits. */
static EVP_PKEY *load_private_key(const char *path, struct sb_error *err)
{
	struct stat st;
	EVP_PKEY *pkey;
	FILE *f;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT)
			sb_error_set(err, SB_ERR_NOT_FOUND, "signing key '%s' does not exist", path);
		else if (errno == ELOOP)
			sb_error_set(err, SB_ERR_INPUT, "signing key '%s' is a symbolic link; "
				     "name the file itself", path);
		else
			sb_errorf(err, "cannot open signing key '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		sb_error_set(err, SB_ERR_INPUT, "signing key '%s' is not a regular file", path);
		return NULL;
	}
	if (st.st_mode & 077) {
		close(fd);
		sb_error_set(err, SB_ERR_INPUT, "signing key '%s' may be read by others (mode %03o); "
			     "chmod 600 %s", path, (unsigned)(st.st_mode & 0777), path);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (f == NULL) {
		close(fd);
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	pkey = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (pkey == NULL || EVP_PKEY_id(pkey) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(pkey);
		sb_error_set(err, SB_ERR_INPUT, "signing key '%s' is not an Ed25519 private key in PEM "
			     "(make one with sbctl keygen --ed25519)", path);
		return NULL;
	}
	return pkey;
}

/* The evidence of one log: its path, head, tail, and the result files of
 * its verified finish record (as subjects too when subjects != NULL). */
struct subject {
	char *name;
	char sha256[65];
};

struct subjects {
	struct subject *v;
	size_t n, cap;
};

static int subject_add(struct subjects *s, const char *name, size_t name_len, const char *hex)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct subject *v = realloc(s->v, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].name = strndup(name, name_len);
	if (s->v[s->n].name == NULL)
		return -1;
	memcpy(s->v[s->n].sha256, hex, 65);
	s->n++;
	return 0;
}

static void subjects_free(struct subjects *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
}

/* Writes one log's object; adds the results of its finish to subs when
 * the child succeeded (succeeded != 0) and this is its last log. */
static int log_evidence(struct sb_json *j, struct sb_log_verifier *v, const char *dir,
			const char *path, bool last_of_succeeded, int64_t child,
			struct subjects *subs, struct sb_error *err)
{
	struct sb_log_result *r;
	struct sb_log_head head;
	size_t n, dlen = strlen(dir);
	const char *rel = strncmp(path, dir, dlen) == 0 && path[dlen] == '/' ? path + dlen + 1 : path;
	char hbuf[SB_LOG_HEAD_TEXT_MAX];

	r = sb_log_read_file(v, path, NULL, err);
	if (r == NULL)
		return sb_error_prefix(err, "cannot read log '%s'", path);
	sb_json_obj_begin(j);
	sb_json_key(j, "path");
	sb_json_str(j, rel);
	sb_json_key(j, "records");
	sb_json_uint(j, sb_log_result_verified(r));
	sb_json_key(j, "tail");
	sb_json_str(j, sb_log_tail_name(sb_log_result_tail(r)));
	sb_json_key(j, "head");
	if (sb_log_result_head(r, &head) == 0)
		sb_json_str(j, sb_log_head_format(&head, hbuf));
	else
		sb_json_null(j);
	sb_json_key(j, "results");
	sb_json_arr_begin(j);
	n = sb_log_result_count(r);
	for (size_t i = 0; i < n; i++) {
		const struct sb_log_record *rec = sb_log_result_record(r, i);
		const msgpack_object *res;

		if (rec == NULL || !rec->verified || rec->type == NULL ||
		    strcmp(rec->type, SB_RT_FINISH) != 0)
			continue;
		res = sb_mp_get(&rec->payload, SB_RK_RESULTS);
		if (res == NULL || res->type != MSGPACK_OBJECT_ARRAY)
			continue;
		for (uint32_t k = 0; k < res->via.array.size; k++) {
			const msgpack_object *one = &res->via.array.ptr[k];
			const msgpack_object *p = sb_mp_get(one, SB_RK_PATH), *h = sb_mp_get(one, SB_RK_SHA256);
			char name[4096], hex[65];
			int nl;

			if (p == NULL || p->type != MSGPACK_OBJECT_STR || h == NULL ||
			    h->type != MSGPACK_OBJECT_STR || h->via.str.size != 64)
				continue;
			memcpy(hex, h->via.str.ptr, 64);
			hex[64] = '\0';
			nl = snprintf(name, sizeof(name), "runs/%lld/%.*s", (long long)child,
				      (int)p->via.str.size, p->via.str.ptr);
			if (nl < 0 || (size_t)nl >= sizeof(name)) {
				sb_log_result_destroy(r);
				return sb_errorf(err, "result file name of child %lld too long in '%s'",
						 (long long)child, path);
			}
			sb_json_obj_begin(j);
			sb_json_key(j, "name");
			sb_json_str(j, name);
			sb_json_key(j, "sha256");
			sb_json_str(j, hex);
			sb_json_obj_end(j);
			if (last_of_succeeded && subject_add(subs, name, (size_t)nl, hex) < 0) {
				sb_log_result_destroy(r);
				return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			}
		}
	}
	sb_json_arr_end(j);
	sb_json_obj_end(j);
	sb_log_result_destroy(r);
	return 0;
}

/* "evidence": [{"index", "logs": [...]}] for every child, in index order. */
static int write_evidence(struct sb_json *j, const struct sb_status *st, const char *dir,
			  struct subjects *subs, struct sb_error *err)
{
	struct sb_logfiles files = { 0 };
	struct sb_log_verifier *v = NULL;
	struct sb_key key;
	char keypath[4096], *events = NULL;
	size_t n = sb_status_children(st), f = 0;
	int rc = -1;

	if (sb_bdir_key(keypath, sizeof(keypath), dir) < 0)
		return sb_errorf(err, "benchmark directory name too long: '%s'", dir);
	if (sb_key_load(keypath, &key, err) < 0)
		return -1;
	v = sb_log_verifier_create(&key, err);
	sb_key_cleanse(&key);
	if (v == NULL)
		return -1;
	events = sb_logfiles_join(dir, "events");
	if (events == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	sb_logfiles_walk(&files, events);
	if (files.nomem) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (files.errors) {
		sb_errorf(err, "cannot list the logs under '%s'", events);
		goto out;
	}
	sb_logfiles_sort(&files);
	sb_json_key(j, "evidence");
	sb_json_arr_begin(j);
	for (size_t c = 0; c < n; c++) {
		bool ok = sb_status_child_class(st, c) == SB_CLASS_SUCCEEDED;
		size_t last;

		while (f < files.n && (!files.v[f].named || files.v[f].name.child < (int64_t)c))
			f++;
		last = f;
		while (last < files.n && files.v[last].named && files.v[last].name.child == (int64_t)c)
			last++;
		sb_json_obj_begin(j);
		sb_json_key(j, "index");
		sb_json_uint(j, c);
		sb_json_key(j, "logs");
		sb_json_arr_begin(j);
		for (; f < last; f++)
			if (log_evidence(j, v, dir, files.v[f].path, ok && f + 1 == last, (int64_t)c,
					 subs, err) < 0)
				goto out;
		sb_json_arr_end(j);
		sb_json_key(j, "classify");
		sb_evidence_json_child(j, st, c);
		sb_json_obj_end(j);
	}
	sb_json_arr_end(j);
	rc = 0;
out:
	for (size_t i = 0; i < files.n; i++)
		free(files.v[i].path);
	free(files.v);
	free(events);
	sb_log_verifier_destroy(v);
	return rc;
}

/* "inputs": the input files the children's digests cover, with the
 * digests they were submitted with (what plans the spec again). */
static int write_inputs(struct sb_json *j, const struct sb_bench *b)
{
	size_t n = 0, *idx = NULL;
	char hex[65];

	if (b->inputs != NULL && (idx = sb_inputs_sorted(b->inputs, &n)) == NULL)
		return -1;
	sb_json_key(j, "inputs");
	sb_json_arr_begin(j);
	for (size_t i = 0; i < n; i++) {
		const struct sb_input_file *f = sb_inputs_file(b->inputs, idx[i]);
		sb_hex_encode(f->sha, sizeof(f->sha), hex);
		sb_json_obj_begin(j);
		sb_json_key(j, "path");
		sb_json_str(j, f->rel);
		sb_json_key(j, "sha256");
		sb_json_str(j, hex);
		sb_json_key(j, "listed");
		sb_json_bool(j, f->listed);
		sb_json_obj_end(j);
	}
	sb_json_arr_end(j);
	free(idx);
	return 0;
}

/* The statement's bytes into *out (malloc'd) and *outlen. */
static int make_statement(const struct sb_status *st, bool partial, char **out, size_t *outlen,
			  struct sb_error *err)
{
	const struct sb_bench *b = sb_status_bench(st);
	struct sb_analysis *an = NULL;
	char *status_json = NULL, *an_json = NULL, *runs_json = NULL, *pred = NULL, *doc = NULL;
	size_t status_len, an_len, runs_len, pred_len = 0, doc_len = 0;
	unsigned char md[32];
	char an_hex[65];
	struct subjects subs = { 0 };
	struct sb_json j;
	FILE *mf;
	int rc = -1;

	if (sb_status_render_buffer(st, SB_FORMAT_JSON, &status_json, &status_len, err) < 0 ||
	    sb_analyze(st, NULL, &an, err) < 0 ||
	    sb_analysis_render_buffer(an, SB_FORMAT_JSON, &an_json, &an_len, err) < 0 ||
	    sb_analysis_render_runs_buffer(an, SB_FORMAT_JSON, &runs_json, &runs_len, err) < 0)
		goto out;
	chomp(status_json, &status_len);
	chomp(an_json, &an_len);
	chomp(runs_json, &runs_len);
	/* the analysis subject: the digest of the analysis's bytes as they
	 * stand in the predicate */
	SHA256((const unsigned char *)an_json, an_len, md);
	sb_hex_encode(md, sizeof(md), an_hex);

	/* the predicate first (the evidence finds the subjects) */
	mf = open_memstream(&pred, &pred_len);
	if (mf == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	sb_json_init(&j, mf);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "format");
	sb_json_int(&j, 1);
	sb_json_key(&j, "partial");
	sb_json_bool(&j, partial);
	sb_json_key(&j, "sbench_version");
	sb_json_str(&j, sb_version());
	sb_json_key(&j, "benchmark_digest");
	sb_json_str(&j, sb_bench_digest(b));
	sb_json_key(&j, "spec");
	sb_json_strn(&j, b->spec_source, b->spec_len);
	if (write_inputs(&j, b) < 0) {
		fclose(mf);
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	sb_json_key(&j, "classify_params");
	sb_evidence_json_params(&j, st);
	sb_json_key(&j, "status");
	sb_json_raw(&j, status_json);
	sb_json_key(&j, "runs");
	sb_json_raw(&j, runs_json);
	if (write_evidence(&j, st, sb_bench_dir(b), &subs, err) < 0) {
		fclose(mf);
		goto out;
	}
	sb_json_key(&j, "analysis");
	sb_json_raw(&j, an_json);
	sb_json_obj_end(&j);
	if (close_json(&j, mf) < 0) {
		sb_error_set(err, SB_ERR_NOMEM, "cannot compose the predicate: out of memory");
		goto out;
	}

	mf = open_memstream(&doc, &doc_len);
	if (mf == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	sb_json_init(&j, mf);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "_type");
	sb_json_str(&j, SB_BUNDLE_STATEMENT_TYPE);
	sb_json_key(&j, "subject");
	sb_json_arr_begin(&j);
	for (size_t i = 0; i <= subs.n; i++) {
		sb_json_obj_begin(&j);
		sb_json_key(&j, "name");
		sb_json_str(&j, i < subs.n ? subs.v[i].name : "analysis.json");
		sb_json_key(&j, "digest");
		sb_json_obj_begin(&j);
		sb_json_key(&j, "sha256");
		sb_json_str(&j, i < subs.n ? subs.v[i].sha256 : an_hex);
		sb_json_obj_end(&j);
		sb_json_obj_end(&j);
	}
	sb_json_arr_end(&j);
	sb_json_key(&j, "predicateType");
	sb_json_str(&j, SB_BUNDLE_PREDICATE_TYPE);
	sb_json_key(&j, "predicate");
	sb_json_raw(&j, pred);
	sb_json_obj_end(&j);
	if (close_json(&j, mf) < 0) {
		sb_error_set(err, SB_ERR_NOMEM, "cannot compose the statement: out of memory");
		goto out;
	}
	*out = doc;
	*outlen = doc_len;
	doc = NULL;
	rc = 0;
out:
	subjects_free(&subs);
	free(doc);
	free(pred);
	sb_free(status_json);
	sb_free(an_json);
	sb_free(runs_json);
	sb_analysis_destroy(an);
	return rc;
}

int sb_bundle_export(const struct sb_status *st, const struct sb_bundle_opts *opts, char **buf,
		     size_t *len, struct sb_error *err)
{
	static const char type[] = SB_BUNDLE_PAYLOAD_TYPE;
	EVP_PKEY *pkey = NULL;
	EVP_MD_CTX *mdctx = NULL;
	unsigned char *pae = NULL, *der = NULL, md[32], sig[64];
	char *stmt = NULL, *b64 = NULL, *sig64 = NULL, *env = NULL, keyid[65], head[96];
	size_t stmt_len = 0, pae_len, sig_len = sizeof(sig), env_len = 0;
	int der_len, hl, rc = -1;
	struct sb_json j;
	FILE *mf;

	*buf = NULL;
	if (opts == NULL || opts->key_path == NULL)
		return sb_error_set(err, SB_ERR_INPUT, "no signing key given");
	if (sb_status_unsettled(st) && !opts->partial)
		return sb_error_set(err, SB_ERR_INPUT, "%zu children are still pending or running; "
				    "wait for them (sbctl wait), or export a partial bundle (--partial)",
				    sb_status_count(st, SB_CLASS_PENDING) + sb_status_count(st, SB_CLASS_RUNNING));
	if ((pkey = load_private_key(opts->key_path, err)) == NULL)
		return -1;
	if (make_statement(st, opts->partial, &stmt, &stmt_len, err) < 0)
		goto out;
	/* PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body */
	hl = snprintf(head, sizeof(head), "DSSEv1 %zu %s %zu ", strlen(type), type, stmt_len);
	pae_len = (size_t)hl + stmt_len;
	if ((pae = malloc(pae_len)) == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	memcpy(pae, head, (size_t)hl);
	memcpy(pae + hl, stmt, stmt_len);
	mdctx = EVP_MD_CTX_new();
	if (mdctx == NULL || EVP_DigestSignInit(mdctx, NULL, NULL, NULL, pkey) != 1 ||
	    EVP_DigestSign(mdctx, sig, &sig_len, pae, pae_len) != 1) {
		sb_errorf(err, "cannot sign with '%s': openssl refused", opts->key_path);
		goto out;
	}
	der_len = i2d_PUBKEY(pkey, &der);
	if (der_len <= 0) {
		sb_errorf(err, "cannot encode the public key of '%s'", opts->key_path);
		goto out;
	}
	SHA256(der, (size_t)der_len, md);
	sb_hex_encode(md, sizeof(md), keyid);
	if ((b64 = base64_of((unsigned char *)stmt, stmt_len)) == NULL ||
	    (sig64 = base64_of(sig, sig_len)) == NULL || (mf = open_memstream(&env, &env_len)) == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	sb_json_init(&j, mf);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "payloadType");
	sb_json_str(&j, type);
	sb_json_key(&j, "payload");
	sb_json_str(&j, b64);
	sb_json_key(&j, "signatures");
	sb_json_arr_begin(&j);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "keyid");
	sb_json_str(&j, keyid);
	sb_json_key(&j, "sig");
	sb_json_str(&j, sig64);
	sb_json_obj_end(&j);
	sb_json_arr_end(&j);
	sb_json_obj_end(&j);
	fputc('\n', mf);
	if (close_json(&j, mf) < 0) {
		free(env);
		env = NULL;
		sb_error_set(err, SB_ERR_NOMEM, "cannot compose the envelope: out of memory");
		goto out;
	}
	*buf = env;
	if (len != NULL)
		*len = env_len;
	env = NULL;
	rc = 0;
out:
	OPENSSL_free(der);
	EVP_MD_CTX_free(mdctx);
	EVP_PKEY_free(pkey);
	free(pae);
	free(stmt);
	free(b64);
	free(sig64);
	free(env);
	return rc;
}
