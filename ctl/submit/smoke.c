/* The wait of a submit's smoke test (submit/smoke.h). */
#include <stdlib.h>
#include <string.h>

#include "submit/check.h"
#include "submit/smoke.h"
#include "status/report_child.h"
#include "status/status_private.h"

int sb_smoke_wait(const struct sb_ctx *ctx, const char *dir, size_t child, double seconds,
		  struct sb_submit_smoke_state *s, struct sb_error *err)
{
	struct sb_check_opts w = { .seconds = seconds, .interval = -1 };
	struct sb_status *st = NULL;
	const struct sb_child_status *ch;
	struct sb_bench *b;
	bool ended = false;
	int rc;

	s->child = (int64_t)child;
	s->seconds = seconds;
	if ((b = sb_bench_open(dir, err)) == NULL)
		return -1;
	rc = sb_check_watch(ctx, b, &child, 1, &w, &st, &s->waited_s, &ended, err);
	if (rc == 0) {
		ch = child < st->n ? &st->children[child] : NULL;
		s->cls = ch ? sb_class_name(ch->cls) : NULL;
		s->outcome = !ended ? SB_SUBMIT_SMOKE_TIMEOUT
			     : ch && ch->cls == SB_CLASS_SUCCEEDED ? SB_SUBMIT_SMOKE_PASSED
			     : SB_SUBMIT_SMOKE_FAILED;
		if ((s->reason = strdup(ch && ch->reason ? ch->reason : "")) == NULL)
			rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		if (s->outcome != SB_SUBMIT_SMOKE_PASSED)
			s->stderr_tail = sb_child_stderr_tail(st->bench, child, SB_CHECK_TAIL_LINES, NULL);
		if (rc < 0)
			s->outcome = SB_SUBMIT_SMOKE_NONE;
	}
	sb_status_destroy(st);
	sb_bench_destroy(b);
	return rc;
}
