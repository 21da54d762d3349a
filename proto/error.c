#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "proto/util.h"
#include "sbench/error.h"

/* A message longer than the buffer (a long path in it) ends in "...", so
 * that the cut is never silent. */
static void mark_cut(struct sb_error *err, int wanted)
{
	if (wanted >= (int)sizeof(err->msg))
		memcpy(err->msg + sizeof(err->msg) - 4, "...", 4);
}

/* The message of fmt into err->msg, every control character of it but
 * the line end (a value of a spec, a file name, a line of a command's
 * output) written as \xNN: a message is shown, never acted on by a
 * terminal.  A message of several lines keeps them. */
static void format(struct sb_error *err, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
static void format(struct sb_error *err, const char *fmt, va_list ap)
{
	char raw[SB_ERROR_MAX];
	int wanted = vsnprintf(raw, sizeof(raw), fmt, ap);

	sb_escape_controls_but(raw, '\n', err->msg, sizeof(err->msg));
	mark_cut(err, wanted);
}

int sb_errorf(struct sb_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	format(err, fmt, ap);
	va_end(ap);
	err->code = SB_ERR_RUNTIME;
	return -1;
}

int sb_error_set(struct sb_error *err, enum sb_error_code code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	format(err, fmt, ap);
	va_end(ap);
	err->code = code;
	return -1;
}

const char *sb_error_code_name(enum sb_error_code code)
{
	switch (code) {
	case SB_ERR_NONE: return "none";
	case SB_ERR_RUNTIME: return "runtime";
	case SB_ERR_INPUT: return "input";
	case SB_ERR_NOT_FOUND: return "not_found";
	case SB_ERR_NOMEM: return "out_of_memory";
	case SB_ERR_TIMEOUT: return "timeout";
	case SB_ERR_SCHEDULER: return "scheduler";
	case SB_ERR_INTERRUPTED: return "interrupted";
	}
	return "runtime";
}

int sb_error_prefix(struct sb_error *err, const char *fmt, ...)
{
	char old[SB_ERROR_MAX];
	size_t n;
	va_list ap;
	int wanted;

	if (err == NULL)
		return -1;
	if (err->code == SB_ERR_NONE)
		err->code = SB_ERR_RUNTIME;
	memcpy(old, err->msg, sizeof(old));
	old[sizeof(old) - 1] = '\0';
	va_start(ap, fmt);
	format(err, fmt, ap);
	va_end(ap);
	n = strlen(err->msg);
	if (n + 2 < sizeof(err->msg)) {
		size_t len = strlen(old), room;

		memcpy(err->msg + n, ": ", 2);
		n += 2;
		room = sizeof(err->msg) - n - 1;
		wanted = (int)(n + len);
		if (len > room)
			len = room;
		memcpy(err->msg + n, old, len);
		err->msg[n + len] = '\0';
	} else {
		wanted = (int)sizeof(err->msg);
	}
	mark_cut(err, wanted);
	return -1;
}

void sb_error_recode(struct sb_error *err, enum sb_error_code code)
{
	if (err == NULL || err->code != SB_ERR_RUNTIME)
		return;
	err->code = code;
}
