/* sbench — the formats in which libsbench renders a result. */
#ifndef SBENCH_FORMAT_H
#define SBENCH_FORMAT_H

#ifdef __cplusplus
extern "C" {
#endif

/* What a renderer writes: the text sbctl prints, the document of its
 * --json option, or CSV (where a result has rows). */
enum sb_format {
	SB_FORMAT_TEXT = 0,
	SB_FORMAT_JSON,
	SB_FORMAT_CSV,
};

#ifdef __cplusplus
}
#endif

#endif
