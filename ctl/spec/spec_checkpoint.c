/* The checkpoint key of a spec: its canonical msgpack and what sbatch is
 * asked for (ctl/spec/spec_checkpoint.h). */
#include <inttypes.h>
#include <stdio.h>

#include "base/canon.h"
#include "spec/spec_checkpoint.h"
#include "spec/spec_loader.h"

const struct sb_spec_checkpoint *sb_spec_checkpoint(const struct sb_spec *s)
{
	return s->checkpoint;
}

void sb_checkpoint_canon(struct sb_canon *c, const struct sb_spec_checkpoint *ck)
{
	size_t i, n = 0;

	sb_canon_map(c, 5);
	sb_canon_cstr(c, SB_CK_BEFORE);
	sb_canon_int(c, ck->before);
	sb_canon_cstr(c, SB_CK_FILES);
	sb_canon_array(c, ck->nfiles);
	for (i = 0; i < ck->nfiles; i++)
		sb_canon_cstr(c, ck->files[i]);
	sb_canon_cstr(c, SB_CK_MAX_RESTARTS);
	sb_canon_int(c, ck->max_restarts);
	sb_canon_cstr(c, SB_CK_REQUEUE_ON);
	for (i = 0; i < SB_REQUEUE_NCAUSES; i++)
		n += (ck->requeue_on & sb_requeue_cause_bit(i)) != 0;
	sb_canon_array(c, n);
	for (i = 0; i < SB_REQUEUE_NCAUSES; i++)
		if (ck->requeue_on & sb_requeue_cause_bit(i))
			sb_canon_cstr(c, sb_requeue_cause_name(i));
	sb_canon_cstr(c, SB_CK_SIGNAL);
	sb_canon_cstr(c, ck->signal);
}

void sb_checkpoint_sbatch_signal(const struct sb_spec_checkpoint *ck, char *buf, size_t size)
{
	snprintf(buf, size, "B:%s@%" PRId64, ck->signal, ck->before);
}
