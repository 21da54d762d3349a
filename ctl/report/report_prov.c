/* The provenance of the report: what the benchmark record says about who
 * made the benchmark, where, when, with which sbctl and Slurm, from which
 * commit (docs/benchmark-dir.md), as the benchmark kept it when opened. */
#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_private.h"
#include "report/report_private.h"
#include "proto/mpcheck.h"

/* A row of the table: text escaped, or "unknown" when NULL. */
static void row_text(FILE *out, const char *label, const char *text)
{
	fprintf(out, "<tr><th>%s</th><td>", label);
	if (text)
		sb_report_esc(out, text);
	else
		fputs("<span class=\"dim\">unknown</span>", out);
	fputs("</td></tr>\n", out);
}

/* The string (or unsigned integer) at key of map o as a row. */
static void row(FILE *out, const char *label, const msgpack_object *o, const char *key)
{
	const msgpack_object *v = o ? sb_mp_get(o, key) : NULL;
	char num[24];

	if (v && v->type == MSGPACK_OBJECT_STR) {
		char *s = strndup(v->via.str.ptr, v->via.str.size);
		row_text(out, label, s ? s : "");
		free(s);
	} else if (v && v->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)v->via.u64);
		row_text(out, label, num);
	} else {
		row_text(out, label, NULL);
	}
}

void sb_report_provenance(struct sb_report *r)
{
	const struct sb_bench *b = r->st->bench;
	FILE *out = r->out;
	msgpack_unpacked u;
	const msgpack_object *prov = NULL, *git = NULL;

	msgpack_unpacked_init(&u);
	if (b->prov_mp && sb_mp_unpack_one(b->prov_mp, b->prov_mp_len, &u) == 0 &&
	    u.data.type == MSGPACK_OBJECT_MAP) {
		prov = &u.data;
		git = sb_mp_get(prov, "git");
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
	row_text(out, "spec", b->spec_path);
	if (git) {
		const msgpack_object *d = sb_mp_get(git, "dirty");
		row(out, "git commit", git, "commit");
		fprintf(out, "<tr><th>git tree</th><td>%s</td></tr>\n",
			d && d->type == MSGPACK_OBJECT_BOOLEAN
			? (d->via.boolean ? "<b class=\"warn\">dirty</b> (uncommitted changes)" : "clean")
			: "<span class=\"dim\">unknown</span>");
		if (sb_mp_get(git, "diff_sha256") && sb_mp_get(git, "diff_sha256")->type == MSGPACK_OBJECT_STR)
			row(out, "uncommitted changes (sha256 of git diff HEAD)", git, "diff_sha256");
	} else {
		fputs("<tr><th>git</th><td><span class=\"dim\">the spec was in no git work tree</span>"
		      "</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	msgpack_unpacked_destroy(&u);
}
