/* The benchmark directory (docs/benchmark-dir.md): creating it with its
 * immutable record, and opening it again from any later process. */
#ifndef SB_CTL_BENCH_H
#define SB_CTL_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "spec/provenance.h"
#include "proto/benchdir.h"
#include "slurm/slurmcfg.h"
#include "sbench/bench.h"
#include "sbench/error.h"
#include "sbench/key.h"
#include "sbench/plan.h"
#include "sbench/spec.h"

#define SB_BENCH_RECORD "benchmark.msgpack"
#define SB_BENCH_RECORD_JSON "benchmark.json"
#define SB_BENCH_RECORD_MAX ((size_t)2 << 30)

/* An opened benchmark: what its record says, and (after sb_bench_plan) its
 * spec and plan re-made from the recorded spec source. */
struct sb_bench {
	char *dir;                /* absolute path */
	char *name;
	char *tag;                /* NULL when none */
	char digest[65];
	size_t children;
	int64_t max_array_size;
	int64_t kill_wait;
	int64_t created_ns;
	char *spec_source;
	size_t spec_len;
	char *spec_path;
	char *spec_dir;           /* the spec's directory (absolute), for {spec_dir};
				   * NULL in a record of an older sbctl */
	char *lane;               /* the lane it was submitted in (docs/lane.md), or NULL */
	char *prov_mp;            /* the record's provenance map, packed alone (what
				   * the report shows: the record is not read
				   * again), NULL when it has none */
	size_t prov_mp_len;
	struct sb_inputs *inputs; /* the record's input files and their digests at
				   * submit (plan/plan_inputs.h); empty when none */
	struct sb_spec *spec;     /* NULL until sb_bench_plan */
	struct sb_plan *plan;
	struct sb_output_cache *outputs; /* sb_bench_output's: where each child's
					  * output is (bench/output_cache.h) */
};

struct sb_output_cache;
struct sb_inputs;
/* What sb_bench_create needs. */
struct sb_bench_new {
	const char *spec_path;
	const char *spec_source;  /* the spec file's bytes */
	size_t spec_len;
	const struct sb_plan *plan;
	const char *root;         /* created when missing */
	const struct sb_slurm_config *cfg;
	const struct sb_provenance *prov;
	const char *spec_dir;     /* the spec's directory, absolute (NULL: unknown) */
	const char *lane;         /* submit --lane: into the record, or NULL */
};

/* The directory a benchmark gets: <root>/<name>-<digest[:12]>, root made
 * absolute (it need not exist yet).  Returns a malloc'd path, or NULL. */
char *sb_bench_dir_for(const char *root, const char *name, const char *digest,
		       struct sb_error *err);

/* Checks that the benchmark directory dir and its entries belong to the
 * user (docs/benchmark-dir.md, "Ownership and permissions"): dir itself,
 * events/, submissions/ and jobs/ owned by the user without group or other
 * write permission; keys/ owned by the user with no group or other bits at
 * all; keys/hmac.key as the key rules say (a regular file, no link, owned by
 * the user, mode 600).  Entries that do not exist yet pass.  -1 with err
 * naming the entry and what is wrong. */
int sb_bench_check_dir(const char *dir, struct sb_error *err);

/* Creates the benchmark directory with keys/, submissions/, events/, runs/
 * (one directory per child), jobs/, the key, and finally the record and its
 * JSON twin.  When the directory exists with a complete record of the same
 * digest, nothing is changed and *existed is set to 1; a directory left
 * half-made by an interrupted create is completed.  Returns -2 (an input
 * error, like any other refusal of a benchmark) when sb_bench_check_dir
 * refuses the directory, -1 on other errors. */
int sb_bench_create(const struct sb_bench_new *n, char **dir_out, int *existed,
		    struct sb_error *err);

/* Opens the benchmark at dir (or at any path below it): checks ownership
 * and modes (sb_bench_check_dir) and reads the record. */
struct sb_bench *sb_bench_open(const char *path, struct sb_error *err);

/* Loads the recorded spec, plans it and checks that it gives the recorded
 * digest (once: a planned benchmark stays planned).  -1 with SB_ERR_RUNTIME
 * (or SB_ERR_NOMEM) when it does not, and the benchmark is left unplanned. */
int sb_bench_plan(struct sb_bench *b, struct sb_error *err);

void sb_bench_destroy(struct sb_bench *b);

struct sb_ctx;
/* Opens the benchmark a BENCH argument names: a path (the benchmark
 * directory or any path below it), else a name or a digest prefix of at
 * least 4 hex digits known to the local index of ctx (SB_ERR_NOT_FOUND when
 * it knows none, or ctx has no index). */
struct sb_bench *sb_bench_find(const struct sb_ctx *ctx, const char *arg, struct sb_error *err);

struct sb_index_bench;
/* What the local index keeps of b (ctl/bench/index_private.h), its strings borrowed from b. */
void sb_bench_index_entry(const struct sb_bench *b, struct sb_index_bench *out);

/* Loads the benchmark's key (keys/hmac.key); cleanse it after use. */
int sb_bench_load_key(const struct sb_bench *b, struct sb_key *key, struct sb_error *err);

/* dir/rel into buf; -1 when it does not fit. */
int sb_bench_path(const struct sb_bench *b, const char *rel, char *buf, size_t size,
		  struct sb_error *err);

#endif
