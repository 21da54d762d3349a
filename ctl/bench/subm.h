/* sbctl's own signed records in submissions/ (docs/benchmark-dir.md,
 * "Submission records"): reading all of them, and appending new ones through
 * one log file per sbctl process. */
#ifndef SB_CTL_SUBM_H
#define SB_CTL_SUBM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "bench/bench_private.h"
#include "plan/settings.h"
#include "sbench/key.h"
#include "sbench/log.h"

enum sb_subm_type {
	SB_SUBM_INTENT,
	SB_SUBM_SUBMITTED,
	SB_SUBM_SUBMIT_FAILED,
	SB_SUBM_CANCEL,
	SB_SUBM_OUTCOME,
};

/* The longest job name, state and error text a record keeps (longer
 * ones are cut short there, as they always were). */
#define SB_SUBM_JOB_NAME_MAX 95
#define SB_SUBM_STATE_MAX 63
#define SB_SUBM_ERROR_MAX 255
#define SB_SUBM_JOB_ID_MAX 63

/* One verified record; fields a type does not have are -1 / "".  The
 * strings may be NULL (none) in an entry given to sb_subm_append; in a
 * struct sb_subm they are never NULL and live in its arena. */
struct sb_subm_entry {
	enum sb_subm_type type;
	int64_t time_ns;
	int64_t attempt;
	int64_t chunk;
	int64_t child;          /* outcome */
	bool recovered;         /* submitted: found by name after an unknown outcome */
	const char *job_id;     /* submitted, outcome (cut at SB_SUBM_JOB_ID_MAX) */
	const char *job_name;   /* submitted */
	const char *state;      /* outcome: the scheduler's final State text */
	int exit_code, signal;  /* outcome: ExitCode N:S */
	int64_t end;            /* outcome: End, seconds */
	int64_t start, submit;  /* outcome: Start and Submit, seconds; 0 = none
	                           (v3, for the spans: written only when > 0) */
	const char *error;      /* submit_failed */
};

/* A settings record: the sbatch settings of an attempt outside the
 * identity (ctl/plan/settings.h), when they are not the recorded spec's. */
struct sb_subm_settings {
	int64_t time_ns;
	int64_t attempt;
	struct sb_attempt_settings set;
};

struct sb_subm {
	struct sb_subm_entry *v; /* every entry but the outcomes */
	size_t n, cap;
	size_t files;            /* logs read */
	struct sb_subm_settings *settings;  /* by time */
	size_t nsettings;
	struct sb_reuse *reuses; /* reuse records (ctl/submit/reuse.h), by time */
	size_t nreuses;
	struct sb_arena strings; /* the entries' strings */
};

/* Reads and verifies every log in b's submissions/.  A log that does not
 * verify (other than a torn tail: an sbctl that died while writing) is an
 * error: sbctl will not act on records it cannot trust.
 *
 * The records come in one deterministic order in v, by time, then by every
 * field of the record: it depends on the records only, never on the order
 * of the files in the directory or on their names (a log copied under
 * another name adds records equal to its own, which changes nothing that
 * sb_subm_find or sb_subm_duplicates return).  The outcome entries are
 * not among them (sb_subm_read_outcomes reads those). */
int sb_subm_read(const struct sb_bench *b, const struct sb_key *key, struct sb_subm *out,
		 struct sb_error *err);

/* sb_subm_read with the benchmark's own key (loaded, then cleansed). */
int sb_subm_read_own(const struct sb_bench *b, struct sb_subm *out, struct sb_error *err);

/* What sb_subm_read_outcomes does with the outcome entries: a benchmark of
 * a million children has a million of them, never held as entries. */
struct sb_subm_outcomes {
	/* each one as it is read (its strings valid during the call only), in
	 * the order of the files and their records, not the total order above:
	 * what a caller takes of them must not depend on it.  A return < 0
	 * (with err) stops the reading, which fails. */
	int (*each)(void *arg, const struct sb_subm_entry *e, struct sb_error *err);
	void *arg;
	bool only;     /* only the outcomes: out gets no entry, settings or reuse */
};

/* sb_subm_read, with each outcome entry given to outcomes->each (NULL:
 * skipped, as sb_subm_read does). */
int sb_subm_read_outcomes(const struct sb_bench *b, const struct sb_key *key,
			  const struct sb_subm_outcomes *outcomes, struct sb_subm *out,
			  struct sb_error *err);

void sb_subm_release(struct sb_subm *s);

/* The latest entry of a type for (attempt, chunk) in the order above (so
 * the same whatever the directory order), or NULL.  Entries appended with
 * sb_subm_append count as the latest. */
const struct sb_subm_entry *sb_subm_find(const struct sb_subm *s, enum sb_subm_type type,
					 int64_t attempt, int64_t chunk);

/* The settings attempt is submitted with: the latest settings record of
 * the attempt, else the latest of attempt 0 (the benchmark's own, when a
 * corrected spec replaced the refused one), else NULL (the recorded
 * spec's). */
const struct sb_attempt_settings *sb_subm_settings_of(const struct sb_subm *s, int64_t attempt);

/* Whether any array of attempt (-1: of any attempt) may have been
 * accepted: a submitted record, or an intent that no submit_failed record
 * settled after it. */
bool sb_subm_any_accepted(const struct sb_subm *s, int64_t attempt);

/* A chunk submitted more than once: two or more different job ids recorded
 * `submitted` for the same (attempt, chunk).  However it came about (an
 * sbatch that went on after its sbctl died, a lost submissions log, a
 * broken lock), both arrays run the chunk's children. */
struct sb_subm_dup {
	int64_t attempt;
	int64_t chunk;
	char (*job_ids)[64];     /* the distinct job ids, in numeric order */
	size_t n;                /* >= 2 */
};

/* Lists the duplicated chunks of s: *out gets a malloc'd array of *n
 * entries (NULL and 0 when there is none), sorted by attempt then chunk,
 * each with its job ids in numeric order; the result is a function of the
 * records only, never of the directory order.  The caller frees it with
 * sb_subm_dups_release.  Returns 0, or -1 (out of memory) with nothing
 * allocated. */
int sb_subm_duplicates(const struct sb_subm *s, struct sb_subm_dup **out, size_t *n,
		       struct sb_error *err);
void sb_subm_dups_release(struct sb_subm_dup *d, size_t n);

/* A writer that creates submissions/<time>-<host>-<pid>.log at its first
 * record (so a run that records nothing leaves no file). */
struct sb_subm_writer;

struct sb_subm_writer *sb_subm_writer_create(const struct sb_bench *b, const struct sb_key *key,
					     struct sb_error *err);
/* Outcome records are many and only useful together: sync them once, at
 * close, instead of after each (intents and job ids stay synced one by
 * one: exactly-once submission rests on them). */
void sb_subm_writer_set_batch(struct sb_subm_writer *w);

/* Appends a record; also adds it to s (when not NULL) so that later lookups
 * see it. */
int sb_subm_append(struct sb_subm_writer *w, const struct sb_subm_entry *e, struct sb_subm *s,
		   struct sb_error *err);
/* Outcomes are recorded many to a record, an `outcomes` record of at most
 * this many (a row each, under the columns its `fields` name); they are
 * read as the entries of type outcome they hold, at the record's time.
 * A single `outcome` record (what earlier versions wrote) reads the same. */
#define SB_SUBM_OUTCOMES_PER_RECORD 1000

/* Appends one `outcomes` record of the n entries e (type outcome, 1 to
 * SB_SUBM_OUTCOMES_PER_RECORD of them). */
int sb_subm_append_outcomes(struct sb_subm_writer *w, const struct sb_subm_entry *e, size_t n,
			    struct sb_error *err);

struct sb_reuse;
/* The latest reuse record of child, or NULL. */
const struct sb_reuse *sb_subm_reuse_of(const struct sb_subm *s, int64_t child);

/* Appends a reuse record (synced); not added to any struct sb_subm. */
int sb_subm_append_reuse(struct sb_subm_writer *w, const struct sb_reuse *r, struct sb_error *err);

/* Appends a settings record for attempt (synced), and adds it to s when
 * not NULL. */
int sb_subm_append_settings(struct sb_subm_writer *w, int64_t attempt,
			    const struct sb_attempt_settings *set, struct sb_subm *s,
			    struct sb_error *err);
int sb_subm_writer_close(struct sb_subm_writer *w, struct sb_error *err);

/* Closes w like sb_subm_writer_close, but when one of its appends or the
 * close itself failed (a full disk: ENOSPC, EDQUOT), removes the log w
 * created instead of leaving an empty or partial file behind: for records
 * that are only useful together (reconciled outcomes, recorded again by the
 * next run).  -1 when anything failed: with err when the close failed or
 * the file cannot be removed (a failed append reported its own error). */
int sb_subm_writer_close_all_or_nothing(struct sb_subm_writer *w, struct sb_error *err);

#endif
