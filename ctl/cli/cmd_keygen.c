/* sbctl keygen FILE: write a new 32-byte random HMAC key, mode 0600. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "sbench/key.h"

static const char keygen_usage[] =
	"usage: sbctl keygen FILE\n"
	"\n"
	"Writes a new 32-byte random HMAC key to FILE with mode 0600.\n"
	"Refuses to overwrite an existing FILE (or to follow a symlink).\n";

int cmd_keygen(int argc, char **argv)
{
	struct sb_error err = { 0 };

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(keygen_usage, stdout);
		return SB_EXIT_OK;
	}
	if (argc != 2 || argv[1][0] == '\0' ||
	    (argv[1][0] == '-' && strcmp(argv[1], "-") != 0)) {
		fputs(keygen_usage, stderr);
		return SB_EXIT_USAGE;
	}
	if (sb_key_generate_file(argv[1], &err) < 0) {
		fprintf(stderr, "sbctl keygen: %s\n", err.msg);
		return sb_cli_exit(&err);
	}
	return SB_EXIT_OK;
}
