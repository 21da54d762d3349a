/* Fuzz the sacct and squeue output parsers: any bytes are either rows or
 * skipped lines, never a crash, a leak or a runaway expansion. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/sched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_sched_rows rows = { 0 };
	char *text = malloc(size + 1);

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	sb_sacct_parse(text, &rows, 10000, NULL);
	sb_squeue_parse(text, &rows, 20000, NULL);
	for (size_t i = 0; i < rows.n; i++) {
		/* every row has a JobID, and its text reads back as the same one */
		char id[SB_SCHED_JOB_ID_LEN];
		struct sb_sched_row back;
		if (sb_sched_row_job_id(&rows.v[i], id)[0] == '\0' ||
		    sb_sched_job_id_parse(id, &back) < 0 || back.array_job != rows.v[i].array_job ||
		    back.array_task != rows.v[i].array_task)
			abort();
	}
	sb_sched_rows_release(&rows);
	free(text);
	return 0;
}
