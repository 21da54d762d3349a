/* sbctl keygen FILE: write a new 32-byte random HMAC key, mode 0600;
 * sbctl keygen --ed25519 FILE: an Ed25519 key pair, FILE and FILE.pub. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "sbench/key.h"

enum { OPT_ED25519 = 1 };

static const struct sb_opt opts[] = {
	{ "ed25519", 0, OPT_ED25519, SB_OPT_FLAG, NULL,
	  "an Ed25519 key pair instead: FILE (PEM PKCS#8, 0600) and FILE.pub (PEM)" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"keygen",
	"keygen FILE\n"
	"keygen --ed25519 FILE",
	"Writes a new 32-byte random HMAC key to FILE with mode 0600.\n"
	"With --ed25519, writes an Ed25519 private key to FILE (PEM, PKCS#8,\n"
	"mode 0600) and its public key to FILE.pub (PEM, SubjectPublicKeyInfo),\n"
	"as 'openssl genpkey -algorithm ed25519' would: signatures made with\n"
	"FILE anyone verifies with FILE.pub.\n"
	"Refuses to overwrite an existing file (or to follow a symlink).\n",
	opts,
	"exit status: 0 written, 1 I/O error (nothing left behind),\n"
	"2 usage error or a file exists already\n",
};

int cmd_keygen(int argc, char **argv)
{
	struct sb_error err = { 0 };
	struct sb_opt_iter it = { 0 };
	const char *file = NULL, *v;
	int k, ed25519 = 0;

	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP: return SB_EXIT_OK;
		case SB_OPT_ERROR: return SB_EXIT_USAGE;
		case OPT_ED25519: ed25519 = 1; break;
		case SB_OPT_OPERAND:
			if (sb_opt_operand(&cmd, &file, v, "FILE") < 0)
				return SB_EXIT_USAGE;
			break;
		}
	}
	if (file == NULL || file[0] == '\0') {
		sb_opt_error(&cmd, "%s", file ? "FILE is empty" : "missing FILE");
		return SB_EXIT_USAGE;
	}
	if ((ed25519 ? sb_key_generate_ed25519(file, &err) : sb_key_generate_file(file, &err)) < 0) {
		fprintf(stderr, "sbctl keygen: %s\n", err.msg);
		return sb_cli_exit(&err);
	}
	return SB_EXIT_OK;
}
