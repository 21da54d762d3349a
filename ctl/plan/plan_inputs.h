/* The input files of a plan's children (docs/spec.md, "Inputs"): a table
 * of every file any child reads, with its SHA-256, and the distinct sets of
 * them that children have.  At submit the table is filled from the spec's
 * directory (each file hashed once); a benchmark opened later fills it from
 * its record, so that its plan has the digests it was submitted with,
 * whatever the files hold now. */
#ifndef SB_CTL_PLAN_INPUTS_H
#define SB_CTL_PLAN_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/canon.h"
#include "sbench/error.h"

struct sb_spec;
struct sb_plan;

struct sb_input_file {
	char *rel;              /* relative to the spec's directory, clean */
	uint8_t sha[32];
	uint64_t size;          /* 0 when recorded (a record keeps no sizes) */
	bool listed;            /* given by the spec's `inputs` key */
	bool absent;            /* no input: not a regular file when looked up */
};

struct sb_input_set {
	size_t *files;          /* indices into the table, sorted by rel */
	size_t n;
	uint64_t bytes;
	struct sb_canon canon;  /* "inputs" and the map rel -> bin32, canonical */
};

struct sb_inputs;

/* A table that hashes files under dir as they are looked up (dir is
 * copied), or, with dir NULL, one filled by sb_inputs_record. */
struct sb_inputs *sb_inputs_create(const char *dir);
void sb_inputs_destroy(struct sb_inputs *in);

/* Adds a recorded file.  -1 when out of memory or a bad path. */
int sb_inputs_record(struct sb_inputs *in, const char *rel, const uint8_t sha[32], bool listed);

/* Expands the spec's `inputs` entries under the table's directory (files,
 * directories walked without their dot entries and __pycache__, glob
 * patterns) into listed files; with a recorded table, takes its listed
 * files.  -1 with an error that names the entry (an entry that matches
 * nothing, an unreadable file, more files or bytes than the bounds). */
int sb_inputs_expand(struct sb_inputs *in, const struct sb_spec *spec, struct sb_error *err);

/* rel (len bytes, as the command wrote it after "{spec_dir}/") as an
 * input: 1 with its index, 0 when it is none (not under the directory, or
 * not a regular file at submit), -1 on a read error. */
int sb_inputs_lookup(struct sb_inputs *in, const char *rel, size_t len, size_t *idx,
		     struct sb_error *err);

/* The set of files idx[0..n) (the listed files are added): its id, made
 * when new.  -1 when out of memory, or (message without the child) when it
 * is over the bounds of proto/inputs.h. */
int sb_inputs_set(struct sb_inputs *in, const size_t *idx, size_t n, uint32_t *id,
		  struct sb_error *err);

size_t sb_inputs_file_count(const struct sb_inputs *in);
const struct sb_input_file *sb_inputs_file(const struct sb_inputs *in, size_t i);
size_t sb_inputs_set_count(const struct sb_inputs *in);
const struct sb_input_set *sb_inputs_get_set(const struct sb_inputs *in, uint32_t id);
/* The indices of the files that are inputs (not absent), sorted by path:
 * malloc'd, *n of them; NULL when out of memory. */
size_t *sb_inputs_sorted(const struct sb_inputs *in, size_t *n);
/* The file of rel, or NULL (an absent one too). */
const struct sb_input_file *sb_inputs_find(const struct sb_inputs *in, const char *rel);

/* One file that differs between two tables: its path, and its digest in
 * each (NULL where it is no input). */
typedef int sb_inputs_diff_fn(void *arg, const char *rel, const uint8_t *a, const uint8_t *b);

/* Calls fn for each file whose digest differs between a and b (a file in
 * one only counts), those of a first, each in the table's order; a non-zero
 * return of fn stops and is returned.  Returns the number of calls made, or
 * the stopping value when negative. */
int sb_inputs_compare(const struct sb_inputs *a, const struct sb_inputs *b, sb_inputs_diff_fn *fn,
		      void *arg);

/* Plans spec with this table (a recorded one: the plan of an open
 * benchmark).  The plan borrows the table, which must outlive it. */
struct sb_plan *sb_plan_create_inputs(const struct sb_spec *spec, struct sb_inputs *in,
				      struct sb_error *err);

/* The plan's table (NULL when the spec's children have no inputs), and
 * the set of child i (NULL when it has none). */
const struct sb_inputs *sb_plan_inputs(const struct sb_plan *plan);
const struct sb_input_set *sb_plan_child_inputs(const struct sb_plan *plan, size_t i);

#endif
