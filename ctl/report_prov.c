/* The provenance of the report: what the benchmark record says about who
 * made the benchmark, where, when, with which sbctl and Slurm, from which
 * commit (docs/benchmark-dir.md). */
#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/bench.h"
#include "ctl/fsutil.h"
#include "ctl/report.h"
#include "proto/mpcheck.h"

/* The string at key of map o into out (escaped), or "unknown". */
static void row(FILE *out, const char *label, const msgpack_object *o, const char *key)
{
	const msgpack_object *v = o ? sb_mp_get(o, key) : NULL;

	fprintf(out, "<tr><th>%s</th><td>", label);
	if (v && v->type == MSGPACK_OBJECT_STR) {
		char *s = strndup(v->via.str.ptr, v->via.str.size);
		if (s)
			sb_report_esc(out, s);
		free(s);
	} else if (v && v->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		fprintf(out, "%llu", (unsigned long long)v->via.u64);
	} else {
		fputs("<span class=\"dim\">unknown</span>", out);
	}
	fputs("</td></tr>\n", out);
}

/* The count of the map at p and the length of its header; -1 when p holds
 * no map header. */
static int map_header(const uint8_t *p, size_t len, size_t *n, size_t *hdr)
{
	if (len >= 1 && (p[0] & 0xf0) == 0x80) {
		*n = p[0] & 0x0f;
		*hdr = 1;
	} else if (len >= 3 && p[0] == 0xde) {
		*n = (size_t)p[1] << 8 | p[2];
		*hdr = 3;
	} else if (len >= 5 && p[0] == 0xdf) {
		*n = (size_t)p[1] << 24 | (size_t)p[2] << 16 | (size_t)p[3] << 8 | p[4];
		*hdr = 5;
	} else {
		return -1;
	}
	return 0;
}

/* Whether the msgpack str at p[0..len) is key. */
static bool str_is(const uint8_t *p, size_t len, const char *key)
{
	size_t n = strlen(key), at;

	if (len >= 1 && (p[0] & 0xe0) == 0xa0 && (size_t)(p[0] & 0x1f) == n)
		at = 1;
	else if (len >= 2 && p[0] == 0xd9 && p[1] == n)
		at = 2;
	else
		return false;
	return len == at + n && memcmp(p + at, key, n) == 0;
}

/* The value of the first key `key` of the map at buf[0..len) (one
 * well-formed object, sb_mp_check), unpacked alone into u: the benchmark
 * record's child list (an entry per child) is skipped, never decoded.
 * NULL when there is none. */
static const msgpack_object *top_value(const uint8_t *buf, size_t len, const char *key,
				       msgpack_unpacked *u)
{
	size_t n, off, i, klen, vlen;

	if (map_header(buf, len, &n, &off) < 0)
		return NULL;
	for (i = 0; i < n; i++) {
		if ((klen = sb_mp_check(buf + off, len - off)) == 0 ||
		    (vlen = sb_mp_check(buf + off + klen, len - off - klen)) == 0)
			return NULL;
		if (str_is(buf + off, klen, key))
			return sb_mp_unpack_one(buf + off + klen, vlen, u) == 0 ? &u->data : NULL;
		off += klen + vlen;
	}
	return NULL;
}

void sb_report_provenance(struct sb_report *r)
{
	const struct sb_bench *b = r->st->bench;
	FILE *out = r->out;
	char *path = NULL, *data = NULL;
	size_t len = 0;
	msgpack_unpacked u, us;
	const msgpack_object *prov = NULL, *git = NULL, *spec = NULL;

	msgpack_unpacked_init(&u);
	msgpack_unpacked_init(&us);
	if (asprintf(&path, "%s/%s", b->dir, SB_BENCH_RECORD) >= 0 &&
	    sb_fs_read_file(path, SB_BENCH_RECORD_MAX, &data, &len, NULL) == 0 &&
	    len > 0 && sb_mp_check((const uint8_t *)data, len) == len) {
		prov = top_value((const uint8_t *)data, len, "provenance", &u);
		spec = top_value((const uint8_t *)data, len, "spec", &us);
		if (prov && prov->type != MSGPACK_OBJECT_MAP)
			prov = NULL;
		git = prov ? sb_mp_get(prov, "git") : NULL;
		if (git && git->type != MSGPACK_OBJECT_MAP)
			git = NULL;
	}
	fputs("<table class=\"kv\">\n", out);
	row(out, "created", prov, "time");
	row(out, "by", prov, "user");
	row(out, "on host", prov, "host");
	row(out, "cluster", prov, "cluster");
	row(out, "Slurm", prov, "slurm_version");
	row(out, "sbctl", prov, "sbctl_version");
	row(out, "spec", spec && spec->type == MSGPACK_OBJECT_MAP ? spec : NULL, "path");
	if (git) {
		const msgpack_object *d = sb_mp_get(git, "dirty");
		row(out, "git commit", git, "commit");
		fprintf(out, "<tr><th>git tree</th><td>%s</td></tr>\n",
			d && d->type == MSGPACK_OBJECT_BOOLEAN
			? (d->via.boolean ? "<b class=\"warn\">dirty</b> (uncommitted changes)" : "clean")
			: "<span class=\"dim\">unknown</span>");
	} else {
		fputs("<tr><th>git</th><td><span class=\"dim\">the spec was in no git work tree</span>"
		      "</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	msgpack_unpacked_destroy(&u);
	msgpack_unpacked_destroy(&us);
	free(data);
	free(path);
}
