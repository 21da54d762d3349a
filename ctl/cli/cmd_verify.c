/* sbctl verify FILE --pubkey PUB [--against DIR] [--json]: checks a signed
 * bundle (docs/verify.md); <sbench/bundle.h> does the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "sbench/sbench.h"

enum { O_PUBKEY = 1, O_AGAINST, O_JSON };

static const struct sb_opt opts[] = {
	{ "pubkey", 0, O_PUBKEY, SB_OPT_VALUE, "PUB",
	  "the signer's Ed25519 public key (the KEY.pub of sbctl keygen --ed25519)" },
	{ "against", 0, O_AGAINST, SB_OPT_VALUE, "DIR",
	  "also check the benchmark directory DIR: its logs and result files as the bundle says" },
	{ "json", 0, O_JSON, SB_OPT_FLAG, NULL, "print the verdict as JSON" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"verify",
	"verify FILE --pubkey PUB [--against DIR] [--json]",
	"Checks a bundle written by sbctl export, with the signer's public key\n"
	"alone: the signature; that the spec it holds plans exactly the children\n"
	"it lists; that every class is what the classification rules give for\n"
	"the evidence it carries; that the analysis recomputes from the succeeded\n"
	"children's metrics; and that its subjects are their result files and\n"
	"the analysis.  Names the first problem.\n",
	opts,
	"exit status: 0 verified, 3 a problem (named on stderr), 2 usage or input\n"
	"error (no such file, not JSON, not an Ed25519 public key), 1 runtime error\n",
};

int cmd_verify(int argc, char **argv)
{
	struct sb_bundle_verify_opts vo = { 0 };
	struct sb_bundle_verdict vd;
	struct sb_error err = { 0 };
	struct sb_opt_iter it = { 0 };
	const char *file = NULL, *v;
	char *json = NULL;
	size_t jlen = 0;
	bool as_json = false;
	int k, rc;

	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP: return SB_EXIT_OK;
		case SB_OPT_ERROR: return SB_EXIT_USAGE;
		case O_PUBKEY: vo.pubkey_path = v; break;
		case O_AGAINST: vo.against = v; break;
		case O_JSON: as_json = true; break;
		case SB_OPT_OPERAND:
			if (sb_opt_operand(&cmd, &file, v, "FILE") < 0)
				return SB_EXIT_USAGE;
			break;
		}
	}
	if (file == NULL || vo.pubkey_path == NULL || vo.pubkey_path[0] == '\0' ||
	    (vo.against != NULL && vo.against[0] == '\0')) {
		sb_opt_error(&cmd, "%s", file == NULL ? "missing FILE"
					 : vo.against != NULL && vo.against[0] == '\0' ? "--against needs a directory"
					 : "missing --pubkey PUB");
		return SB_EXIT_USAGE;
	}
	if ((rc = sb_cli_verify_bundle("verify", file, &vo, &vd)) != SB_EXIT_OK)
		return rc;
	if (as_json) {
		if (sb_bundle_verdict_json(&vd, &json, &jlen, &err) < 0) {
			fprintf(stderr, "sbctl verify: %s\n", err.msg);
			sb_bundle_verdict_release(&vd);
			return SB_EXIT_RUNTIME;
		}
		fwrite(json, 1, jlen, stdout);
		sb_free(json);
	} else if (vd.ok) {
		printf("verified: %s (%.12s), %zu children, %zu succeeded%s; signed by key %.16s\n",
		       vd.name, vd.benchmark_digest, vd.children, vd.succeeded,
		       vd.partial ? " (a partial bundle)" : "", vd.keyid);
	}
	if (!vd.ok)
		fprintf(stderr, "sbctl verify: %s: %s\n", file, vd.problem);
	rc = vd.ok ? SB_EXIT_OK : SB_EXIT_PROBLEM;
	sb_bundle_verdict_release(&vd);
	if (fflush(stdout) != 0)
		rc = SB_EXIT_RUNTIME;
	return rc;
}
