/* What the views for people (the text of `sbctl status`, the HTML report)
 * say about one child beside its class: its parameters as "k=v" words, the
 * parameters a group of children shares, and the tail of its Slurm stderr. */
#ifndef SB_CTL_REPORT_CHILD_H
#define SB_CTL_REPORT_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "status/status_types.h"

/* A group of children of one class and one reason: the children of a
 * class whose reasons are identical once the child's own job id in it is
 * written "<job>" ("job <job> FAILED (ExitCode 127:0) before sbagent
 * started"). */
struct sb_reason_group {
	enum sb_class cls;
	char *reason;       /* the reason (the child's own for a group of one) */
	size_t *children;   /* n indices, ascending */
	size_t n;
};

/* The groups of the children whose class is in mask (bits 1u << class),
 * by class, then the largest first, then by their first child, into
 * *groups (*ngroups of them; free with sb_reason_groups_free).  -1 with err
 * (SB_ERR_NOMEM). */
int sb_reason_groups(const struct sb_status *st, unsigned mask, struct sb_reason_group **groups,
		     size_t *ngroups, struct sb_error *err);
void sb_reason_groups_free(struct sb_reason_group *groups, size_t n);

/* The parameters of a group of children (and "repeat", as one more), and
 * which of them every child of the group shares. */
struct sb_param_share {
	size_t nparams;           /* the spec's parameters, then repeat */
	bool *shared;             /* [nparams + 1] */
	struct sb_child *first;   /* the first child's values */
	struct sb_child *cur;     /* scratch */
};

/* Which parameter values the children members[0..n) (n > 0) of st share
 * into *ps (released with sb_param_share_release).  -1 out of memory or a
 * child the plan does not have (err). */
int sb_param_share_compute(const struct sb_status *st, const size_t *members, size_t n,
			   struct sb_param_share *ps, struct sb_error *err);
void sb_param_share_release(struct sb_param_share *ps);

/* Writes the "k=v" words of child c's parameters to out, separated by
 * spaces: the shared ones (shared true) or the others; "repeat=N" counts as
 * a parameter but is left out when it is 0 and shared.  Returns the number
 * of words written. */
size_t sb_param_share_words(const struct sb_status *st, struct sb_param_share *ps, size_t c,
			    bool shared, FILE *out);

/* The same words as a malloc'd string ("" when none; NULL out of
 * memory), *nwords (may be NULL) their number. */
char *sb_param_share_text(const struct sb_status *st, struct sb_param_share *ps, size_t c,
			  bool shared, size_t *nwords);

/* The last `lines` lines (each cut at 200 bytes) of the last 4 KiB of the
 * newest Slurm stderr file of child c (sb_bench_output), malloc'd, "\n"
 * between lines and none at the end, control characters but tabs shown as
 * '?', a line the 4 KiB cut into not shown; NULL when there is none or it
 * is empty.  *err_path
 * (when err_path is not NULL) the malloc'd path of that file (even empty),
 * or NULL when the child has none. */
char *sb_child_stderr_tail(const struct sb_bench *b, size_t c, int lines, char **err_path);

#endif
