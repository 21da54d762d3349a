#include <stdlib.h>

#include "sbench/sbench.h"

const char *sb_version(void)
{
	return SB_VERSION;
}

void sb_free(void *p)
{
	free(p);
}
