#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "proto/json.h"
#include "proto/util.h"

void sb_json_init(struct sb_json *j, FILE *out)
{
	*j = (struct sb_json){ .out = out };
}

/* Every writer below takes the stream's lock once for its value and writes
 * with the _unlocked calls: one lock per value, not one per byte (the lock
 * is recursive, so a caller that holds it for a whole document pays almost
 * nothing more). */
#define LOCKED(j, body) do { flockfile((j)->out); body; funlockfile((j)->out); } while (0)

/* Writes the separator a new value needs at the current position. */
static void value_prefix(struct sb_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma[j->depth])
		fputc_unlocked(',', j->out);
	j->need_comma[j->depth] = true;
}

static void open_container(struct sb_json *j, char c)
{
	if (j->depth >= SB_JSON_MAX_DEPTH) {
		j->error = true;
		return;
	}
	value_prefix(j);
	fputc_unlocked(c, j->out);
	j->need_comma[++j->depth] = false;
}

static void close_container(struct sb_json *j, char c)
{
	if (j->depth == 0) {
		j->error = true;
		return;
	}
	j->depth--;
	fputc_unlocked(c, j->out);
}

void sb_json_obj_begin(struct sb_json *j) { LOCKED(j, open_container(j, '{')); }
void sb_json_obj_end(struct sb_json *j) { LOCKED(j, close_container(j, '}')); }
void sb_json_arr_begin(struct sb_json *j) { LOCKED(j, open_container(j, '[')); }
void sb_json_arr_end(struct sb_json *j) { LOCKED(j, close_container(j, ']')); }

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

static void write_string(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, len;

	fputc_unlocked('"', out);
	while (i < n) {
		unsigned char c = s[i];
		size_t run = i;

		/* a run of bytes that need no escape goes out in one call */
		while (run < n && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' &&
		       s[run] != '\\')
			run++;
		if (run > i) {
			fwrite_unlocked(s + i, 1, run - i, out);
			i = run;
			continue;
		}
		switch (c) {
		case '"': fputs_unlocked("\\\"", out); break;
		case '\\': fputs_unlocked("\\\\", out); break;
		case '\n': fputs_unlocked("\\n", out); break;
		case '\r': fputs_unlocked("\\r", out); break;
		case '\t': fputs_unlocked("\\t", out); break;
		case '\b': fputs_unlocked("\\b", out); break;
		case '\f': fputs_unlocked("\\f", out); break;
		default:
			if (c < 0x20 || c == 0x7f) {
				{
				char u[8];
				snprintf(u, sizeof(u), "\\u%04x", c);
				fputs_unlocked(u, out);
			}
			} else if (c < 0x80) {
				fputc_unlocked(c, out);
			} else if ((len = utf8_len(s + i, n - i)) > 0) {
				fwrite_unlocked(s + i, 1, len, out);
				i += len;
				continue;
			} else {
				fputs_unlocked("\\ufffd", out);
			}
		}
		i++;
	}
	fputc_unlocked('"', out);
}

void sb_json_key(struct sb_json *j, const char *key)
{
	LOCKED(j, value_prefix(j); write_string(j->out, key, strlen(key)); fputc_unlocked(':', j->out));
	j->after_key = true;
}

void sb_json_strn(struct sb_json *j, const char *s, size_t n)
{
	LOCKED(j, value_prefix(j); write_string(j->out, s, n));
}

void sb_json_str(struct sb_json *j, const char *s)
{
	if (s == NULL) {
		sb_json_null(j);
		return;
	}
	sb_json_strn(j, s, strlen(s));
}

/* The decimal digits of v, written straight (printf's parsing is most of
 * the cost of a small integer). */
static void write_uint(FILE *out, uint64_t v, bool minus)
{
	char t[24];
	size_t n = sizeof(t);

	do {
		t[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	if (minus)
		t[--n] = '-';
	fwrite_unlocked(t + n, 1, sizeof(t) - n, out);
}

void sb_json_int(struct sb_json *j, int64_t v)
{
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	LOCKED(j, value_prefix(j); write_uint(j->out, mag, v < 0));
}

void sb_json_uint(struct sb_json *j, uint64_t v)
{
	LOCKED(j, value_prefix(j); write_uint(j->out, v, false));
}

void sb_json_double(struct sb_json *j, double v)
{
	char buf[SB_DOUBLE_TEXT_MAX];

	if (!isfinite(v)) {
		sb_json_null(j);
		return;
	}
	LOCKED(j, value_prefix(j); fputs_unlocked(sb_fmt_double(v, buf), j->out));
}

void sb_json_bool(struct sb_json *j, bool v)
{
	LOCKED(j, value_prefix(j); fputs_unlocked(v ? "true" : "false", j->out));
}

void sb_json_null(struct sb_json *j)
{
	LOCKED(j, value_prefix(j); fputs_unlocked("null", j->out));
}

void sb_json_raw(struct sb_json *j, const char *token)
{
	LOCKED(j, value_prefix(j); fputs_unlocked(token, j->out));
}

bool sb_json_error(const struct sb_json *j)
{
	return j->error || ferror(j->out);
}
