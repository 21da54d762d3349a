/* sbench — signed bundles: a benchmark's evidence in a form anyone can
 * verify with the public key alone (docs/sbctl-export.md).
 *
 * A bundle is a DSSE envelope (JSON: payloadType
 * "application/vnd.in-toto+json", payload the base64 of the statement's
 * bytes, signatures [{keyid, sig}]) signed with Ed25519 over DSSE's PAE,
 * whose payload is an in-toto Statement v1: its subjects are the result
 * files of the succeeded children (runs/<child>/<path>, sha256) and the
 * analysis ("analysis.json"), its predicateType SB_BUNDLE_PREDICATE_TYPE,
 * its predicate the spec's text, the benchmark's digest, sbench's version,
 * the status of every planned child, the evidence of its logs (the head of
 * each: records verified and the tag of the last), its result digests and
 * metrics, and the analysis. */
#ifndef SBENCH_BUNDLE_H
#define SBENCH_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>

#include "sbench/error.h"
#include "sbench/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_BUNDLE_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define SB_BUNDLE_STATEMENT_TYPE "https://in-toto.io/Statement/v1"
#define SB_BUNDLE_PREDICATE_TYPE "https://sbench.dev/bundle/v1"

struct sb_bundle_opts {
	/* The Ed25519 private key, PEM PKCS#8 (sbctl keygen --ed25519): a
	 * regular file, not a symbolic link, without group or other
	 * permission bits. */
	const char *key_path;
	/* Export while children are pending or running (the predicate says
	 * "partial": true); without it that is refused. */
	bool partial;
};

/* The signed bundle of st's benchmark (one line of JSON and a newline)
 * into a malloc'd NUL-terminated *buf of *len bytes (len may be NULL), to
 * free with sb_free.  Reads the benchmark's logs (verified with its HMAC
 * key) and its spec; prints nothing.  -1 with err (*buf NULL):
 * SB_ERR_INPUT when a child is pending or running and opts->partial is
 * false, or the key file is refused (a symbolic link, group or other
 * bits, not an Ed25519 private key in PEM); SB_ERR_NOT_FOUND when the key
 * file does not exist; SB_ERR_RUNTIME when a log or the key cannot be
 * read; SB_ERR_NOMEM. */
int sb_bundle_export(const struct sb_status *st, const struct sb_bundle_opts *opts, char **buf,
		     size_t *len, struct sb_error *err);

/* What sbctl verify checks (docs/verify.md). */
struct sb_bundle_verify_opts {
	/* The signer's Ed25519 public key, PEM SubjectPublicKeyInfo (the
	 * KEY.pub of sbctl keygen --ed25519). */
	const char *pubkey_path;
	/* A benchmark directory to check the bundle against as well (its logs
	 * and result files still as the bundle says), or NULL. */
	const char *against;
};

/* The outcome of a check. */
struct sb_bundle_verdict {
	bool ok;                   /* every check held */
	char *problem;             /* the first problem found (free with
	                              sb_bundle_verdict_release), NULL when ok */
	char keyid[65];            /* the public key's id (sha256 hex of its DER) */
	char sha256[65];           /* of the bundle's bytes as given */
	char benchmark_digest[65]; /* "" when the statement was not reached */
	char name[256];            /* the benchmark's name, "" when not reached
	                              (a longer name is cut: only for display) */
	size_t children;           /* children the predicate lists */
	size_t succeeded;          /* of them, succeeded */
	size_t subjects;           /* subjects of the statement */
	bool partial;              /* the bundle says it was exported partial */
};

/* Checks the bundle in buf (len bytes, as sb_bundle_export wrote it):
 * the signature with the public key; then the statement: the spec in the
 * predicate plans exactly the children listed (same digests, none missing,
 * none extra), every class is what the classification gives for the
 * evidence the bundle carries, the analysis recomputes from the succeeded
 * children's metrics, the subjects are the succeeded children's result
 * files and the analysis; with opts->against, also that directory's logs
 * (verified with its key: heads and result digests as the bundle says)
 * and result files.  Prints nothing.
 *
 * 0 when the bundle was checked: out->ok, or out->problem naming the first
 * problem ("bad signature", "child 7 missing", ...).  -1 with err when it
 * could not be: SB_ERR_NOT_FOUND (the public key file or the directory
 * does not exist), SB_ERR_INPUT (not an Ed25519 public key in PEM; the
 * directory is no benchmark), SB_ERR_RUNTIME (a file cannot be read),
 * SB_ERR_NOMEM.  out is zeroed first. */
int sb_bundle_verify(const char *buf, size_t len, const struct sb_bundle_verify_opts *opts,
		     struct sb_bundle_verdict *out, struct sb_error *err);

/* Frees out's problem text; accepts a zeroed verdict. */
void sb_bundle_verdict_release(struct sb_bundle_verdict *v);

/* The verdict as one JSON object and a newline ({"ok", "problem",
 * "keyid", "sha256", "benchmark", "digest", "children", "succeeded", "subjects",
 * "partial"}) into a malloc'd *buf (free with sb_free).  -1 with err
 * when out of memory. */
int sb_bundle_verdict_json(const struct sb_bundle_verdict *v, char **buf, size_t *len,
			   struct sb_error *err);

#ifdef __cplusplus
}
#endif

#endif
