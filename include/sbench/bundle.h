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

#ifdef __cplusplus
}
#endif

#endif
