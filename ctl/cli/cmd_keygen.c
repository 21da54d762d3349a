/* sbctl keygen FILE: write a new 32-byte random HMAC key, mode 0600. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "sbench/key.h"

static const struct sb_opt opts[] = {
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"keygen",
	"keygen FILE",
	"Writes a new 32-byte random HMAC key to FILE with mode 0600.\n"
	"Refuses to overwrite an existing FILE (or to follow a symlink).\n",
	opts,
	NULL,
};

int cmd_keygen(int argc, char **argv)
{
	struct sb_error err = { 0 };
	struct sb_opt_iter it = { 0 };
	const char *file = NULL, *v;
	int k;

	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP: return SB_EXIT_OK;
		case SB_OPT_ERROR: return SB_EXIT_USAGE;
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
	if (sb_key_generate_file(file, &err) < 0) {
		fprintf(stderr, "sbctl keygen: %s\n", err.msg);
		return sb_cli_exit(&err);
	}
	return SB_EXIT_OK;
}
