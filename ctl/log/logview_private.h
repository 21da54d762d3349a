/* Views of event logs (docs/sbctl-log.md "OUTPUT"): a record as one JSON
 * line or one human line, a file's records and its summary, the total.
 * The renderers of sb_logview_verify (include/sbench/logview.h). */
#ifndef SB_CTL_LOGVIEW_H
#define SB_CTL_LOGVIEW_H

#include <stdio.h>

#include <msgpack.h>

#include "proto/json.h"
#include "sbench/log.h"
#include "sbench/logview.h"

/* Writes a msgpack object as JSON: map -> object (non-string keys become
 * their JSON text), array -> array, str -> string, bin and ext -> lowercase
 * hex string, integers, floats (shortest text), nil -> null. */
void sb_logview_json_value(struct sb_json *j, const msgpack_object *o);

/* Writes one record as a JSON object: "format": 1, the envelope (seq, type,
 * time, bench, child, child_digest, attempt, cluster, job_id, array_job_id,
 * array_task_id, restart, host, pid, verified, tag, offset), "path" when
 * path is not NULL, then the payload's fields flattened into the object
 * (a payload key equal to an envelope key is left out). */
void sb_logview_json_record(struct sb_json *j, const struct sb_log_record *rec,
	const char *path);

/* Writes one line: seq, time, type, the payload facts that matter for the
 * type (command, exit status, signal...), and UNVERIFIED when not verified. */
void sb_logview_human_record(FILE *out, const struct sb_log_record *rec);

/* Reads and verifies the log at path (sb_log_read_file_each: its records
 * are written as they are read, never all held) and writes its records and
 * its summary in fmt to out (NULL: writes nothing).  many: the file is one
 * of a directory's ("== PATH" before its records, "path" in its JSON
 * records, a JSON summary line naming it); else the single file's JSON
 * summary ("files": 1).  Returns the result (counts, tail, head; no
 * records), or NULL with err when the file cannot be read: then nothing
 * was written, unless memory ran out part way. */
struct sb_log_result *sb_logview_read_file(FILE *out, enum sb_format fmt, const char *path,
	bool many, struct sb_log_verifier *v, const struct sb_log_expect *expect,
	struct sb_error *err);

/* Writes the last line of a directory's listing: the totals. */
void sb_logview_total(FILE *out, enum sb_format fmt,
	const struct sb_logview_summary *sum);

#endif
