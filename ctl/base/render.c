#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/render.h"
#include "proto/util.h"

int sb_render_buffer(sb_render_fn *fn, const void *obj, int format, char **buf, size_t *len,
		     struct sb_error *err)
{
	size_t n = 0;
	FILE *f;
	int rc;

	if (buf == NULL)
		return sb_error_set(err, SB_ERR_INPUT, "no buffer to render into");
	*buf = NULL;
	f = open_memstream(buf, &n);
	if (f == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	rc = fn(obj, format, f, err);
	if (fclose(f) != 0 && rc == 0)
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory rendering");
	if (rc < 0) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	if (len != NULL)
		*len = n;
	return 0;
}

int sb_render_flush(FILE *out, struct sb_error *err)
{
	if (fflush(out) != 0 || ferror(out))
		return sb_error_set(err, SB_ERR_RUNTIME, "cannot write the output: %s",
				    strerror(errno ? errno : EIO));
	return 0;
}

void sb_csv_field(FILE *out, const char *s, int first)
{
	if (!first)
		fputc(',', out);
	if (s == NULL)
		return;
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void sb_csv_num(FILE *out, double v)
{
	char buf[SB_DOUBLE_TEXT_MAX];

	fputc(',', out);
	if (!isnan(v))
		fputs(sb_fmt_double(v, buf), out);
}
