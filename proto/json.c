#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "proto/json.h"
#include "proto/util.h"

void sb_json_init(struct sb_json *j, FILE *out)
{
	*j = (struct sb_json){ .out = out };
}

/* Writes the separator a new value needs at the current position. */
static void value_prefix(struct sb_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma[j->depth])
		fputc(',', j->out);
	j->need_comma[j->depth] = true;
}

static void open_container(struct sb_json *j, char c)
{
	if (j->depth >= SB_JSON_MAX_DEPTH) {
		j->error = true;
		return;
	}
	value_prefix(j);
	fputc(c, j->out);
	j->need_comma[++j->depth] = false;
}

static void close_container(struct sb_json *j, char c)
{
	if (j->depth == 0) {
		j->error = true;
		return;
	}
	j->depth--;
	fputc(c, j->out);
}

void sb_json_obj_begin(struct sb_json *j) { open_container(j, '{'); }
void sb_json_obj_end(struct sb_json *j) { close_container(j, '}'); }
void sb_json_arr_begin(struct sb_json *j) { open_container(j, '['); }
void sb_json_arr_end(struct sb_json *j) { close_container(j, ']'); }

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

	fputc('"', out);
	while (i < n) {
		unsigned char c = s[i];
		size_t run = i;

		/* a run of bytes that need no escape goes out in one call */
		while (run < n && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' &&
		       s[run] != '\\')
			run++;
		if (run > i) {
			fwrite(s + i, 1, run - i, out);
			i = run;
			continue;
		}
		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(out, "\\u%04x", c);
			} else if (c < 0x80) {
				fputc(c, out);
			} else if ((len = utf8_len(s + i, n - i)) > 0) {
				fwrite(s + i, 1, len, out);
				i += len;
				continue;
			} else {
				fputs("\\ufffd", out);
			}
		}
		i++;
	}
	fputc('"', out);
}

void sb_json_key(struct sb_json *j, const char *key)
{
	value_prefix(j);
	write_string(j->out, key, strlen(key));
	fputc(':', j->out);
	j->after_key = true;
}

void sb_json_strn(struct sb_json *j, const char *s, size_t n)
{
	value_prefix(j);
	write_string(j->out, s, n);
}

void sb_json_str(struct sb_json *j, const char *s)
{
	if (s == NULL) {
		sb_json_null(j);
		return;
	}
	sb_json_strn(j, s, strlen(s));
}

void sb_json_int(struct sb_json *j, int64_t v)
{
	value_prefix(j);
	fprintf(j->out, "%" PRId64, v);
}

void sb_json_uint(struct sb_json *j, uint64_t v)
{
	value_prefix(j);
	fprintf(j->out, "%" PRIu64, v);
}

void sb_json_double(struct sb_json *j, double v)
{
	char buf[SB_DOUBLE_TEXT_MAX];

	if (!isfinite(v)) {
		sb_json_null(j);
		return;
	}
	value_prefix(j);
	fputs(sb_fmt_double(v, buf), j->out);
}

void sb_json_bool(struct sb_json *j, bool v)
{
	value_prefix(j);
	fputs(v ? "true" : "false", j->out);
}

void sb_json_null(struct sb_json *j)
{
	value_prefix(j);
	fputs("null", j->out);
}

bool sb_json_error(const struct sb_json *j)
{
	return j->error || ferror(j->out);
}
