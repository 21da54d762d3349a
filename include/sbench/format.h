/* sbench — the output formats of every renderer of libsbench.
 *
 * Results that front ends show (a plan, a status, an analysis, the logs of
 * a path, the benchmarks of the local index) come with library renderers,
 * so that every front end emits the same bytes; they all take one of these
 * formats.  A renderer given a format it does not offer fails with
 * SB_ERR_INPUT. */
#ifndef SBENCH_FORMAT_H
#define SBENCH_FORMAT_H

#ifdef __cplusplus
extern "C" {
#endif

enum sb_format {
	SB_FORMAT_TEXT = 0, /* for people: the text sbctl prints by default */
	SB_FORMAT_JSON,     /* the JSON of sbctl's --json */
	SB_FORMAT_CSV,      /* RFC 4180 CSV, the bytes of sbctl's --csv */
};

#ifdef __cplusplus
}
#endif

#endif
