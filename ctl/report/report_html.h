/* What every section of the HTML report writes with: the report being
 * written and the HTML helpers.  Every section writes to one FILE *;
 * numbers in the SVG are written with a fixed number of decimals, so that
 * the same evidence gives the same bytes. */
#ifndef SB_CTL_REPORT_HTML_H
#define SB_CTL_REPORT_HTML_H

#include <stdio.h>

#include "analyze/analyze_private.h"
#include "status/status_private.h"

/* What every section reads. */
struct sb_report {
	FILE *out;
	const struct sb_analysis *an;
	const struct sb_status *st;
	struct sb_child *pc;       /* scratch for a child's parameters */
};

/* s with & < > " ' escaped for HTML text and attribute values. */
void sb_report_esc(FILE *out, const char *s);

/* The colour of class c ("#1b9e77"). */
const char *sb_report_class_colour(enum sb_class c);

/* The CSS class of class c's colour ("c-failed"): fill in SVG, background
 * for the swatches of HTML. */
const char *sb_report_class_css(enum sb_class c);

/* The CSS of the classes' colours (one rule per class). */
void sb_report_class_style(FILE *out);

/* The parameters group g of the analysis is made by, as "k=v k=v"
 * (escaped), or "all children" when it groups by none. */
void sb_report_group_params(struct sb_report *r, size_t g);

/* Every parameter of child c as "k=v k=v repeat=N", escaped. */
void sb_report_params(struct sb_report *r, size_t c);

/* A duration in seconds for people: "0 s", "850 ms", "1.5 s", "42 s", "3 min 20 s",
 * "2 h 5 min". */
void sb_report_duration(FILE *out, double s);

#endif
