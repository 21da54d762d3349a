/* The HTML report (include/sbench/report.h, docs/sbctl-report.md): its
 * sections, each in a file of its own, which report.c puts together. */
#ifndef SB_CTL_REPORT_H
#define SB_CTL_REPORT_H

#include <stdio.h>

#include "report/report_html.h"

/* The sections. */
void sb_report_provenance(struct sb_report *r);
int sb_report_timeline(struct sb_report *r, struct sb_error *err);
int sb_report_plots(struct sb_report *r, struct sb_error *err);
void sb_report_best(struct sb_report *r);   /* report_winner.c */
void sb_report_groups(struct sb_report *r);
int sb_report_param_plots(struct sb_report *r, struct sb_error *err); /* report_params.c */
int sb_report_curves(struct sb_report *r, struct sb_error *err);      /* report_curves.c */

#endif
