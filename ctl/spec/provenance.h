/* Provenance of a benchmark (docs/benchmark-dir.md): who created it, where, when, with
 * which sbctl and Slurm, from which state of which repository. */
#ifndef SB_CTL_PROVENANCE_H
#define SB_CTL_PROVENANCE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct sb_provenance {
	char user[64];
	long uid;
	char host[256];
	int64_t time_ns;
	int has_git;          /* the spec lies in a git work tree */
	char git_commit[64];  /* HEAD, "" when the repository has no commit yet */
	int git_dirty;        /* tracked files differ from HEAD */
	char git_diff_sha256[65]; /* SHA-256 of `git diff HEAD` when dirty, else "" */
	char git_root[PATH_MAX];
};

/* Fills p; git facts come from `git -C <spec's directory>` when git is
 * installed and the spec lies in a work tree.  Never fails: unknown facts
 * stay empty. */
void sb_provenance_collect(const char *spec_path, struct sb_provenance *p);

/* When the spec's repository is dirty (or the spec is not committed),
 * writes a one-line warning into buf and returns 1; else 0. */
int sb_provenance_dirty_warning(const struct sb_provenance *p, const char *spec_path,
				char *buf, size_t size);

#endif
