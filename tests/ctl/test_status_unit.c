/* sb_status_gather on a benchmark directory crafted in a temporary
 * directory (its record, task maps, signed submission records and agent
 * logs), with the scheduler stubbed: chosen squeue and sacct text, no
 * process spawned (PATH names nothing, and the stub counts the calls).
 * Checks the classes the evidence gives: succeeded, failed, running from
 * squeue alone, and incomplete once the settle time has passed. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench/bench_private.h"
#include "base/canon.h"
#include "bench/jobs.h"
#include "base/proc.h"
#include "status/status_private.h"
#include "bench/subm.h"
#include "proto/benchdir.h"
#include "proto/util.h"
#include "sbench/log.h"
#include "sbench/plan.h"
#include "sbench/spec.h"
#include "tests/ctl/benchfix.h"

static const char spec_text[] =
	"name: unit\n"
	"command: [true, \"{x}\"]\n"
	"parameters:\n"
	"  x: [0, 1, 2, 3]\n";

/* array job 1000; task t ran as job 1001 + t */
static const char sacct_text[] =
	"1000_0|1001|sb|COMPLETED|0:0|2026-11-30T13:00:00|2026-11-30T13:00:01|2026-11-30T13:00:05|vm\n"
	"1000_1|1002|sb|FAILED|3:0|2026-11-30T13:00:00|2026-11-30T13:00:01|2026-11-30T13:00:05|vm\n"
	"1000_3|1004|sb|COMPLETED|0:0|2026-11-30T13:00:00|2026-11-30T13:00:01|2026-11-30T13:00:05|vm\n";
static const char squeue_text[] = "1000_2|1003|sb|RUNNING|None\n";

static char root[] = "/tmp/sbtest-status-unit-XXXXXX";
static struct sb_bench *bench;

struct stub {
	int squeue, sacct, other;
	const char *sacct_text; /* NULL: the one above */
};

/* The scheduler: squeue and sacct answer the texts above. */
static int stub_run(void *arg, char *const argv[], const struct sb_proc_opts *o,
		    struct sb_proc_result *res, struct sb_error *err)
{
	struct stub *s = arg;
	const char *text = NULL;

	(void)err;
	memset(res, 0, sizeof(*res));
	if (!strcmp(argv[0], "squeue")) {
		s->squeue++;
		text = squeue_text;
	} else if (!strcmp(argv[0], "sacct")) {
		s->sacct++;
		text = s->sacct_text ? s->sacct_text : sacct_text;
	} else {
		s->other++;
		text = "";
	}
	res->out = strdup("");
	res->err = strdup("");
	assert_non_null(res->out);
	assert_non_null(res->err);
	/* the answer as a process's comes: through the sink (what the
	 * sink makes of it is the caller's, as with sb_proc_run_opts) */
	o->out_sink(o->out_sink_arg, text, strlen(text));
	return 0;
}

/* One agent log of child c, run as job `job`: a start record and, when
 * exit_code >= 0, a finish record. */
static void write_log(struct sb_key *key, int64_t c, const char *job, int exit_code)
{
	char path[PATH_MAX];

	sb_test_write_log(bench, key, c, job, exit_code, 0, path);
}

/* A benchmark of four children, its one chunk submitted as array 1000, and
 * the logs of children 0 (exit 0), 1 (exit 3) and 3 (no finish). */
static int setup(void **state)
{
	struct sb_error err = { 0 };
	struct sb_key key;
	size_t all[4] = { 0, 1, 2, 3 };
	char *dir = NULL;
	int existed = 0;

	(void)state;
	setenv("PATH", "/nonexistent-sbench-test", 1); /* any spawn would fail */
	assert_non_null(mkdtemp(root));
	assert_int_equal(sb_test_bench_create(root, "unit.yaml", spec_text, 1000, 1, &dir, &existed,
					      NULL, &err), 0);
	bench = sb_bench_open(dir, &err);
	free(dir);
	assert_non_null(bench);
	assert_int_equal(sb_bench_plan(bench, &err), 0);
	sb_test_submit_attempt0(bench, all, 4, &key);
	write_log(&key, 0, "1001", 0);
	write_log(&key, 1, "1002", 3);
	write_log(&key, 3, "1004", -1);
	sb_key_cleanse(&key);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sb_bench_destroy(bench);
	return sb_test_rmtree(root);
}

static void compute(struct sb_status *st, struct stub *s, int64_t settle_s)
{
	struct sb_status_sched_ops ops = { stub_run, s };
	struct sb_status_cfg cfg = { .settle_s = settle_s, .sched = &ops };
	struct sb_error err = { 0 };
	const char *text = s->sacct_text;

	memset(st, 0, sizeof(*st));
	memset(s, 0, sizeof(*s));
	s->sacct_text = text;
	if (sb_status_gather(bench, &cfg, st, &err) < 0)
		fail_msg("status: %s", err.msg);
}

static void test_classes(void **state)
{
	struct sb_status st;
	struct stub s = { 0 };
	char rel[SB_LOG_REL_MAX];

	(void)state;
	compute(&st, &s, 10);
	assert_int_equal(s.squeue, 1);
	assert_int_equal(s.sacct, 1);
	assert_int_equal(s.other, 0);
	assert_true(st.consulted);
	assert_int_equal(st.n, 4);
	assert_int_equal(st.children[0].cls, SB_CLASS_SUCCEEDED);
	assert_int_equal(st.children[1].cls, SB_CLASS_FAILED);
	assert_string_equal(st.children[1].reason, "exit 3");
	assert_int_equal(st.children[2].cls, SB_CLASS_RUNNING);
	assert_non_null(strstr(st.children[2].reason, "RUNNING"));
	assert_int_equal(st.children[3].cls, SB_CLASS_INCOMPLETE);
	assert_non_null(strstr(st.children[3].reason, "no finish record"));
	assert_true(st.children[3].latest->log_by_job); /* kept as its job's number */
	assert_string_equal(sb_status_log_rel(st.children[3].latest, 3, rel), "events/0/3.a0.j1004.r0.log");
	assert_int_equal(st.counts[SB_CLASS_SUCCEEDED], 1);
	assert_int_equal(st.counts[SB_CLASS_RUNNING], 1);
	assert_int_equal(st.outcomes_recorded, 0); /* record_outcomes not asked */
	sb_status_release(&st);
}

/* Within the settle time since the job's End, a log without a finish is
 * waited for, not incomplete. */
static void test_settle_time(void **state)
{
	struct sb_status st;
	struct stub s = { 0 };

	(void)state;
	compute(&st, &s, 100000000); /* three years */
	assert_int_equal(st.children[3].cls, SB_CLASS_RUNNING);
	assert_non_null(strstr(st.children[3].reason, "waiting up to"));
	assert_int_equal(st.children[0].cls, SB_CLASS_SUCCEEDED);
	sb_status_release(&st);
}

/* Offline: the stub is not called, the logs alone decide. */
static void test_offline(void **state)
{
	struct sb_status_sched_ops ops = { stub_run, NULL };
	struct stub s = { 0 };
	struct sb_status_cfg cfg = { .settle_s = 10, .offline = true, .sched = &ops };
	struct sb_status st = { 0 };
	struct sb_error err = { 0 };

	(void)state;
	ops.arg = &s;
	assert_int_equal(sb_status_gather(bench, &cfg, &st, &err), 0);
	assert_int_equal(s.squeue + s.sacct + s.other, 0);
	assert_false(st.consulted);
	assert_int_equal(st.children[0].cls, SB_CLASS_SUCCEEDED);
	assert_int_equal(st.children[1].cls, SB_CLASS_FAILED);
	sb_status_release(&st);
}

/* Submission entries keep their strings whole up to the limits a record
 * always had, cut there (not refused), in their own copies. */
static void test_subm_strings(void **state)
{
	struct sb_subm_writer *w;
	struct sb_subm_entry e;
	struct sb_subm s = { 0 }, back = { 0 };
	struct sb_error err = { 0 };
	struct sb_key key;
	char name[300], why[600];
	const struct sb_subm_entry *got;

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memset(why, 'e', sizeof(why) - 1);
	why[sizeof(why) - 1] = '\0';
	assert_int_equal(sb_bench_load_key(bench, &key, &err), 0);
	w = sb_subm_writer_create(bench, &key, &err);
	assert_non_null(w);
	memset(&e, 0, sizeof(e));
	e.type = SB_SUBM_SUBMIT_FAILED;
	e.attempt = 9;
	e.chunk = 0;
	e.child = e.end = -1;
	e.exit_code = e.signal = -1;
	e.job_name = name;
	e.error = why;
	assert_int_equal(sb_subm_append(w, &e, &s, &err), 0);
	name[0] = why[0] = 'X'; /* the entry has its own copies */
	assert_int_equal(sb_subm_writer_close(w, &err), 0);
	got = sb_subm_find(&s, SB_SUBM_SUBMIT_FAILED, 9, 0);
	assert_non_null(got);
	assert_int_equal(strlen(got->job_name), SB_SUBM_JOB_NAME_MAX);
	assert_int_equal(strlen(got->error), SB_SUBM_ERROR_MAX);
	assert_int_equal(got->error[0], 'e');
	assert_string_equal(got->state, "");
	assert_int_equal(sb_subm_read(bench, &key, &back, &err), 0);
	got = sb_subm_find(&back, SB_SUBM_SUBMIT_FAILED, 9, 0);
	assert_non_null(got);
	assert_int_equal(strlen(got->job_name), SB_SUBM_JOB_NAME_MAX);
	assert_int_equal(strlen(got->error), SB_SUBM_ERROR_MAX);
	assert_int_equal(got->job_name[0], 'n');
	assert_string_equal(got->state, "");
	assert_int_equal(back.cap, back.n); /* no slack once read */
	sb_subm_release(&s);
	sb_subm_release(&back);
	sb_key_cleanse(&key);
}

/* The outcome entries a reading gives, with copies of their strings. */
struct kept_outcomes {
	struct sb_subm_entry v[SB_SUBM_OUTCOMES_PER_RECORD + 8];
	size_t n;
	struct sb_arena strings;
};

static int keep_outcome(void *arg, const struct sb_subm_entry *e, struct sb_error *err)
{
	struct kept_outcomes *k = arg;
	struct sb_subm_entry *d = &k->v[k->n++];

	(void)err;
	assert_true(k->n <= SB_SUBM_OUTCOMES_PER_RECORD + 8);
	*d = *e;
	d->job_id = sb_arena_strndup(&k->strings, e->job_id, strlen(e->job_id));
	d->state = sb_arena_strndup(&k->strings, e->state, strlen(e->state));
	return 0;
}

/* Outcomes are written many to an `outcomes` record and read back as the
 * entries they hold, beside a single `outcome` record of an earlier
 * version; a batch of none or of more than a record holds is refused. */
static void test_outcome_records(void **state)
{
	static struct sb_subm_entry batch[SB_SUBM_OUTCOMES_PER_RECORD];
	static char jobs[SB_SUBM_OUTCOMES_PER_RECORD][32];
	struct sb_subm_writer *w;
	struct sb_subm_entry e;
	struct sb_subm back = { 0 };
	static struct kept_outcomes got;
	struct sb_subm_outcomes each = { .each = keep_outcome, .arg = &got, .only = true };
	struct sb_error err = { 0 };
	struct sb_key key;
	size_t i, seen = 0;

	(void)state;
	assert_int_equal(sb_bench_load_key(bench, &key, &err), 0);
	w = sb_subm_writer_create(bench, &key, &err);
	assert_non_null(w);
	memset(&e, 0, sizeof(e));
	e.type = SB_SUBM_OUTCOME;
	e.attempt = 7;
	e.chunk = -1;
	e.child = 0;
	e.end = 1764500000;
	e.exit_code = 3;
	e.signal = 0;
	e.state = "FAILED";
	e.job_id = "1000_0";
	assert_int_equal(sb_subm_append(w, &e, NULL, &err), 0); /* the earlier form */
	for (i = 0; i < SB_SUBM_OUTCOMES_PER_RECORD; i++) {
		batch[i] = e;
		batch[i].child = (int64_t)i + 1;
		batch[i].state = i % 2 ? "COMPLETED" : "CANCELLED by 1001";
		batch[i].exit_code = i % 3 ? 0 : -1;       /* -1: unknown */
		batch[i].signal = i % 3 ? 0 : -1;
		batch[i].end = i % 5 ? 1764500000 + (int64_t)i : -1;
		batch[i].start = i % 7 ? 1764400000 : 0;  /* 0: none */
		batch[i].submit = 0;
		snprintf(jobs[i], sizeof(jobs[i]), "1000_%zu", i + 1);
		batch[i].job_id = jobs[i];
	}
	assert_int_equal(sb_subm_append_outcomes(w, batch, SB_SUBM_OUTCOMES_PER_RECORD, &err), 0);
	assert_int_equal(sb_subm_append_outcomes(w, batch, 2, &err), 0);
	assert_int_equal(sb_subm_append_outcomes(w, batch, 0, &err), -1);
	assert_int_equal(sb_subm_append_outcomes(w, batch, SB_SUBM_OUTCOMES_PER_RECORD + 1, &err), -1);
	assert_int_equal(sb_subm_writer_close(w, &err), 0);

	/* sb_subm_read skips them; read with a function, each comes to it */
	assert_int_equal(sb_subm_read(bench, &key, &back, &err), 0);
	for (i = 0; i < back.n; i++)
		assert_int_not_equal(back.v[i].type, SB_SUBM_OUTCOME);
	sb_subm_release(&back);
	assert_int_equal(sb_subm_read_outcomes(bench, &key, &each, &back, &err), 0);
	assert_int_equal(back.n, 0); /* only the outcomes */
	for (i = 0; i < got.n; i++) {
		const struct sb_subm_entry *g = &got.v[i];
		size_t k;
		assert_int_equal(g->type, SB_SUBM_OUTCOME);
		if (g->attempt != 7)
			continue;
		seen++;
		if (g->child == 0) {
			assert_string_equal(g->state, "FAILED");
			assert_int_equal(g->exit_code, 3);
			assert_string_equal(g->job_id, "1000_0");
			continue;
		}
		k = (size_t)g->child - 1;
		assert_true(k < SB_SUBM_OUTCOMES_PER_RECORD);
		assert_string_equal(g->state, batch[k].state);
		assert_string_equal(g->job_id, batch[k].job_id);
		assert_int_equal(g->exit_code, batch[k].exit_code);
		assert_int_equal(g->signal, batch[k].signal);
		assert_int_equal(g->end, batch[k].end);
		assert_int_equal(g->start, batch[k].start);
		assert_int_equal(g->submit, 0);
		assert_int_equal(g->chunk, -1);
	}
	assert_int_equal(seen, 1 + SB_SUBM_OUTCOMES_PER_RECORD + 2);
	sb_subm_release(&back);
	sb_arena_release(&got.strings);
	sb_key_cleanse(&key);
}

#define T "|2026-11-30T13:00:00|2026-11-30T13:00:01|2026-11-30T13:00:05|vm\n"

/* sacct's rows go to their attempts as they are parsed: a requeued task's
 * last row printed is its row, the ones before it its restart count; a
 * collapsed pending range counts for a task only without a row of its own,
 * whichever comes first; rows of other arrays and tasks are no one's. */
static void test_sacct_rows_streamed(void **state)
{
	static const char text[] =
		"1000_0|1001|sb|COMPLETED|0:0" T
		"1000_1|1002|sb|NODE_FAIL|0:0" T   /* the earlier run of task 1 */
		"1000_1|1012|sb|FAILED|3:0" T      /* its latest */
		"1000_[2-3]|1000|sb|PENDING|0:0|2026-11-30T13:00:00|Unknown|Unknown|None assigned\n"
		"1000_3|1004|sb|COMPLETED|0:0" T   /* its own row, after the range */
		"999_0|5|x|FAILED|1:0" T           /* another array */
		"1000_7|1008|sb|FAILED|1:0" T;     /* no task 7 */
	struct sb_status st;
	struct stub s = { .sacct_text = text };
	const struct sb_attempt_status *a;

	(void)state;
	compute(&st, &s, 10);
	a = st.children[0].latest;
	assert_int_equal(a->sched.row.state, SB_STATE_COMPLETED);
	assert_int_equal(a->sched_restart, 0);
	a = st.children[1].latest;
	assert_int_equal(a->sched.row.state, SB_STATE_FAILED);
	assert_int_equal(a->sched.row.raw_id, 1012);
	assert_int_equal(a->sched.row.exit_code, 3);
	assert_int_equal(a->sched_restart, 1);
	a = st.children[2].latest; /* the range only: squeue's RUNNING is the earlier answer */
	assert_int_equal(a->sched.row.state, SB_STATE_PENDING);
	assert_int_equal(a->sched.row.raw_id, 0);
	assert_int_equal(a->sched_restart, 0);
	a = st.children[3].latest;
	assert_int_equal(a->sched.row.state, SB_STATE_COMPLETED);
	assert_int_equal(a->sched.row.raw_id, 1004);
	assert_int_equal(a->sched_restart, 0);
	for (size_t c = 0; c < st.n; c++)
		assert_false(st.children[c].latest->sched.from_outcome);
	assert_int_equal(st.acct.n, 0); /* none kept */
	sb_status_release(&st);
}

/* Records that name one array job for two chunks (here attempt 1 of
 * children 0 and 1 recorded as array 1000 too): each attempt whose JobID
 * the other has gets the same row, as a lookup per attempt gave. */
static void test_shared_job_id(void **state)
{
	struct sb_status st;
	struct stub s = { 0 };
	struct sb_key key;
	size_t two[2] = { 0, 1 };

	(void)state;
	sb_test_submit_attempt(bench, 1, two, 2, "1000", &key);
	sb_key_cleanse(&key);
	compute(&st, &s, 10);
	for (size_t c = 0; c < 2; c++) {
		const struct sb_child_status *ch = &st.children[c];
		assert_int_equal(ch->nattempts, 2);
		assert_int_equal(ch->latest->attempt, 1);
		assert_true(ch->latest->sched.has_row);
		assert_int_equal(ch->latest->sched.row.raw_id, ch->attempts[0].sched.row.raw_id);
		assert_int_equal(ch->latest->sched.row.state, ch->attempts[0].sched.row.state);
		assert_int_equal(ch->latest->sched_restart, ch->attempts[0].sched_restart);
	}
	assert_int_equal(st.children[0].latest->sched.row.raw_id, 1001);
	sb_status_release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_settle_time),
		cmocka_unit_test(test_offline),
		cmocka_unit_test(test_subm_strings),
		cmocka_unit_test(test_outcome_records),
		cmocka_unit_test(test_sacct_rows_streamed),
		cmocka_unit_test(test_shared_job_id), /* last: it adds an attempt */
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
