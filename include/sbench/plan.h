/* sbench — planning: a spec expanded into its ordered children and their
 * digests (docs/spec.md, "Order" and "Digests").
 *
 * A plan keeps, per child, only its digest and a reference to its point
 * (about 40 bytes a child); commands and env values are resolved on demand
 * into a reusable struct sb_child, so walking 1,000,000 children needs no
 * more memory than the plan itself. */
#ifndef SBENCH_PLAN_H
#define SBENCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sbench/error.h"
#include "sbench/format.h"
#include "sbench/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_DIGEST_LEN 32
#define SB_DIGEST_HEX_LEN 64

struct sb_plan;
struct sb_child;

/* Expands spec: the grid minus exclude, then include, each point repeated;
 * resolves every child and computes every digest.  Returns NULL with err
 * filled ("FILE:LINE:COLUMN: ...") on a duplicate point, no children, a
 * limit exceeded or an unresolvable template (err->code SB_ERR_INPUT;
 * SB_ERR_NOMEM when out of memory).  The plan borrows spec: keep
 * the spec alive until the plan is destroyed. */
struct sb_plan *sb_plan_create(const struct sb_spec *spec, struct sb_error *err);

/* Frees a plan; accepts NULL. */
void sb_plan_destroy(struct sb_plan *plan);

const struct sb_spec *sb_plan_spec(const struct sb_plan *plan);

/* Number of children (>= 1). */
size_t sb_plan_count(const struct sb_plan *plan);

/* Benchmark digest: 32 bytes, and as 64 lowercase hex digits. */
const uint8_t *sb_plan_benchmark_digest(const struct sb_plan *plan);
const char *sb_plan_benchmark_digest_hex(const struct sb_plan *plan);

/* Warnings found while planning (an exclude entry that matches nothing):
 * "FILE:LINE:COLUMN: warning: ..." lines for the caller to show. */
size_t sb_plan_warning_count(const struct sb_plan *plan);
const char *sb_plan_warning(const struct sb_plan *plan, size_t i);

/* The digest of child index (< sb_plan_count), 32 bytes. */
const uint8_t *sb_plan_child_digest(const struct sb_plan *plan, size_t index);

/* A reusable view of one resolved child.  Create once, fill with
 * sb_plan_child for each index wanted; its buffers are reused. */
struct sb_child *sb_child_create(void);
void sb_child_destroy(struct sb_child *child);   /* accepts NULL */

/* Resolves child index of plan into child.  Returns 0, or -1 with err
 * filled (out of memory).  The child's strings stay valid until the next
 * call with the same child, or its destruction. */
int sb_plan_child(const struct sb_plan *plan, size_t index,
		  struct sb_child *child, struct sb_error *err);

/* Like sb_plan_child, but fills only the index, digest, repeat and
 * parameters (no command or env: their accessors return NULL / 0 until the
 * next sb_plan_child).  Cheaper, for listings. */
int sb_plan_child_params(const struct sb_plan *plan, size_t index,
			 struct sb_child *child, struct sb_error *err);

size_t sb_child_index(const struct sb_child *child);
int64_t sb_child_repeat(const struct sb_child *child);
const uint8_t *sb_child_digest(const struct sb_child *child);
const char *sb_child_digest_hex(const struct sb_child *child);

/* The child's parameter values, in the spec's sorted name order
 * (sb_spec_param_name gives the names). */
size_t sb_child_param_count(const struct sb_child *child);
const struct sb_value *sb_child_param(const struct sb_child *child, size_t i);
/* The text of parameter i as substituted into templates (ints in decimal,
 * floats by the float text rule, bools true/false, strings as they are);
 * borrowed from the spec. */
const char *sb_child_param_text(const struct sb_child *child, size_t i);

/* The resolved command: for an argv command, argc strings and a
 * NULL-terminated argv; for a shell command, the resolved string (to run
 * with /bin/sh -c), argc 0 and argv NULL. */
bool sb_child_is_shell(const struct sb_child *child);
size_t sb_child_argc(const struct sb_child *child);
char *const *sb_child_argv(const struct sb_child *child);
const char *sb_child_shell(const struct sb_child *child);

/* Resolved env values, in the order of sb_spec_env_name. */
const char *sb_child_env_value(const struct sb_child *child, size_t i);

/* ---- rendering ------------------------------------------------------ */

/* A plan is rendered as the table of `sbctl plan` (SB_FORMAT_TEXT) or the
 * JSON document of `sbctl plan --json` (SB_FORMAT_JSON, docs/sbctl-plan.md),
 * byte for byte.  The names of earlier versions stay as synonyms. */
#define sb_plan_format sb_format
#define SB_PLAN_TEXT SB_FORMAT_TEXT
#define SB_PLAN_JSON SB_FORMAT_JSON

/* Renders plan to out (flushed, not closed).  Large plans are formatted by
 * several threads and written in order, so the bytes are those of one
 * writer.  -1 with err: SB_ERR_RUNTIME when out could not be written (what
 * was written may be incomplete), SB_ERR_NOMEM, SB_ERR_INPUT for a format
 * other than text and JSON. */
int sb_plan_render(const struct sb_plan *plan, enum sb_format format, FILE *out,
		   struct sb_error *err);

/* The same into a malloc'd NUL-terminated buffer: on 0, *buf holds *len
 * bytes (len may be NULL) and the caller frees it with sb_free (or
 * free(3)); on -1,
 * *buf is NULL. */
int sb_plan_render_buffer(const struct sb_plan *plan, enum sb_format format, char **buf,
			  size_t *len, struct sb_error *err);

#ifdef __cplusplus
}
#endif

#endif
