/* sb_spec_dirty_warning (include/sbench/spec.h): the provenance of a spec
 * file, told as the one warning a front end shows. */
#include <stdlib.h>
#include <string.h>

#include "spec/provenance.h"
#include "sbench/error.h"
#include "sbench/spec.h"

char *sb_spec_dirty_warning(const char *path)
{
	struct sb_provenance prov;
	char msg[SB_ERROR_MAX];

	if (path == NULL)
		return NULL;
	sb_provenance_collect(path, &prov);
	return sb_provenance_dirty_warning(&prov, path, msg, sizeof(msg)) ? strdup(msg) : NULL;
}
