/* sbctl list [--json]: the benchmarks the local index knows
 * (docs/sbctl-list.md). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl/commands.h"
#include "sbench/context.h"
#include "ctl/index.h"
#include "proto/json.h"
#include "proto/util.h"

struct list_ctx {
	struct sb_json j;
	int json;
	size_t n;
};

static int show(const struct sb_index_bench *b, void *arg)
{
	struct list_ctx *c = arg;
	char when[32];
	char rec[4200];
	int present, n;

	/* a directory too long to look at is not known to be there */
	n = snprintf(rec, sizeof(rec), "%s/benchmark.msgpack", b->dir);
	present = n > 0 && (size_t)n < sizeof(rec) && access(rec, F_OK) == 0;
	sb_fmt_time_ns(b->created_ns, when);
	if (c->json) {
		sb_json_obj_begin(&c->j);
		sb_json_key(&c->j, "name");
		sb_json_str(&c->j, b->name);
		sb_json_key(&c->j, "digest");
		sb_json_str(&c->j, b->digest);
		sb_json_key(&c->j, "dir");
		sb_json_str(&c->j, b->dir);
		sb_json_key(&c->j, "created");
		sb_json_str(&c->j, when);
		sb_json_key(&c->j, "present");
		sb_json_bool(&c->j, present);
		sb_json_obj_end(&c->j);
	} else {
		if (c->n == 0)
			printf("%-24s %-12s %-20s %s\n", "NAME", "DIGEST", "CREATED", "DIRECTORY");
		printf("%-24s %.12s %.19s  %s%s\n", b->name, b->digest, when, b->dir,
		       present ? "" : "  (gone)");
	}
	c->n++;
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct list_ctx c = { .json = 0 };
	struct sb_error err;
	struct sb_index *idx;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			c.json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			puts("usage: sbctl list [--json]\n\nLists the benchmarks the local index knows.");
			return SB_EXIT_OK;
		} else {
			fprintf(stderr, "sbctl list: unknown argument '%s'\nusage: sbctl list [--json]\n", argv[i]);
			return SB_EXIT_USAGE;
		}
	}
	idx = sb_index_open(sb_ctx_index(sb_cli_ctx()), NULL, &err);
	if (idx == NULL) {
		fprintf(stderr, "sbctl list: %s\n", err.msg);
		return SB_EXIT_RUNTIME;
	}
	if (c.json) {
		sb_json_init(&c.j, stdout);
		sb_json_obj_begin(&c.j);
		sb_json_key(&c.j, "format");
		sb_json_int(&c.j, 1);
		sb_json_key(&c.j, "benchmarks");
		sb_json_arr_begin(&c.j);
	}
	if (sb_index_each_bench(idx, show, &c, &err) < 0) {
		fprintf(stderr, "sbctl list: %s\n", err.msg);
		sb_index_close(idx);
		return SB_EXIT_RUNTIME;
	}
	sb_index_close(idx);
	if (c.json) {
		sb_json_arr_end(&c.j);
		sb_json_obj_end(&c.j);
		putchar('\n');
	} else if (c.n == 0) {
		puts("no benchmarks known (sbctl submit adds them; sbctl index --rebuild ROOT finds them)");
	}
	return fflush(stdout) == 0 ? SB_EXIT_OK : SB_EXIT_RUNTIME;
}
