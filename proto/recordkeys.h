/* The keys of every event record, named once (docs/event-log.md §4, §6).
 * sbagent writes them and the library reads them back with these names
 * only: a key spelt as a string literal anywhere else in agent/, ctl/ or
 * proto/ is refused by tests/layout/check_record_keys.py.  Macros, so that
 * a key is a string literal where one is needed (tables, sizeof).
 *
 * A payload's keys are written in the order of their raw bytes (canonical
 * msgpack): the order of each group below. */
#ifndef SB_PROTO_RECORDKEYS_H
#define SB_PROTO_RECORDKEYS_H

/* ---- the record types (the body's `type`) --------------------------------- */
#define SB_RT_START "start"
#define SB_RT_HEARTBEAT "heartbeat"
#define SB_RT_SIGNAL "signal"
#define SB_RT_FINISH "finish"

/* ---- the body (§4) --------------------------------------------------------- */
#define SB_RK_ARRAY_JOB_ID "array_job_id"
#define SB_RK_ARRAY_TASK_ID "array_task_id"
#define SB_RK_ATTEMPT "attempt"
#define SB_RK_BENCH "bench"
#define SB_RK_CHILD "child"
#define SB_RK_CHILD_DIGEST "child_digest"
#define SB_RK_CLUSTER "cluster"
#define SB_RK_HOST "host"
#define SB_RK_JOB_ID "job_id"
#define SB_RK_PAYLOAD "payload"
#define SB_RK_PID "pid"
#define SB_RK_PREV "prev"
#define SB_RK_RESTART "restart"
#define SB_RK_SEQ "seq"
#define SB_RK_TIME "time"
#define SB_RK_TYPE "type"
#define SB_RK_V "v"

/* ---- start (§6.1) ---------------------------------------------------------- */
#define SB_RK_CHECKPOINT_ERROR "checkpoint_error" /* a checkpoint file unreadable */
#define SB_RK_COMMAND "command"
#define SB_RK_CORES "cores"
#define SB_RK_CPU_MODEL "cpu_model"
#define SB_RK_CPUS_ALLOWED "cpus_allowed"
#define SB_RK_CWD "cwd"
#define SB_RK_HEARTBEAT_S "heartbeat_s"
#define SB_RK_INPUTS "inputs" /* only in benchmark mode with input files */
#define SB_RK_KERNEL "kernel"
#define SB_RK_KEY_ID "key_id"
#define SB_RK_KILL_WAIT_S "kill_wait_s"
#define SB_RK_METRICS_FILE "metrics_file"
#define SB_RK_RESULT_FILES "result_files"
#define SB_RK_RESUMED_FROM "resumed_from" /* with a checkpoint section: the
	digest of the checkpoint files found before the command ran, or nil */

/* ---- heartbeat (§6.2); finish shares the usage and metrics keys ------------ */
#define SB_RK_ELAPSED_S "elapsed_s"
#define SB_RK_MAX_RSS_KB "max_rss_kb"
#define SB_RK_METRICS "metrics"
#define SB_RK_METRICS_LEFT_OFF "metrics_left_off" /* heartbeat: metrics over the
	bound (SB_AGENT_HB_MAX_METRICS) not carried */
#define SB_RK_SYS_S "sys_s"
#define SB_RK_USER_S "user_s"
#define SB_RK_WATCH_DROPPED "watch_dropped"

/* ---- signal (§6.3); finish shares `signal` --------------------------------- */
#define SB_RK_ACTION "action"
#define SB_RK_NAME "name"
#define SB_RK_SIGNAL "signal"

/* ---- finish (§6.4) --------------------------------------------------------- */
#define SB_RK_CHECKPOINT "checkpoint" /* with a checkpoint section: the digest
	of the checkpoint files when the command ended, or nil (and
	checkpoint_error) */
#define SB_RK_CORE_DUMPED "core_dumped"
#define SB_RK_EARLY_STOP "early_stop"
#define SB_RK_ERROR "error"
#define SB_RK_EXIT_CODE "exit_code"
#define SB_RK_INTERRUPTED "interrupted" /* the run ended early: the map below */
#define SB_RK_METRICS_ERROR "metrics_error"
#define SB_RK_RECORDS "records"
#define SB_RK_RESULTS "results"
#define SB_RK_SKIPPED_METRICS "skipped_metrics"
#define SB_RK_SKIPPED_RECORDS "skipped_records"
#define SB_RK_WALL_S "wall_s"

/* one entry of finish's `results`: hashed, missing, not hashed or an error */
#define SB_RK_MISSING "missing"
#define SB_RK_MTIME_NS "mtime_ns"
#define SB_RK_NOT_HASHED "not_hashed"
#define SB_RK_PATH "path"
#define SB_RK_SHA256 "sha256"
#define SB_RK_SIZE "size"
/* (and SB_RK_ERROR) */

/* finish's `interrupted` (agent/checkpoint.h) */
#define SB_RK_BY "by"                     /* "requeue_signal" or "termination" */
#define SB_RK_MAX_RESTARTS "max_restarts"
#define SB_RK_REQUEUE "requeue"           /* true: sbagent requeued the job */
/* (and SB_RK_RESTART, SB_RK_SIGNAL: the signal's name) */
#define SB_RK_WHY_NOT "why_not"           /* no requeue: max_restarts,
	not_requested, not_a_slurm_job, scheduler */

/* finish's `early_stop`: the rule that stopped the command */
#define SB_RK_AFTER_S "after_s"
#define SB_RK_AT_FINISH "at_finish" /* only when it held on the final metrics */
#define SB_RK_DECLARED_AFTER_S "declared_after_s"
#define SB_RK_INDEX "index"
#define SB_RK_METRIC "metric"
#define SB_RK_RULE "rule"
#define SB_RK_VALUE "value"

/* ---- the task map (jobs/a<N>/chunk-<K>.map, docs/benchmark-dir.md) ------
 * Written by the library when it prepares an attempt (bench/jobs.c), read
 * by sbagent in benchmark mode (agent/benchmode.c). */
#define SB_TM_ATTEMPT "attempt"
#define SB_TM_BENCH "bench"
#define SB_TM_CHECKPOINT "checkpoint" /* proto/checkpoint.h */
#define SB_TM_CHUNK "chunk"
#define SB_TM_EARLY_STOP "early_stop" /* rules: proto/earlystop.h */
#define SB_TM_FORMAT "format"
#define SB_TM_HEARTBEAT "heartbeat"
#define SB_TM_KILL_WAIT "kill_wait"
#define SB_TM_METRICS "metrics"
#define SB_TM_RESULTS "results"
#define SB_TM_SPEC_DIR "spec_dir"
#define SB_TM_TASKS "tasks"
/* one task of `tasks` */
#define SB_TM_CHILD "child"
#define SB_TM_COMMAND "command"
#define SB_TM_DIGEST "digest"
#define SB_TM_ENV "env"
#define SB_TM_INPUTS "inputs" /* only when the child has input files: their paths */
#define SB_TM_PARAMS "params"
#define SB_TM_REPEAT "repeat"
#define SB_TM_SHELL "shell"

/* ---- benchmark.msgpack's input files (docs/benchmark-dir.md) -----------
 * Written when a benchmark is created and read when it is opened
 * (bench/bench.c): "inputs" maps each path to these two. */
#define SB_BK_INPUTS "inputs"
#define SB_BK_LISTED "listed"
#define SB_BK_SHA256 "sha256"

/* ---- sbctl's own records of submissions/ (docs/benchmark-dir.md) ----------
 * Written and read by the library's submission records (bench/subm.c); the
 * keys the log view also shows are named here.  They are never the body's
 * keys (attempt, child, job_id), so that a record's JSON view shows both. */
#define SB_SK_ATTEMPT_INDEX "attempt_index"
#define SB_SK_CHILD_INDEX "child_index"
#define SB_SK_CHUNK "chunk"
#define SB_SK_ERROR "error"
#define SB_SK_JOB "job"
#define SB_SK_STATE "state"

#endif
