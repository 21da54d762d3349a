/* The HTML report (include/sbench/report.h, docs/sbctl-report.md): the
 * pieces the sections share.  Every section writes to one FILE *; numbers
 * in the SVG are written with a fixed number of decimals, so that the same
 * evidence gives the same bytes. */
#ifndef SB_CTL_REPORT_H
#define SB_CTL_REPORT_H

#include <stdio.h>

#include "ctl/analyze.h"
#include "ctl/status.h"

/* What every section reads. */
struct sb_report {
	FILE *out;
	const struct sb_analysis *an;
	const struct sb_status *st;
	struct sb_child *pc;       /* scratch for a child's parameters */
};

/* s with & < > " ' escaped for HTML text and attribute values. */
void sb_report_esc(FILE *out, const char *s);

/* The CSS class of class c's colour ("c-failed"): fill in SVG, background
 * for the swatches of HTML. */
const char *sb_report_class_css(enum sb_class c);

/* The CSS of the classes' colours (one rule per class). */
void sb_report_class_style(FILE *out);

/* Every parameter of child c as "k=v k=v repeat=N", escaped. */
void sb_report_params(struct sb_report *r, size_t c);

/* A duration in seconds for people: "0 s", "850 ms", "1.5 s", "42 s", "3 min 20 s",
 * "2 h 5 min". */
void sb_report_duration(FILE *out, double s);

/* The sections. */
void sb_report_provenance(struct sb_report *r);
int sb_report_timeline(struct sb_report *r, struct sb_error *err);
int sb_report_plots(struct sb_report *r, struct sb_error *err);

#endif
