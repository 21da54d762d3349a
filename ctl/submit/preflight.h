/* The checks of a spec's command before anything is submitted
 * (docs/sbctl-submit.md, "CHECKS BEFORE SUBMITTING"): the program is
 * found, and every file the command names under {spec_dir} exists, with a
 * did-you-mean for near misses.  sb_submit_check_command
 * (<sbench/submit.h>) runs them; the pieces below are pure enough to be
 * tested alone (tests/ctl/test_preflight.c). */
#ifndef SB_CTL_PREFLIGHT_H
#define SB_CTL_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/suggest.h"

/* Whether argv[i] is code, not a file: the argument after "-c" or "-e"
 * (python3 -c CODE, perl -e CODE, sh -c STRING), or after a shell's
 * option cluster that holds a 'c' (bash -lc STRING, sh -ec STRING). */
bool sb_preflight_is_code(char *const *argv, size_t argc, size_t i);

/* Looks for the program name (no '/') as execvp does in the absolute
 * directories of path (a colon-separated list; empty and relative entries
 * are skipped: they would name the child's run directory, where nothing
 * is yet), every "{spec_dir}" in an entry replaced by spec_dir (may be
 * NULL).  1 and the executable regular file found in buf, else 0. */
int sb_preflight_which(const char *name, const char *path, const char *spec_dir, char *buf,
		       size_t size);

/* The executable of those directories closest to name (sb_suggest's
 * rule), into out; NULL when none is close (or out of memory).  A name
 * that differs from name only in its digits and dots (another version:
 * python3.11 for python3.12) is no near miss. */
const char *sb_preflight_near_program(const char *name, const char *path, const char *spec_dir,
				      char *out, size_t size);

/* For an absolute path that does not exist: the same path with its first
 * missing component replaced by the closest name in the directory above
 * it (sb_suggest's rule), into out; false when no name there is close. */
bool sb_preflight_near_path(const char *path, char *out, size_t size);

#endif
