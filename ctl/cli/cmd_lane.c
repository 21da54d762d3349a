/* sbctl submit SPEC --check[=SECONDS] / --lane NAME [--max-active K]
 * (docs/lane.md, docs/sbctl-submit.md): <sbench/lane.h> does the work. */
#include <stdio.h>

#include "cli/commands.h"
#include "sbench/context.h"
#include "sbench/lane.h"

int cmd_submit_lane(const char *spec, const struct sb_submit_opts *o,
		    const struct sb_lane_opts *lo, bool json)
{
	struct sb_lane_result *r = NULL;
	struct sb_error err = { 0 };
	int rc;

	if (json)
		sb_ctx_set_progress(sb_cli_ctx(), NULL, NULL);
	if (sb_lane_submit(sb_cli_ctx(), spec, o, lo, &r, &err) < 0) {
		const struct sb_submit_result *s = sb_lane_result_submit(r);

		if (s && lo->check && sb_submit_result_job_count(s) == sb_submit_result_chunk_count(s))
			fprintf(stderr, "sbctl submit: submitted %s, but the check could not run: %s\n",
				sb_submit_result_dir(s), err.msg);
		else
			fprintf(stderr, "sbctl submit: %s%s\n", err.msg, err.code == SB_ERR_SCHEDULER &&
				lo->lane && !s ? " (nothing was submitted: whether the lane is busy "
				"cannot be told)" : "");
		if (s && sb_submit_result_resumable(s))
			fprintf(stderr, "sbctl submit: %zu of %zu job arrays are submitted; run "
				"'sbctl submit %s%s' again to continue\n", sb_submit_result_job_count(s),
				sb_submit_result_chunk_count(s), spec, o->smoke ? " --smoke" : "");
		sb_lane_result_destroy(r);
		return sb_cli_exit(&err);
	}
	if (sb_lane_render(r, json ? SB_FORMAT_JSON : SB_FORMAT_TEXT, stdout, &err) < 0) {
		fprintf(stderr, "sbctl submit: %s\n", err.msg);
		sb_lane_result_destroy(r);
		return sb_cli_exit(&err);
	}
	{
		const struct sb_submit_result *s = sb_lane_result_submit(r);
		enum sb_submit_smoke smoke = s ? sb_submit_result_smoke(s) : SB_SUBMIT_SMOKE_NONE;
		rc = sb_lane_result_busy(r) ? SB_EXIT_LANE_BUSY
		     : !sb_lane_result_healthy(r) || smoke == SB_SUBMIT_SMOKE_FAILED ||
		       smoke == SB_SUBMIT_SMOKE_TIMEOUT ? SB_EXIT_PROBLEM : SB_EXIT_OK;
	}
	sb_lane_result_destroy(r);
	return rc;
}
