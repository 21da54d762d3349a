/* The evidence of a verdict as JSON and back (status/evidence.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/json.h"
#include "status/evidence.h"
#include "status/status_types.h"

void sb_evidence_json_params(struct sb_json *j, const struct sb_status *st)
{
	const struct sb_classify_params *p = &st->params;

	sb_json_obj_begin(j);
	sb_json_key(j, "now_ns");
	sb_json_int(j, p->now_ns);
	sb_json_key(j, "asked_ns");
	sb_json_int(j, p->asked_ns);
	sb_json_key(j, "heartbeat_s");
	sb_json_int(j, p->heartbeat_s);
	sb_json_key(j, "settle_s");
	sb_json_int(j, p->settle_s);
	sb_json_key(j, "storage_lag_s");
	sb_json_int(j, p->storage_lag_s);
	sb_json_key(j, "made_ns");
	sb_json_int(j, p->made_ns);
	sb_json_key(j, "requeue_on");
	sb_json_uint(j, p->requeue_on);
	sb_json_key(j, "kill_wait_s");
	sb_json_int(j, p->kill_wait_s);
	sb_json_key(j, "submitting");
	sb_json_bool(j, st->submitting);
	sb_json_obj_end(j);
}

static void note(struct sb_json *j, const char *key, const char *s)
{
	sb_json_key(j, key);
	sb_json_str(j, s && s[0] ? s : NULL);
}

static void json_log(struct sb_json *j, const struct sb_log_evidence *l)
{
	char num[SB_LOG_JOB_NUM_LEN];

	sb_json_obj_begin(j);
	sb_json_key(j, "present");
	sb_json_bool(j, l->present);
	sb_json_key(j, "start");
	sb_json_bool(j, l->has_start);
	sb_json_key(j, "finish");
	sb_json_bool(j, l->has_finish);
	sb_json_key(j, "usage");
	sb_json_bool(j, l->has_usage);
	sb_json_key(j, "tail");
	sb_json_str(j, sb_log_tail_name(l->tail));
	sb_json_key(j, "signal");
	sb_json_int(j, l->signal);
	sb_json_key(j, "exit_code");
	sb_json_int(j, l->exit_code);
	sb_json_key(j, "job_id");
	sb_json_str(j, sb_log_job_id(l, num));
	note(j, "error", SB_LOG_NOTE(l, error));
	note(j, "not_ok", SB_LOG_NOTE(l, not_ok));
	note(j, "changed", SB_LOG_NOTE(l, changed));
	note(j, "early_stop", SB_LOG_NOTE(l, early_stop));
	note(j, "inputs", SB_LOG_NOTE(l, inputs));
	note(j, "interrupted", SB_LOG_NOTE(l, interrupted));
	sb_json_key(j, "start_ns");
	sb_json_int(j, l->start_ns);
	sb_json_key(j, "finish_ns");
	sb_json_int(j, l->finish_ns);
	sb_json_key(j, "last_life_ns");
	sb_json_int(j, l->last_life_ns);
	sb_json_key(j, "wall_s");
	sb_json_double(j, l->wall_s);
	sb_json_key(j, "cpu_s");
	sb_json_double(j, l->cpu_s);
	sb_json_key(j, "max_rss_kb");
	sb_json_int(j, l->max_rss_kb);
	sb_json_obj_end(j);
}

static void json_sched(struct sb_json *j, const struct sb_sched_evidence *s)
{
	const struct sb_sched_row *r = &s->row;

	sb_json_obj_begin(j);
	sb_json_key(j, "consulted");
	sb_json_bool(j, s->consulted);
	sb_json_key(j, "submitted");
	sb_json_bool(j, s->submitted);
	sb_json_key(j, "cancel_recorded");
	sb_json_bool(j, s->cancel_recorded);
	sb_json_key(j, "has_row");
	sb_json_bool(j, s->has_row);
	sb_json_key(j, "from_outcome");
	sb_json_bool(j, s->from_outcome);
	sb_json_key(j, "outcome_recorded");
	sb_json_bool(j, s->outcome_recorded);
	sb_json_key(j, "submitting");
	sb_json_bool(j, s->submitting);
	sb_json_key(j, "submit_ns");
	sb_json_int(j, s->submit_ns);
	sb_json_key(j, "intent_ns");
	sb_json_int(j, s->intent_ns);
	sb_json_key(j, "row");
	if (!s->has_row) {
		sb_json_null(j);
	} else {
		sb_json_obj_begin(j);
		sb_json_key(j, "array_job");
		sb_json_uint(j, r->array_job);
		sb_json_key(j, "array_task");
		sb_json_int(j, r->array_task);
		sb_json_key(j, "raw_id");
		sb_json_uint(j, r->raw_id);
		sb_json_key(j, "state");
		sb_json_str(j, sb_sched_state_name(r->state));
		sb_json_key(j, "cancelled_by");
		sb_json_int(j, r->cancelled_by);
		sb_json_key(j, "exit_code");
		sb_json_int(j, r->exit_code);
		sb_json_key(j, "exit_signal");
		sb_json_int(j, r->exit_signal);
		sb_json_key(j, "submit");
		sb_json_int(j, r->submit);
		sb_json_key(j, "start");
		sb_json_int(j, r->start);
		sb_json_key(j, "end");
		sb_json_int(j, r->end);
		sb_json_key(j, "name");
		sb_json_str(j, r->name);
		sb_json_key(j, "nodes");
		sb_json_str(j, r->nodes);
		sb_json_key(j, "reason");
		sb_json_str(j, r->reason);
		sb_json_obj_end(j);
	}
	sb_json_obj_end(j);
}

void sb_evidence_json_child(struct sb_json *j, const struct sb_status *st, size_t c)
{
	const struct sb_child_status *ch = &st->children[c];
	const struct sb_attempt_status *a = ch->latest;

	sb_json_obj_begin(j);
	sb_json_key(j, "run");
	sb_json_bool(j, a != NULL);
	if (a != NULL) {
		sb_json_key(j, "override");
		sb_json_str(j, ch->reused ? "reused" : ch->chain_invalid ? "chain" : NULL);
		sb_json_key(j, "log");
		json_log(j, &a->log);
		sb_json_key(j, "sched");
		json_sched(j, &a->sched);
	}
	sb_json_obj_end(j);
}

/* -- reading back ------------------------------------------------------ */

struct rd {
	const struct sb_jv *o;
	const char *what;
	char *why;
	size_t n;
	int bad;
};

static const struct sb_jv *member(struct rd *r, const char *key, enum sb_jv_type type, bool null_ok)
{
	const struct sb_jv *v = sb_jv_get(r->o, key);

	if (r->bad)
		return NULL;
	if (v == NULL || (v->type != type && !(null_ok && v->type == SB_JV_NULL) &&
			  !(type == SB_JV_TRUE && v->type == SB_JV_FALSE))) {
		snprintf(r->why, r->n, "%s: \"%s\" is missing or not a %s", r->what, key,
			 type == SB_JV_TRUE ? "boolean" : type == SB_JV_NUMBER ? "number" :
			 type == SB_JV_STRING ? "string" : "value of its kind");
		r->bad = 1;
		return NULL;
	}
	return v->type == SB_JV_NULL ? NULL : v;
}

static bool rd_bool(struct rd *r, const char *key)
{
	const struct sb_jv *v = member(r, key, SB_JV_TRUE, false);

	return v != NULL && v->type == SB_JV_TRUE;
}

static int64_t rd_int(struct rd *r, const char *key)
{
	const struct sb_jv *v = member(r, key, SB_JV_NUMBER, false);
	char *end;
	long long x;

	if (v == NULL)
		return 0;
	errno = 0;
	x = strtoll(v->num.text, &end, 10);
	if (errno || *end) {
		snprintf(r->why, r->n, "%s: \"%s\" is not an integer", r->what, key);
		r->bad = 1;
		return 0;
	}
	return x;
}

static double rd_double(struct rd *r, const char *key)
{
	const struct sb_jv *v = member(r, key, SB_JV_NUMBER, true);

	return v ? v->num.value : 0.0;
}

/* A string member, NULL for null. */
static const char *rd_str(struct rd *r, const char *key)
{
	const struct sb_jv *v = member(r, key, SB_JV_STRING, true);

	return v ? v->str.s : NULL;
}

int sb_evidence_read_params(const struct sb_jv *o, struct sb_classify_params *p, bool *submitting,
			    char *why, size_t n)
{
	struct rd r = { o, "classify_params", why, n, 0 };

	if (o == NULL || o->type != SB_JV_OBJECT) {
		snprintf(why, n, "classify_params is missing or not an object");
		return -1;
	}
	memset(p, 0, sizeof(*p));
	p->now_ns = rd_int(&r, "now_ns");
	p->asked_ns = rd_int(&r, "asked_ns");
	p->heartbeat_s = rd_int(&r, "heartbeat_s");
	p->settle_s = rd_int(&r, "settle_s");
	p->storage_lag_s = rd_int(&r, "storage_lag_s");
	p->made_ns = rd_int(&r, "made_ns");
	p->requeue_on = (unsigned)rd_int(&r, "requeue_on");
	p->kill_wait_s = rd_int(&r, "kill_wait_s");
	*submitting = rd_bool(&r, "submitting");
	return r.bad ? -1 : 0;
}

/* A note: a copy, NULL for none; -1 when out of memory. */
static int set_note(struct rd *r, struct sb_log_evidence *l, size_t off, const char *key)
{
	const char *s = rd_str(r, key);
	char **slot;

	if (s == NULL || !s[0])
		return 0;
	if (l->notes == NULL && (l->notes = calloc(1, sizeof(*l->notes))) == NULL)
		return -1;
	slot = (char **)(void *)((char *)l->notes + off);
	*slot = strdup(s);
	return *slot ? 0 : -1;
}

static int read_log(struct rd *r, struct sb_log_evidence *l)
{
	const char *tail, *job;
	int t, rc = 0;

	l->present = rd_bool(r, "present");
	l->has_start = rd_bool(r, "start");
	l->has_finish = rd_bool(r, "finish");
	l->has_usage = rd_bool(r, "usage");
	tail = rd_str(r, "tail");
	for (t = SB_LOG_TAIL_OK; t <= SB_LOG_TAIL_ROLLBACK && !r->bad; t++)
		if (tail && !strcmp(tail, sb_log_tail_name((enum sb_log_tail)t)))
			break;
	if (!r->bad && t > SB_LOG_TAIL_ROLLBACK) {
		snprintf(r->why, r->n, "%s: unknown tail \"%s\"", r->what, tail ? tail : "null");
		r->bad = 1;
	}
	l->tail = (enum sb_log_tail)(t > SB_LOG_TAIL_ROLLBACK ? 0 : t);
	l->signal = (int16_t)rd_int(r, "signal");
	l->exit_code = (int)rd_int(r, "exit_code");
	job = rd_str(r, "job_id");
	if (job && sb_log_evidence_set_job_id(l, job) < 0)
		rc = -1;
	if (rc == 0)
		rc = set_note(r, l, offsetof(struct sb_log_notes, error), "error") |
		     set_note(r, l, offsetof(struct sb_log_notes, not_ok), "not_ok") |
		     set_note(r, l, offsetof(struct sb_log_notes, changed), "changed") |
		     set_note(r, l, offsetof(struct sb_log_notes, early_stop), "early_stop") |
		     set_note(r, l, offsetof(struct sb_log_notes, inputs), "inputs") |
		     set_note(r, l, offsetof(struct sb_log_notes, interrupted), "interrupted");
	l->start_ns = rd_int(r, "start_ns");
	l->finish_ns = rd_int(r, "finish_ns");
	l->last_life_ns = rd_int(r, "last_life_ns");
	l->wall_s = rd_double(r, "wall_s");
	l->cpu_s = rd_double(r, "cpu_s");
	l->max_rss_kb = rd_int(r, "max_rss_kb");
	if (rc < 0) {
		snprintf(r->why, r->n, "out of memory");
		r->bad = 1;
	}
	return r->bad ? -1 : 0;
}

static int read_sched(struct rd *r, struct sb_sched_evidence *s)
{
	const struct sb_jv *row;
	const char *state;

	s->consulted = rd_bool(r, "consulted");
	s->submitted = rd_bool(r, "submitted");
	s->cancel_recorded = rd_bool(r, "cancel_recorded");
	s->has_row = rd_bool(r, "has_row");
	s->from_outcome = rd_bool(r, "from_outcome");
	s->outcome_recorded = rd_bool(r, "outcome_recorded");
	s->submitting = rd_bool(r, "submitting");
	s->submit_ns = rd_int(r, "submit_ns");
	s->intent_ns = rd_int(r, "intent_ns");
	row = member(r, "row", SB_JV_OBJECT, true);
	if (r->bad || row == NULL) {
		if (!r->bad && s->has_row) {
			snprintf(r->why, r->n, "%s: has_row but no row", r->what);
			r->bad = 1;
		}
		s->has_row = false;
		return r->bad ? -1 : 0;
	}
	r->o = row;
	r->what = "classify.sched.row";
	s->row.array_job = (uint64_t)rd_int(r, "array_job");
	s->row.array_task = rd_int(r, "array_task");
	s->row.raw_id = (uint64_t)rd_int(r, "raw_id");
	state = rd_str(r, "state");
	s->row.state = state ? sb_sched_state_parse(state, NULL) : SB_STATE_UNKNOWN;
	s->row.cancelled_by = (long)rd_int(r, "cancelled_by");
	s->row.exit_code = (int16_t)rd_int(r, "exit_code");
	s->row.exit_signal = (int16_t)rd_int(r, "exit_signal");
	s->row.submit = rd_int(r, "submit");
	s->row.start = rd_int(r, "start");
	s->row.end = rd_int(r, "end");
	s->row.name = rd_str(r, "name");
	s->row.nodes = rd_str(r, "nodes");
	s->row.reason = rd_str(r, "reason");
	return r->bad ? -1 : 0;
}

int sb_evidence_read_child(const struct sb_jv *o, struct sb_evidence_child *out, char *why, size_t n)
{
	struct rd r = { o, "classify", why, n, 0 };
	const char *ov;

	memset(out, 0, sizeof(*out));
	out->log.exit_code = -1;
	if (o == NULL || o->type != SB_JV_OBJECT) {
		snprintf(why, n, "classify is missing or not an object");
		return -1;
	}
	out->run = rd_bool(&r, "run");
	if (r.bad || !out->run)
		return r.bad ? -1 : 0;
	ov = rd_str(&r, "override");
	if (ov && strcmp(ov, "reused") && strcmp(ov, "chain")) {
		snprintf(why, n, "classify: unknown override \"%s\"", ov);
		return -1;
	}
	out->override = ov;
	r.o = member(&r, "log", SB_JV_OBJECT, false);
	r.what = "classify.log";
	if (r.o == NULL || read_log(&r, &out->log) < 0)
		goto bad;
	r.o = o;
	r.what = "classify";
	r.o = member(&r, "sched", SB_JV_OBJECT, false);
	r.what = "classify.sched";
	if (r.o == NULL || read_sched(&r, &out->sched) < 0)
		goto bad;
	return 0;
bad:
	sb_evidence_child_release(out);
	return -1;
}

void sb_evidence_child_release(struct sb_evidence_child *c)
{
	sb_log_evidence_release(&c->log);
}

void sb_evidence_classify(const struct sb_evidence_child *c, const struct sb_classify_params *p,
			  bool submitting, struct sb_verdict *out)
{
	if (!c->run)
		sb_classify_no_run(p, submitting, out);
	else
		sb_classify(&c->log, &c->sched, p, out);
}
