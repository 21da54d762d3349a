#include "sbench/sbench.h"

const char *sb_version(void)
{
	return SB_VERSION;
}
