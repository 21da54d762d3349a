/* sbench — the umbrella header of libsbench.
 *
 *   #include <sbench/sbench.h>
 *   cc prog.c $(pkg-config --cflags --libs sbench)
 *
 * libsbench plans benchmark specs into deterministic child runs, and reads
 * and verifies the signed event logs that sbagent writes (one record at a
 * time, <sbench/log.h>, or every log of a path rendered, <sbench/logview.h>).  Every function
 * follows the conventions of <sbench/error.h>: 0 / -1 (or a pointer /
 * NULL), an optional last `struct sb_error *` for the message; nothing is
 * printed, nothing exits, nothing is read from the environment.
 *
 * Thread safety: functions that take no shared object are safe to call from
 * several threads at once; an object (a spec, a plan, a log reader) must
 * not be used by two threads at once without a lock of the caller's. */
#ifndef SBENCH_SBENCH_H
#define SBENCH_SBENCH_H

#include "sbench/analyze.h"
#include "sbench/bench.h"
#include "sbench/bundle.h"
#include "sbench/context.h"
#include "sbench/curves.h"
#include "sbench/error.h"
#include "sbench/format.h"
#include "sbench/index.h"
#include "sbench/key.h"
#include "sbench/lane.h"
#include "sbench/log.h"
#include "sbench/logview.h"
#include "sbench/plan.h"
#include "sbench/report.h"
#include "sbench/spec.h"
#include "sbench/status.h"
#include "sbench/watch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library, as "MAJOR.MINOR.PATCH": the number that
 * `sbctl --version` prints.  A static string: never free it. */
const char *sb_version(void);

/* Frees a buffer the library returned to the caller (the char * and char **
 * results: rendered buffers, lists of paths); accepts NULL.  The same as
 * free(3) of the C library libsbench uses, for callers that link another
 * allocator or none (a binding). */
void sb_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
