/* sbctl export BENCH --sign KEY [-o FILE] [--partial] [--offline]: the
 * signed in-toto bundle of a benchmark (docs/sbctl-export.md);
 * <sbench/bundle.h> does the work. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "sbench/sbench.h"

enum { O_SIGN = 1, O_OUTPUT, O_PARTIAL, O_OFFLINE };

static const struct sb_opt opts[] = {
	{ "sign", 0, O_SIGN, SB_OPT_VALUE, "KEY",
	  "the Ed25519 private key that signs (sbctl keygen --ed25519)" },
	{ "output", 'o', O_OUTPUT, SB_OPT_VALUE, "FILE", "write the bundle to FILE (default: stdout)" },
	{ "partial", 0, O_PARTIAL, SB_OPT_FLAG, NULL,
	  "export while children are pending or running (the bundle says partial)" },
	{ "offline", 0, O_OFFLINE, SB_OPT_FLAG, NULL, "classify from the logs alone" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"export",
	"export BENCH --sign KEY [-o FILE] [--partial] [--offline]",
	"Writes the signed bundle of a benchmark: a DSSE envelope (JSON) whose\n"
	"payload is an in-toto Statement v1, signed with the Ed25519 key KEY.\n"
	"Its subjects are the result files of the succeeded children and the\n"
	"analysis; its predicate (https://sbench.dev/bundle/v1) holds the spec,\n"
	"the status of every planned child, the heads of its logs, its result\n"
	"digests and metrics, and the analysis.  Anyone holding KEY.pub verifies\n"
	"it, with openssl and Python alone if need be.  Refuses while a child is\n"
	"pending or running, unless --partial.\n",
	opts,
	"exit status: 0 written, 1 runtime error (a log or the scheduler),\n"
	"2 usage or input error (children pending or running without --partial,\n"
	"a refused key, no such benchmark)\n",
};

/* buf to path through a temporary file beside it, renamed over it. */
static int write_file(const char *path, const char *buf, size_t len)
{
	size_t n = strlen(path) + 16;
	char *tmp = malloc(n);
	FILE *f;
	int ok;

	if (tmp == NULL)
		return -1;
	snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
	f = fopen(tmp, "wx");
	if (f == NULL) {
		free(tmp);
		return -1;
	}
	ok = fwrite(buf, 1, len, f) == len;
	ok = fflush(f) == 0 && ok;
	ok = fsync(fileno(f)) == 0 && ok;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, path) < 0) {
		int saved = errno;
		unlink(tmp);
		free(tmp);
		errno = saved;
		return -1;
	}
	free(tmp);
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct sb_bundle_opts bo = { 0 };
	struct sb_status_opts o = { 0 };
	struct sb_error err = { 0 };
	struct sb_opt_iter it = { 0 };
	struct sb_status *st = NULL;
	struct sb_bench *b = NULL;
	const char *bench = NULL, *output = NULL, *v;
	char *buf = NULL;
	size_t len = 0;
	int k, rc;

	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP: return SB_EXIT_OK;
		case SB_OPT_ERROR: return SB_EXIT_USAGE;
		case O_SIGN: bo.key_path = v; break;
		case O_OUTPUT: output = v; break;
		case O_PARTIAL: bo.partial = true; break;
		case O_OFFLINE: o.offline = true; break;
		case SB_OPT_OPERAND:
			if (sb_opt_operand(&cmd, &bench, v, "BENCH") < 0)
				return SB_EXIT_USAGE;
			break;
		}
	}
	if (bench == NULL || bo.key_path == NULL || bo.key_path[0] == '\0' ||
	    (output != NULL && output[0] == '\0')) {
		sb_opt_error(&cmd, "%s", bench == NULL ? "missing BENCH"
					 : output != NULL && output[0] == '\0' ? "-o needs a file name"
					 : "missing --sign KEY");
		return SB_EXIT_USAGE;
	}
	sb_ctx_set_progress(sb_cli_ctx(), NULL, NULL);
	if ((rc = sb_cli_status("export", bench, &o, &b, &st)) != 0)
		return rc;
	if (sb_bundle_export(st, &bo, &buf, &len, &err) < 0) {
		fprintf(stderr, "sbctl export: %s\n", err.msg);
		rc = sb_cli_exit(&err);
	} else if (output != NULL ? write_file(output, buf, len) < 0
				  : fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0) {
		fprintf(stderr, "sbctl export: cannot write '%s': %s\n", output ? output : "stdout",
			strerror(errno));
		rc = SB_EXIT_RUNTIME;
	} else {
		rc = SB_EXIT_OK;
	}
	sb_free(buf);
	sb_status_destroy(st);
	sb_bench_destroy(b);
	return rc;
}
