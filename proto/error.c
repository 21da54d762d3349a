#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sbench/error.h"

int sb_errorf(struct sb_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int sb_error_prefix(struct sb_error *err, const char *fmt, ...)
{
	char prefix[SB_ERROR_MAX], old[SB_ERROR_MAX];
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", prefix, old);
	return -1;
}
