/* sbench — the local index: the benchmarks this user has created or
 * found, by name and digest, as `sbctl list` shows them and `sbctl index
 * --rebuild` makes them again (docs/sbctl-list.md, docs/benchmark-dir.md
 * "The local index").
 *
 * The index is an SQLite file whose path the context holds (sb_ctx_index);
 * it is only a cache: everything in it can be rebuilt from benchmark
 * directories.  Both calls fail with SB_ERR_INPUT when the context names no
 * index file.
 *
 * A struct sb_bench_list is a snapshot: it does not change when the index
 * does.  Free it with sb_bench_list_destroy. */
#ifndef SBENCH_INDEX_H
#define SBENCH_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sbench/context.h"
#include "sbench/error.h"
#include "sbench/format.h"
#include "sbench/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sb_bench_list;

/* Every benchmark the index of ctx knows, ordered by creation time then
 * digest, into a new *out.  -1 with err (*out NULL): SB_ERR_INPUT when ctx
 * names no index, SB_ERR_RUNTIME when it cannot be opened or read,
 * SB_ERR_NOMEM. */
int sb_index_list(const struct sb_ctx *ctx, struct sb_bench_list **out, struct sb_error *err);

/* Forgets the benchmarks the index of ctx knows and adds those found in
 * dirs[0..ndirs): each a benchmark directory, or a root holding benchmark
 * directories (one level down).  A directory that looks like a benchmark
 * but cannot be opened (a broken record, a refused mode) is skipped, with
 * a warning through the context's callback ("skipping 'DIR': why").  The
 * benchmarks indexed are in *added (may be NULL; in the order found, a
 * root's entries by name).
 *
 * -1 with err: SB_ERR_NOT_FOUND when one of dirs does not exist (then
 * nothing is changed); SB_ERR_RUNTIME when the index cannot be opened or
 * written, or a root cannot be read: the other directories are still
 * indexed, each failure is told through the warning callback, and *added
 * is filled all the same (free it either way); SB_ERR_INPUT when ctx names
 * no index. */
int sb_index_rebuild(const struct sb_ctx *ctx, const char *const *dirs, size_t ndirs,
		     struct sb_bench_list **added, struct sb_error *err);

/* Frees l; accepts NULL. */
void sb_bench_list_destroy(struct sb_bench_list *l);

/* The benchmarks of l: borrowed strings that live as long as l. */
size_t sb_bench_list_count(const struct sb_bench_list *l);
const char *sb_bench_list_name(const struct sb_bench_list *l, size_t i);
const char *sb_bench_list_digest(const struct sb_bench_list *l, size_t i); /* 64 hex digits */
const char *sb_bench_list_dir(const struct sb_bench_list *l, size_t i);    /* absolute */
int64_t sb_bench_list_created_ns(const struct sb_bench_list *l, size_t i);
/* Whether the directory still holds its benchmark record (as of the list). */
bool sb_bench_list_present(const struct sb_bench_list *l, size_t i);
/* The tag (NULL when none) and the number of children (0 for a benchmark
 * an older sbctl indexed and no command has opened since). */
const char *sb_bench_list_tag(const struct sb_bench_list *l, size_t i);
size_t sb_bench_list_children(const struct sb_bench_list *l, size_t i);
/* The counts of the last status computed of the benchmark (by sbctl
 * status, wait, analyze, rerun or the library), as of counts_ns: known
 * only once one was computed with this index. */
bool sb_bench_list_counts_known(const struct sb_bench_list *l, size_t i);
size_t sb_bench_list_class_count(const struct sb_bench_list *l, size_t i, enum sb_class c);
int64_t sb_bench_list_counts_ns(const struct sb_bench_list *l, size_t i);

/* Removes the benchmark bench names (a path, a name: the latest of that
 * name, or a digest prefix, as sb_bench_find) from the local index of ctx:
 * `sbctl forget`.  Its directory is not touched (sbctl index --rebuild, or
 * any command given its path, adds it again).  *out (free it with
 * sb_bench_list_destroy) lists it, and renders as `sbctl forget` prints
 * it.  -1 with err: SB_ERR_NOT_FOUND when the index does not know it,
 * SB_ERR_INPUT when ctx names no index or the path is no usable benchmark,
 * SB_ERR_RUNTIME when the index cannot be opened or written. */
int sb_index_forget(const struct sb_ctx *ctx, const char *bench, struct sb_bench_list **out,
		    struct sb_error *err);

/* Renders l as `sbctl list` prints it (SB_FORMAT_TEXT: a table, or a line
 * saying that none is known) or `sbctl list --json` (SB_FORMAT_JSON), byte
 * for byte, or for a list from sb_index_forget as `sbctl forget [--json]`
 * prints it; out is flushed, not closed.  -1 with err: SB_ERR_INPUT for
 * another format, SB_ERR_RUNTIME when out could not be written. */
int sb_bench_list_render(const struct sb_bench_list *l, enum sb_format format, FILE *out,
			 struct sb_error *err);

/* The same into a malloc'd NUL-terminated buffer: on 0, *buf holds *len
 * bytes (len may be NULL), to free with sb_free; on -1, *buf is NULL. */
int sb_bench_list_render_buffer(const struct sb_bench_list *l, enum sb_format format,
				char **buf, size_t *len, struct sb_error *err);

#ifdef __cplusplus
}
#endif

#endif
