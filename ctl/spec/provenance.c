#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/proc.h"
#include "proto/util.h"
#include "spec/provenance.h"

/* Runs git -C dir ARGS...; returns its stdout (first line, trimmed) in buf,
 * and the exit code, or -1 when git could not run. */
static int git(const char *dir, char *const args[], char *buf, size_t size, int *nonempty)
{
	char *argv[8] = { "git", "-C", (char *)dir };
	struct sb_proc_result res;
	size_t i;
	int rc;

	for (i = 0; args[i] && i < 4; i++)
		argv[3 + i] = args[i];
	argv[3 + i] = NULL;
	if (sb_proc_run(argv, 1 << 16, 30000, &res, NULL) < 0)
		return -1;
	rc = res.exit_code;
	if (nonempty)
		*nonempty = res.out_len > 0;
	if (buf) {
		snprintf(buf, size, "%s", res.out);
		buf[strcspn(buf, "\n")] = '\0';
	}
	sb_proc_result_release(&res);
	return rc;
}

static int sha_sink(void *arg, const char *data, size_t len)
{
	return EVP_DigestUpdate(arg, data, len) == 1 ? 0 : -1;
}

/* The SHA-256 of the uncommitted changes to tracked files (`git diff
 * HEAD`, binary changes included) into hex, or "" when it cannot be had. */
static void diff_digest(const char *dir, char hex[65])
{
	char *argv[] = { "git", "-C", (char *)dir, "diff", "HEAD", "--binary", "--no-color",
			 "--no-ext-diff", "--no-textconv", NULL };
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	struct sb_proc_opts o = { .max_output = 1 << 16, .timeout_ms = 30000, .out_sink = sha_sink,
				  .out_sink_arg = ctx };
	struct sb_proc_result res;
	uint8_t sha[32];

	hex[0] = '\0';
	if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(ctx);
		return;
	}
	if (sb_proc_run_opts(argv, &o, &res, NULL) == 0) {
		if (res.exit_code == 0 && res.sink_rc == 0 && EVP_DigestFinal_ex(ctx, sha, NULL) == 1)
			sb_hex_encode(sha, sizeof(sha), hex);
		sb_proc_result_release(&res);
	}
	EVP_MD_CTX_free(ctx);
}

void sb_provenance_collect(const char *spec_path, struct sb_provenance *p)
{
	struct passwd *pw = getpwuid(geteuid());
	struct timespec ts;
	char copy[PATH_MAX], base[PATH_MAX], *dir;
	int dirty = 0;

	memset(p, 0, sizeof(*p));
	p->uid = (long)geteuid();
	snprintf(p->user, sizeof(p->user), "%s", pw ? pw->pw_name : "");
	if (gethostname(p->host, sizeof(p->host) - 1) < 0)
		p->host[0] = '\0';
	clock_gettime(CLOCK_REALTIME, &ts);
	p->time_ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;

	snprintf(copy, sizeof(copy), "%s", spec_path);
	dir = dirname(copy);
	if (git(dir, (char *[]){ "rev-parse", "--show-toplevel", NULL }, p->git_root,
		sizeof(p->git_root), NULL) != 0) {
		p->git_root[0] = '\0';
		return;
	}
	p->has_git = 1;
	if (git(dir, (char *[]){ "rev-parse", "--verify", "-q", "HEAD", NULL }, p->git_commit,
		sizeof(p->git_commit), NULL) != 0)
		p->git_commit[0] = '\0';
	if (git(dir, (char *[]){ "status", "--porcelain", "--untracked-files=no", NULL }, NULL, 0,
		&dirty) == 0)
		p->git_dirty = dirty || p->git_commit[0] == '\0';
	if (dirty && p->git_commit[0])
		diff_digest(dir, p->git_diff_sha256);
	/* a spec that is not in the repository is not described by its commit */
	snprintf(base, sizeof(base), "%s", spec_path);
	if (git(dir, (char *[]){ "ls-files", "--error-unmatch", "--", basename(base), NULL }, NULL, 0,
		NULL) != 0)
		p->git_dirty = 1;
}

int sb_provenance_dirty_warning(const struct sb_provenance *p, const char *spec_path,
				char *buf, size_t size)
{
	if (!p->has_git || !p->git_dirty)
		return 0;
	snprintf(buf, size, "warning: the repository '%s' holding '%s' has changes not in commit "
		 "%s (or the spec is not committed); the benchmark record will say so",
		 p->git_root, spec_path, p->git_commit[0] ? p->git_commit : "(none)");
	return 1;
}
