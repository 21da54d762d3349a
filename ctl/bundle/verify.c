/* sbctl verify (docs/verify.md): a bundle checked with the signer's public
 * key alone, and optionally against the benchmark directory.
 *
 * The checks, in order, each naming the first problem: the envelope and
 * its signature; the statement's types; completeness (the spec planned
 * with the recorded input digests gives exactly the children listed);
 * every class (the classification rules, status/classify.h, applied to
 * the evidence the bundle carries); the analysis (sb_analyze again over a
 * status made from the bundle's summary); the subjects; and with a
 * directory, its logs and result files.  Each check reuses the owner of
 * what it checks: the planner, the classifier, the analysis. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "sbench/analyze.h"
#include "sbench/bench.h"
#include "sbench/bundle.h"
#include "sbench/key.h"
#include "sbench/log.h"
#include "sbench/plan.h"
#include "sbench/sbench.h"
#include "sbench/spec.h"

#include "analyze/analyze_private.h"
#include "bench/bench_private.h"
#include "bench/finish.h"
#include "bench/resulthash.h"
#include "plan/plan_inputs.h"
#include "proto/benchdir.h"
#include "proto/json.h"
#include "proto/jsonread.h"
#include "proto/util.h"
#include "status/evidence.h"
#include "status/status_private.h"

/* What a check works with. */
struct vctx {
	struct sb_bundle_verdict *out;
	const char *payload;      /* the statement's bytes */
	size_t payload_len;
	struct sb_jv stmt;
	const struct sb_jv *pred, *children, *runs, *evidence, *analysis;
	size_t n;                 /* children listed */
	struct sb_spec *spec;
	struct sb_plan *plan;
	struct sb_inputs *inputs;
	struct sb_error *err;
};

/* Sets the verdict's problem (the first one only); returns 1. */
__attribute__((format(printf, 2, 3)))
static int problem(struct vctx *v, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (v->out->problem != NULL)
		return 1;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	v->out->problem = s ? s : strdup("out of memory for the problem's text");
	v->out->ok = false;
	return 1;
}

static const struct sb_jv *get(const struct sb_jv *o, const char *key, enum sb_jv_type t)
{
	const struct sb_jv *x = sb_jv_get(o, key);

	if (x == NULL)
		return NULL;
	if (x->type == t || (t == SB_JV_TRUE && x->type == SB_JV_FALSE))
		return x;
	return NULL;
}

static const char *get_str(const struct sb_jv *o, const char *key)
{
	return sb_jv_str(sb_jv_get(o, key));
}

static bool get_size(const struct sb_jv *o, const char *key, size_t *out)
{
	const struct sb_jv *x = get(o, key, SB_JV_NUMBER);
	char *end;
	unsigned long long u;

	if (x == NULL || x->num.text[0] == '-')
		return false;
	errno = 0;
	u = strtoull(x->num.text, &end, 10);
	if (errno || *end)
		return false;
	*out = (size_t)u;
	return true;
}

/* -- the key and the envelope ------------------------------------------- */

static EVP_PKEY *load_public_key(const char *path, char keyid[65], struct sb_error *err)
{
	unsigned char *der = NULL, md[32];
	EVP_PKEY *pkey;
	FILE *f = fopen(path, "re");
	int n;

	if (f == NULL) {
		if (errno == ENOENT)
			sb_error_set(err, SB_ERR_NOT_FOUND, "public key '%s' does not exist", path);
		else
			sb_errorf(err, "cannot open public key '%s': %s", path, strerror(errno));
		return NULL;
	}
	pkey = PEM_read_PUBKEY(f, NULL, NULL, NULL);
	fclose(f);
	if (pkey == NULL || EVP_PKEY_id(pkey) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(pkey);
		sb_error_set(err, SB_ERR_INPUT, "public key '%s' is not an Ed25519 public key in PEM "
			     "(the KEY.pub of sbctl keygen --ed25519)", path);
		return NULL;
	}
	n = i2d_PUBKEY(pkey, &der);
	if (n <= 0) {
		EVP_PKEY_free(pkey);
		sb_errorf(err, "cannot encode public key '%s'", path);
		return NULL;
	}
	SHA256(der, (size_t)n, md);
	OPENSSL_free(der);
	sb_hex_encode(md, sizeof(md), keyid);
	return pkey;
}

/* Strict base64 (RFC 4648, padded) of s into a malloc'd *out of *n bytes:
 * 0, -1 when it is not base64, -2 when out of memory. */
static int base64_decode(const char *s, size_t len, unsigned char **out, size_t *n)
{
	unsigned char *b;
	size_t pad = 0, done = 0;

	*out = NULL;
	if (len % 4 != 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			  c == '+' || c == '/' || (c == '=' && i >= len - 2);
		if (!ok || (pad && c != '='))
			return -1;
		pad += c == '=';
	}
	b = malloc(len / 4 * 3 + 1);
	if (b == NULL)
		return -2;
	/* EVP_DecodeBlock takes an int: in pieces of a multiple of 4 */
	while (len > 0) {
		size_t piece = len > (size_t)4 << 20 ? (size_t)4 << 20 : len;
		int k = EVP_DecodeBlock(b + done, (const unsigned char *)s, (int)piece);
		if (k < 0) {
			free(b);
			return -1;
		}
		done += (size_t)k;
		s += piece;
		len -= piece;
	}
	*out = b;
	*n = done - pad;
	return 0;
}

/* The envelope: its type, its signature by our key over PAE; the payload
 * into *payload.  1 with a problem, -1 with err, 0 when it holds. */
static int check_envelope(struct vctx *v, const struct sb_jv *env, EVP_PKEY *pkey,
			  unsigned char **payload, size_t *payload_len)
{
	static const char type[] = SB_BUNDLE_PAYLOAD_TYPE;
	const struct sb_jv *sigs = get(env, "signatures", SB_JV_ARRAY), *p = get(env, "payload", SB_JV_STRING);
	const char *t = get_str(env, "payloadType");
	const struct sb_jv *mine = NULL;
	unsigned char *sig = NULL, *pae = NULL;
	size_t sig_len = 0, pae_len;
	char head[96];
	EVP_MD_CTX *md = NULL;
	int hl, rc, ok;

	if (env->type != SB_JV_OBJECT || t == NULL || p == NULL || sigs == NULL)
		return problem(v, "not a DSSE envelope (payloadType, payload and signatures wanted)");
	if (strcmp(t, type) != 0)
		return problem(v, "payloadType is \"%s\", not \"%s\"", t, type);
	for (size_t i = 0; i < sigs->arr.n && mine == NULL; i++) {
		const char *id = get_str(&sigs->arr.v[i], "keyid");
		if (id != NULL && strcmp(id, v->out->keyid) == 0)
			mine = &sigs->arr.v[i];
	}
	if (mine == NULL)
		return problem(v, "bad signature: no signature by key %.16s (the public key given)",
			       v->out->keyid);
	rc = base64_decode(p->str.s, p->str.len, payload, payload_len);
	if (rc == -2 || (rc == 0 && get_str(mine, "sig") == NULL))
		goto nomem_or_bad;
	if (rc < 0)
		return problem(v, "the payload is not base64");
	rc = base64_decode(get_str(mine, "sig"), strlen(get_str(mine, "sig")), &sig, &sig_len);
	if (rc == -2)
		goto nomem_or_bad;
	if (rc < 0 || sig_len != 64) {
		free(sig);
		return problem(v, "bad signature: the signature is not 64 bytes of base64");
	}
	hl = snprintf(head, sizeof(head), "DSSEv1 %zu %s %zu ", strlen(type), type, *payload_len);
	pae_len = (size_t)hl + *payload_len;
	pae = malloc(pae_len);
	md = EVP_MD_CTX_new();
	if (pae == NULL || md == NULL) {
		free(sig);
		free(pae);
		EVP_MD_CTX_free(md);
		return sb_error_set(v->err, SB_ERR_NOMEM, "out of memory");
	}
	memcpy(pae, head, (size_t)hl);
	memcpy(pae + hl, *payload, *payload_len);
	ok = EVP_DigestVerifyInit(md, NULL, NULL, NULL, pkey) == 1 &&
	     EVP_DigestVerify(md, sig, sig_len, pae, pae_len) == 1;
	EVP_MD_CTX_free(md);
	free(pae);
	free(sig);
	if (!ok)
		return problem(v, "bad signature: it does not verify with key %.16s over the payload",
			       v->out->keyid);
	return 0;
nomem_or_bad:
	if (rc == -2)
		return sb_error_set(v->err, SB_ERR_NOMEM, "out of memory");
	return problem(v, "bad signature: a signature without its \"sig\"");
}

/* -- the statement and the plan ------------------------------------------ */

/* The spec of the predicate, planned with its recorded input digests, gives
 * exactly the children listed. */
static int check_plan(struct vctx *v)
{
	const struct sb_jv *inputs = get(v->pred, "inputs", SB_JV_ARRAY);
	const char *spec = get_str(v->pred, "spec"), *digest = get_str(v->pred, "benchmark_digest");
	const struct sb_jv *specv = get(v->pred, "spec", SB_JV_STRING);
	struct sb_error e = { 0 };
	size_t planned, n;

	if (spec == NULL || digest == NULL || inputs == NULL)
		return problem(v, "the predicate has no spec, benchmark_digest or inputs");
	snprintf(v->out->benchmark_digest, sizeof(v->out->benchmark_digest), "%s", digest);
	v->inputs = sb_inputs_create(NULL);
	if (v->inputs == NULL)
		return sb_error_set(v->err, SB_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < inputs->arr.n; i++) {
		const struct sb_jv *f = &inputs->arr.v[i];
		const char *path = get_str(f, "path");
		const struct sb_jv *listed = get(f, "listed", SB_JV_TRUE);
		uint8_t sha[32];
		const char *hex = get_str(f, "sha256");
		if (path == NULL || listed == NULL || hex == NULL || sb_hex_decode(hex, sha, sizeof(sha)) < 0)
			return problem(v, "input %zu of the predicate is not {path, sha256, listed}", i);
		if (sb_inputs_record(v->inputs, path, sha, listed->type == SB_JV_TRUE) < 0)
			return problem(v, "input '%s' of the predicate is not a clean relative path", path);
	}
	v->spec = sb_spec_load_buffer(spec, specv->str.len, "the bundle's spec", &e);
	if (v->spec == NULL)
		return e.code == SB_ERR_NOMEM ? sb_error_set(v->err, SB_ERR_NOMEM, "out of memory")
					      : problem(v, "the bundle's spec does not load: %s", e.msg);
	v->plan = sb_plan_create_inputs(v->spec, v->inputs, &e);
	if (v->plan == NULL)
		return e.code == SB_ERR_NOMEM ? sb_error_set(v->err, SB_ERR_NOMEM, "out of memory")
					      : problem(v, "the bundle's spec does not plan: %s", e.msg);
	if (strcmp(sb_plan_benchmark_digest_hex(v->plan), digest) != 0)
		return problem(v, "the spec plans benchmark digest %.12s, not the bundle's %.12s",
			       sb_plan_benchmark_digest_hex(v->plan), digest);
	planned = sb_plan_count(v->plan);
	n = v->n;
	for (size_t i = 0; i < n && i < planned; i++) {
		const struct sb_jv *ch = &v->children->arr.v[i];
		size_t idx;
		char hex[65];
		if (!get_size(ch, "index", &idx) || idx != i)
			return problem(v, "child %zu missing (the listing has index %s in its place)", i,
				       get(ch, "index", SB_JV_NUMBER) ? get(ch, "index", SB_JV_NUMBER)->num.text : "none");
		sb_hex_encode(sb_plan_child_digest(v->plan, i), 32, hex);
		if (get_str(ch, "digest") == NULL || strcmp(get_str(ch, "digest"), hex) != 0)
			return problem(v, "child %zu: its digest is not the spec's (the spec plans %.12s)", i, hex);
	}
	if (n < planned)
		return problem(v, "child %zu missing (the spec plans %zu children, the bundle lists %zu)",
			       n, planned, n);
	if (n > planned)
		return problem(v, "child %zu extra (the spec plans %zu children)", planned, planned);
	return 0;
}

/* -- the classes ---------------------------------------------------------- */

static int check_classes(struct vctx *v)
{
	struct sb_classify_params p;
	bool submitting, partial = v->out->partial;
	char why[256];

	if (v->evidence == NULL || v->evidence->arr.n != v->n)
		return problem(v, "the predicate's evidence does not list every child");
	if (sb_evidence_read_params(sb_jv_get(v->pred, "classify_params"), &p, &submitting, why,
				    sizeof(why)) < 0)
		return problem(v, "%s", why);
	for (size_t i = 0; i < v->n; i++) {
		const struct sb_jv *ch = &v->children->arr.v[i], *ev = &v->evidence->arr.v[i];
		const char *cls_text = get_str(ch, "class"), *reason = get_str(ch, "reason");
		const char *state = get_str(ch, "scheduler_state");
		struct sb_evidence_child e;
		struct sb_verdict vd = { 0 };
		enum sb_class cls;
		size_t idx;

		if (cls_text == NULL || sb_class_parse(cls_text, &cls) < 0)
			return problem(v, "child %zu: no class", i);
		if (cls == SB_CLASS_SUCCEEDED)
			v->out->succeeded++;
		if ((cls == SB_CLASS_PENDING || cls == SB_CLASS_RUNNING) && !partial)
			return problem(v, "child %zu is %s, but the bundle does not say it is partial", i,
				       cls_text);
		if (!get_size(ev, "index", &idx) || idx != i)
			return problem(v, "child %zu: no evidence", i);
		if (sb_evidence_read_child(sb_jv_get(ev, "classify"), &e, why, sizeof(why)) < 0)
			return problem(v, "child %zu: %s", i, why);
		if (e.override != NULL) {
			/* a reused run's evidence is its source benchmark's; a chain
			 * (checkpoints) that made a run invalid is not in the bundle */
			bool fits = !strcmp(e.override, "chain") ? cls == SB_CLASS_INVALID :
				    get(ch, "reused_from", SB_JV_OBJECT) != NULL;
			sb_evidence_child_release(&e);
			if (!fits)
				return problem(v, "child %zu says %s, but its evidence is %s", i, cls_text,
					       !strcmp(e.override, "chain") ? "a broken checkpoint chain"
									 : "a reused run");
			continue;
		}
		if (e.sched.has_row && state != NULL &&
		    sb_sched_state_parse(state, NULL) != e.sched.row.state) {
			problem(v, "child %zu says its scheduler state is %s, but its evidence says %s", i,
				state, sb_sched_state_name(e.sched.row.state));
			sb_evidence_child_release(&e);
			return 1;
		}
		sb_evidence_classify(&e, &p, submitting, &vd);
		sb_evidence_child_release(&e);
		if (vd.cls != cls) {
			problem(v, "child %zu says %s, but its evidence classifies it %s (%s)", i, cls_text,
				sb_class_name(vd.cls), vd.reason);
			sb_verdict_release(&vd);
			return 1;
		}
		if (vd.reason[0] && (reason == NULL || strncmp(reason, vd.reason, strlen(vd.reason)) != 0)) {
			problem(v, "child %zu: its reason is not what its evidence gives (%s)", i, vd.reason);
			sb_verdict_release(&vd);
			return 1;
		}
		sb_verdict_release(&vd);
	}
	return 0;
}

/* -- the analysis ----------------------------------------------------------- */

/* The metrics of one run ({"name": number|null}) into a malloc'd array. */
static int read_metrics(const struct sb_jv *m, struct sb_metric **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (m == NULL || m->type != SB_JV_OBJECT || m->obj.n == 0)
		return 0;
	*out = calloc(m->obj.n, sizeof(**out));
	if (*out == NULL)
		return -1;
	for (size_t k = 0; k < m->obj.n; k++) {
		const struct sb_jv *x = &m->obj.m[k].value;
		struct sb_metric *s = &(*out)[*n];
		if (x->type != SB_JV_NUMBER)
			continue;
		s->name = m->obj.m[k].key;
		s->value = x->num.value;
		s->is_int = strpbrk(x->num.text, ".eE") == NULL;
		s->i = s->is_int ? strtoll(x->num.text, NULL, 10) : 0;
		(*n)++;
	}
	return 0;
}

static int check_analysis(struct vctx *v)
{
	static const char *const keys[] = { "group_by", "metrics", "sort", "counts", "groups", "excluded" };
	const struct sb_jv *status = get(v->pred, "status", SB_JV_OBJECT);
	const struct sb_jv *bench = get(status, "benchmark", SB_JV_OBJECT);
	struct sb_summary_child *sum = calloc(v->n ? v->n : 1, sizeof(*sum));
	struct sb_metric **metrics = calloc(v->n ? v->n : 1, sizeof(*metrics));
	struct sb_bench b = { 0 };
	struct sb_status *st = NULL;
	struct sb_analysis *an = NULL;
	struct sb_error e = { 0 };
	struct sb_jv again = { 0 };
	char *json = NULL;
	size_t len = 0;
	int rc = -1;

	if (sum == NULL || metrics == NULL) {
		sb_error_set(v->err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (v->analysis == NULL || v->runs == NULL || v->runs->arr.n != v->n) {
		rc = problem(v, "the predicate has no analysis, or its runs do not list every child");
		goto out;
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct sb_jv *ch = &v->children->arr.v[i], *run = &v->runs->arr.v[i];
		const struct sb_jv *wall = get(ch, "wall_s", SB_JV_NUMBER);
		const struct sb_jv *cpu = get(ch, "cpu_s", SB_JV_NUMBER);
		const struct sb_jv *rss = get(ch, "max_rss_kb", SB_JV_NUMBER);
		const struct sb_jv *restarts = get(ch, "restarts", SB_JV_ARRAY);

		sb_class_parse(get_str(ch, "class"), &sum[i].cls);
		sum[i].reason = get_str(ch, "reason");
		sum[i].run = get(ch, "attempt", SB_JV_NUMBER) != NULL;
		sum[i].has_usage = wall && cpu && rss;
		sum[i].wall_s = wall ? wall->num.value : 0;
		sum[i].cpu_s = cpu ? cpu->num.value : 0;
		sum[i].max_rss_kb = rss ? (int64_t)rss->num.value : 0;
		sum[i].runs = restarts ? (uint32_t)restarts->arr.n : 0;
		if (read_metrics(sb_jv_get(run, "metrics"), &metrics[i], &sum[i].nmetrics) < 0) {
			sb_error_set(v->err, SB_ERR_NOMEM, "out of memory");
			goto out;
		}
		sum[i].metrics = metrics[i];
	}
	b.name = (char *)(get_str(bench, "name") ? get_str(bench, "name") : "");
	b.dir = (char *)(get_str(bench, "dir") ? get_str(bench, "dir") : "");
	snprintf(b.digest, sizeof(b.digest), "%s", v->out->benchmark_digest);
	b.children = v->n;
	b.spec = v->spec;
	b.plan = v->plan;
	st = sb_status_from_summary(&b, sum, v->n, v->err);
	if (st == NULL)
		goto out;
	if (sb_analyze(st, NULL, &an, &e) < 0 ||
	    sb_analysis_render_buffer(an, SB_FORMAT_JSON, &json, &len, &e) < 0) {
		rc = e.code == SB_ERR_NOMEM ? sb_error_set(v->err, SB_ERR_NOMEM, "out of memory")
					    : problem(v, "the analysis does not recompute: %s", e.msg);
		goto out;
	}
	if (sb_jv_parse(json, len, &again, &e) < 0) {
		sb_errorf(v->err, "the analysis recomputed is not JSON: %s", e.msg);
		goto out;
	}
	rc = 0;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]) && rc == 0; k++) {
		const struct sb_jv *a = sb_jv_get(v->analysis, keys[k]), *r = sb_jv_get(&again, keys[k]);
		if (a == NULL || r == NULL || !sb_jv_equal(a, r))
			rc = problem(v, "the analysis differs from the one its children's metrics give "
				     "(its \"%s\")", keys[k]);
	}
out:
	sb_jv_free(&again);
	sb_free(json);
	sb_analysis_destroy(an);
	if (st != NULL) {
		st->bench = NULL;
		sb_status_destroy(st);
	}
	for (size_t i = 0; metrics && i < v->n; i++)
		free(metrics[i]);
	free(metrics);
	free(sum);
	return rc;
}

/* -- the subjects ------------------------------------------------------------ */

/* The results of child i's last log, {"name", "sha256"}; NULL when none. */
static const struct sb_jv *last_results(const struct sb_jv *ev)
{
	const struct sb_jv *logs = get(ev, "logs", SB_JV_ARRAY);

	if (logs == NULL || logs->arr.n == 0)
		return NULL;
	return get(&logs->arr.v[logs->arr.n - 1], "results", SB_JV_ARRAY);
}

static const struct sb_jv *find_subject(const struct sb_jv *subs, const char *name)
{
	for (size_t i = 0; i < subs->arr.n; i++) {
		const char *n = get_str(&subs->arr.v[i], "name");
		if (n != NULL && strcmp(n, name) == 0)
			return &subs->arr.v[i];
	}
	return NULL;
}

static int check_subjects(struct vctx *v)
{
	const struct sb_jv *subs = get(&v->stmt, "subject", SB_JV_ARRAY);
	size_t expected = 1;
	unsigned char md[32];
	char hex[65];
	const struct sb_jv *s;

	if (subs == NULL)
		return problem(v, "the statement has no subjects");
	v->out->subjects = subs->arr.n;
	for (size_t i = 0; i < v->n; i++) {
		const struct sb_jv *res;
		if (strcmp(get_str(&v->children->arr.v[i], "class"), "succeeded") != 0)
			continue;
		if (get(&v->children->arr.v[i], "reused_from", SB_JV_OBJECT) != NULL)
			continue; /* its results are its source benchmark's */
		res = last_results(&v->evidence->arr.v[i]);
		for (size_t k = 0; res && k < res->arr.n; k++) {
			const char *name = get_str(&res->arr.v[k], "name"), *sha = get_str(&res->arr.v[k], "sha256");
			const struct sb_jv *d;
			if (name == NULL || sha == NULL)
				return problem(v, "child %zu: a result without its name or digest", i);
			s = find_subject(subs, name);
			if (s == NULL)
				return problem(v, "result %s of succeeded child %zu is not a subject", name, i);
			d = get(s, "digest", SB_JV_OBJECT);
			if (get_str(d, "sha256") == NULL || strcmp(get_str(d, "sha256"), sha) != 0)
				return problem(v, "subject %s: its digest is not the one child %zu's finish "
					       "record gives", name, i);
			expected++;
		}
	}
	s = find_subject(subs, "analysis.json");
	SHA256((const unsigned char *)v->payload + v->analysis->off, v->analysis->len, md);
	sb_hex_encode(md, sizeof(md), hex);
	if (s == NULL)
		return problem(v, "analysis.json is not a subject");
	if (get_str(get(s, "digest", SB_JV_OBJECT), "sha256") == NULL ||
	    strcmp(get_str(get(s, "digest", SB_JV_OBJECT), "sha256"), hex) != 0)
		return problem(v, "subject analysis.json: its digest is not that of the predicate's analysis");
	if (subs->arr.n != expected)
		return problem(v, "%zu subjects, but the succeeded children's results and the analysis "
			       "are %zu", subs->arr.n, expected);
	return 0;
}

/* -- against a directory -------------------------------------------------------- */

static int check_against(struct vctx *v, const char *dir)
{
	struct sb_bench *b = sb_bench_open(dir, v->err);
	struct sb_log_verifier *lv = NULL;
	struct sb_key key;
	char path[8192], hbuf[SB_LOG_HEAD_TEXT_MAX];
	int rc = 0;

	if (b == NULL)
		return -1;
	if (strcmp(b->digest, v->out->benchmark_digest) != 0) {
		rc = problem(v, "'%s' is benchmark %.12s, not the bundle's %.12s", dir, b->digest,
			     v->out->benchmark_digest);
		goto out;
	}
	if (sb_bdir_key(path, sizeof(path), b->dir) < 0 || sb_key_load(path, &key, v->err) < 0) {
		rc = -1;
		goto out;
	}
	lv = sb_log_verifier_create(&key, v->err);
	sb_key_cleanse(&key);
	if (lv == NULL) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < v->n && rc == 0; i++) {
		const struct sb_jv *logs = get(&v->evidence->arr.v[i], "logs", SB_JV_ARRAY);
		for (size_t k = 0; logs && k < logs->arr.n && rc == 0; k++) {
			const char *rel = get_str(&logs->arr.v[k], "path"), *head = get_str(&logs->arr.v[k], "head");
			struct sb_log_result *r;
			struct sb_log_head h;
			struct sb_error e = { 0 };
			const char *now;

			if (rel == NULL || strstr(rel, "..") != NULL || rel[0] == '/') {
				rc = problem(v, "child %zu: a log path that is not inside the benchmark", i);
				break;
			}
			snprintf(path, sizeof(path), "%s/%s", b->dir, rel);
			r = sb_log_read_file(lv, path, NULL, &e);
			if (r == NULL) {
				rc = problem(v, "log %s of child %zu: %s", rel, i, e.msg);
				break;
			}
			now = sb_log_result_head(r, &h) == 0 ? sb_log_head_format(&h, hbuf) : NULL;
			if ((now == NULL) != (head == NULL) || (now && strcmp(now, head) != 0))
				rc = problem(v, "log %s of child %zu: its head is %s now, the bundle says %s",
					     rel, i, now ? now : "none", head ? head : "none");
			sb_log_result_destroy(r);
		}
	}
	for (size_t i = 0; i < v->n && rc == 0; i++) {
		const struct sb_jv *res;
		if (strcmp(get_str(&v->children->arr.v[i], "class"), "succeeded") != 0 ||
		    get(&v->children->arr.v[i], "reused_from", SB_JV_OBJECT) != NULL)
			continue;
		res = last_results(&v->evidence->arr.v[i]);
		for (size_t k = 0; res && k < res->arr.n && rc == 0; k++) {
			const char *name = get_str(&res->arr.v[k], "name"), *sha = get_str(&res->arr.v[k], "sha256");
			struct sb_error e = { 0 };
			char hex[65];
			int h;
			snprintf(path, sizeof(path), "%s/%s", b->dir, name);
			/* the bytes themselves, not this client's cached pages (rehash) */
			h = strstr(name, "/../") != NULL ? 1 : sb_result_hash(path, NULL, true, hex, &e);
			if (h != 0)
				rc = problem(v, "result %s of child %zu cannot be read in '%s': %s", name, i,
					     dir, h < 0 ? e.msg : "missing, not a regular file, or changing");
			else if (strcmp(hex, sha) != 0)
				rc = problem(v, "result %s of child %zu changed since the export (sha256 %.12s, "
					     "the bundle says %.12s)", name, i, hex, sha);
		}
	}
out:
	sb_log_verifier_destroy(lv);
	sb_bench_destroy(b);
	return rc;
}

/* -- the whole ------------------------------------------------------------------ */

static int check_statement(struct vctx *v, const struct sb_bundle_verify_opts *opts)
{
	const struct sb_jv *status, *fmt, *part, *runs;
	const char *t = get_str(&v->stmt, "_type"), *pt = get_str(&v->stmt, "predicateType");
	const char *name;
	int rc;

	if (t == NULL || strcmp(t, SB_BUNDLE_STATEMENT_TYPE) != 0)
		return problem(v, "the payload is not an in-toto Statement v1 (_type %s)", t ? t : "missing");
	if (pt == NULL || strcmp(pt, SB_BUNDLE_PREDICATE_TYPE) != 0)
		return problem(v, "predicateType is %s, not %s", pt ? pt : "missing", SB_BUNDLE_PREDICATE_TYPE);
	v->pred = get(&v->stmt, "predicate", SB_JV_OBJECT);
	fmt = get(v->pred, "format", SB_JV_NUMBER);
	if (v->pred == NULL || fmt == NULL || strcmp(fmt->num.text, "1") != 0)
		return problem(v, "the predicate is not of format 1");
	part = get(v->pred, "partial", SB_JV_TRUE);
	v->out->partial = part != NULL && part->type == SB_JV_TRUE;
	status = get(v->pred, "status", SB_JV_OBJECT);
	v->children = get(status, "children", SB_JV_ARRAY);
	runs = get(v->pred, "runs", SB_JV_OBJECT);
	v->runs = get(runs, "runs", SB_JV_ARRAY);
	v->evidence = get(v->pred, "evidence", SB_JV_ARRAY);
	v->analysis = get(v->pred, "analysis", SB_JV_OBJECT);
	if (v->children == NULL)
		return problem(v, "the predicate lists no children (status.children)");
	v->n = v->out->children = v->children->arr.n;
	name = get_str(get(status, "benchmark", SB_JV_OBJECT), "name");
	snprintf(v->out->name, sizeof(v->out->name), "%s", name ? name : "");
	if ((rc = check_plan(v)) != 0 || (rc = check_classes(v)) != 0 ||
	    (rc = check_analysis(v)) != 0 || (rc = check_subjects(v)) != 0)
		return rc;
	if (opts->against != NULL)
		return check_against(v, opts->against);
	return 0;
}

int sb_bundle_verify(const char *buf, size_t len, const struct sb_bundle_verify_opts *opts,
		     struct sb_bundle_verdict *out, struct sb_error *err)
{
	struct vctx v = { .out = out, .err = err };
	struct sb_jv env = { 0 };
	struct sb_error e = { 0 };
	unsigned char *payload = NULL;
	size_t payload_len = 0;
	EVP_PKEY *pkey;
	int rc;

	memset(out, 0, sizeof(*out));
	if (opts == NULL || opts->pubkey_path == NULL)
		return sb_error_set(err, SB_ERR_INPUT, "no public key given");
	if ((pkey = load_public_key(opts->pubkey_path, out->keyid, err)) == NULL)
		return -1;
	{
		unsigned char md[32];
		SHA256((const unsigned char *)buf, len, md);
		sb_hex_encode(md, sizeof(md), out->sha256);
	}
	out->ok = true;
	if (sb_jv_parse(buf, len, &env, &e) < 0) {
		EVP_PKEY_free(pkey);
		if (e.code == SB_ERR_NOMEM)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return sb_error_set(err, SB_ERR_INPUT, "not a bundle: not JSON (%s)", e.msg);
	}
	rc = check_envelope(&v, &env, pkey, &payload, &payload_len);
	EVP_PKEY_free(pkey);
	sb_jv_free(&env);
	if (rc == 0) {
		v.payload = (const char *)payload;
		v.payload_len = payload_len;
		if (sb_jv_parse(v.payload, payload_len, &v.stmt, &e) < 0)
			rc = e.code == SB_ERR_NOMEM ? sb_error_set(err, SB_ERR_NOMEM, "out of memory")
						    : problem(&v, "the payload is not JSON: %s", e.msg);
		else
			rc = check_statement(&v, opts);
	}
	sb_jv_free(&v.stmt);
	sb_plan_destroy(v.plan);
	sb_spec_destroy(v.spec);
	sb_inputs_destroy(v.inputs);
	free(payload);
	if (rc < 0) {
		sb_bundle_verdict_release(out);
		return -1;
	}
	return 0;
}

void sb_bundle_verdict_release(struct sb_bundle_verdict *v)
{
	if (v == NULL)
		return;
	free(v->problem);
	v->problem = NULL;
}

int sb_bundle_verdict_json(const struct sb_bundle_verdict *v, char **buf, size_t *len,
			   struct sb_error *err)
{
	size_t n = 0;
	struct sb_json j;
	FILE *mf = open_memstream(buf, &n);
	bool bad;

	if (mf == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	sb_json_init(&j, mf);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "ok");
	sb_json_bool(&j, v->ok);
	sb_json_key(&j, "problem");
	sb_json_str(&j, v->problem);
	sb_json_key(&j, "keyid");
	sb_json_str(&j, v->keyid);
	sb_json_key(&j, "sha256");
	sb_json_str(&j, v->sha256);
	sb_json_key(&j, "benchmark");
	sb_json_str(&j, v->name[0] ? v->name : NULL);
	sb_json_key(&j, "digest");
	sb_json_str(&j, v->benchmark_digest[0] ? v->benchmark_digest : NULL);
	sb_json_key(&j, "children");
	sb_json_uint(&j, v->children);
	sb_json_key(&j, "succeeded");
	sb_json_uint(&j, v->succeeded);
	sb_json_key(&j, "subjects");
	sb_json_uint(&j, v->subjects);
	sb_json_key(&j, "partial");
	sb_json_bool(&j, v->partial);
	sb_json_obj_end(&j);
	fputc('\n', mf);
	bad = sb_json_error(&j);
	if (fclose(mf) != 0 || bad) {
		free(*buf);
		*buf = NULL;
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	if (len != NULL)
		*len = n;
	return 0;
}
