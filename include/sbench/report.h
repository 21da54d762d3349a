/* sbench — the HTML report of a benchmark, as `sbctl report` writes it
 * (docs/sbctl-report.md): one self-contained HTML file (inline CSS and
 * SVG, no script, nothing loaded from outside the file) that shows the
 * benchmark's name, digest, provenance and counts per class; a timeline of
 * every child's queue wait and run coloured by class (one mark per child
 * up to SB_REPORT_MARKS_MAX children, bands of counts over time above);
 * for each group and metric of the analysis the succeeded values with
 * their mean and median; every excluded child with its class and reason,
 * grouped by identical reason, with the Slurm stderr tail of up to 20
 * children a group.
 *
 * The same evidence gives the same bytes: nothing in the file depends on
 * the time it was written (the timeline ends at the newest time the
 * evidence holds, not at "now").  The library prints nothing. */
#ifndef SBENCH_REPORT_H
#define SBENCH_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "sbench/analyze.h"
#include "sbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Up to this many children, the timeline draws one mark per child. */
#define SB_REPORT_MARKS_MAX 2000

/* Renders the report of an (an analysis of a status, sb_analyze or
 * sb_analyze_bench: its groups and metrics are the report's) to out; out
 * is flushed, not closed.  -1 with err: SB_ERR_RUNTIME when out could not
 * be written, SB_ERR_NOMEM. */
int sb_report_render(const struct sb_analysis *an, FILE *out, struct sb_error *err);

/* The same into a malloc'd NUL-terminated buffer: on 0, *buf holds *len
 * bytes (len may be NULL), to free with sb_free; on -1, *buf is NULL. */
int sb_report_render_buffer(const struct sb_analysis *an, char **buf, size_t *len,
			    struct sb_error *err);

/* Writes the report to path atomically (a temporary file beside it, then
 * a rename: a reader never sees half a report), mode 0644 less the umask
 * bits the caller's files lose anyway; NULL path: the benchmark
 * directory's report.html.  *written (may be NULL) the malloc'd path
 * written, to free with sb_free.  -1 with err: SB_ERR_RUNTIME when the file
 * cannot be written (the old one, if any, is left as it was), SB_ERR_NOMEM. */
int sb_report_write(const struct sb_analysis *an, const char *path, char **written,
		    struct sb_error *err);

/* A signed bundle of the benchmark (sbctl export) that was verified
 * against it (sb_bundle_verify with the benchmark's directory): the
 * report names it, its SHA-256 and the key that signed it, so that a
 * reader of the report can check the bundle the report stands for. */
struct sb_report_bundle {
	const char *file;      /* the bundle's file name, as the reader knows it */
	char sha256[65];       /* of the bundle file's bytes */
	char keyid[65];        /* sha256 hex of the signer's public key (DER) */
};

struct sb_report_opts {
	const char *path;                     /* as sb_report_write's path */
	const struct sb_report_bundle *bundle; /* NULL: none named */
};

/* sb_report_render and sb_report_write with options (o NULL: none). */
int sb_report_render_opts(const struct sb_analysis *an, const struct sb_report_opts *o, FILE *out,
			  struct sb_error *err);
int sb_report_write_opts(const struct sb_analysis *an, const struct sb_report_opts *o,
			 char **written, struct sb_error *err);

#ifdef __cplusplus
}
#endif

#endif
