/* A verified finish record read back (bench/finish.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/finish.h"
#include "proto/mpcheck.h"
#include "proto/util.h"
#include "proto/recordkeys.h"

/* The text of a number of the record, or "?" */
static const char *num_text(const msgpack_object *o, char buf[SB_DOUBLE_TEXT_MAX])
{
	if (o == NULL)
		return "?";
	switch (o->type) {
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		snprintf(buf, SB_DOUBLE_TEXT_MAX, "%" PRIu64, o->via.u64);
		return buf;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		snprintf(buf, SB_DOUBLE_TEXT_MAX, "%" PRId64, o->via.i64);
		return buf;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		return sb_fmt_double(o->via.f64, buf);
	default:
		return "?";
	}
}

/* Seconds as a whole number of seconds for a reason ("600"). */
static const char *secs_text(const msgpack_object *o, char buf[SB_DOUBLE_TEXT_MAX])
{
	if (o && (o->type == MSGPACK_OBJECT_FLOAT64 || o->type == MSGPACK_OBJECT_FLOAT32)) {
		snprintf(buf, SB_DOUBLE_TEXT_MAX, "%.0f", o->via.f64);
		return buf;
	}
	return num_text(o, buf);
}

static int str_of(const msgpack_object *o, const char **s, int *n)
{
	if (o == NULL || o->type != MSGPACK_OBJECT_STR || o->via.str.size > 1024)
		return -1;
	*s = o->via.str.ptr;
	*n = (int)o->via.str.size;
	return 0;
}

int sb_early_stop_reason(const msgpack_object *o, char **reason)
{
	char v[SB_DOUBLE_TEXT_MAX], a[SB_DOUBLE_TEXT_MAX];
	const char *metric = "?", *rule = "?";
	const msgpack_object *at;
	int nm = 1, nr = 1;

	*reason = NULL;
	if (o == NULL || o->type == MSGPACK_OBJECT_NIL)
		return 0;
	if (o->type != MSGPACK_OBJECT_MAP)
		return (*reason = strdup("stopped by an early-stop rule")) ? 0 : -1;
	str_of(sb_mp_get(o, SB_RK_METRIC), &metric, &nm);
	str_of(sb_mp_get(o, SB_RK_RULE), &rule, &nr);
	/* the rule as declared; when it held is in the record (after_s) */
	at = sb_mp_get(o, SB_RK_AT_FINISH);
	if (asprintf(reason, "%.*s=%s %.*s after %s s, as declared%s", nm, metric,
		     num_text(sb_mp_get(o, SB_RK_VALUE), v), nr, rule,
		     secs_text(sb_mp_get(o, SB_RK_DECLARED_AFTER_S), a),
		     at && at->type == MSGPACK_OBJECT_BOOLEAN && at->via.boolean
		     ? "; held on the final metrics, after the command exited by itself" : "") < 0) {
		*reason = NULL;
		return -1;
	}
	/* the record's strings go into a one-line reason */
	sb_blank_controls(*reason);
	return 0;
}

static int64_t int_of(const msgpack_object *o, int64_t dflt)
{
	if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX)
		return (int64_t)o->via.u64;
	return dflt;
}

int sb_record_digest(const msgpack_object *pl, const char *key, char out[65])
{
	const msgpack_object *o = sb_mp_get(pl, key);
	uint32_t i;

	out[0] = '\0';
	if (o == NULL || o->type == MSGPACK_OBJECT_NIL)
		return 0;
	if (o->type != MSGPACK_OBJECT_STR || o->via.str.size != 64)
		return -1;
	for (i = 0; i < 64; i++)
		if (!strchr("0123456789abcdef", o->via.str.ptr[i]) || o->via.str.ptr[i] == '\0')
			return -1;
	memcpy(out, o->via.str.ptr, 64);
	out[64] = '\0';
	return 1;
}

int sb_interrupted_reason(const msgpack_object *pl, char **reason)
{
	const msgpack_object *o = sb_mp_get(pl, SB_RK_INTERRUPTED), *req;
	const char *by = "?", *sig = "?", *why = "";
	int nb = 1, ns = 1, nw = 0, rc;
	int64_t restart, max;
	char ck[65];

	*reason = NULL;
	if (o == NULL || o->type != MSGPACK_OBJECT_MAP)
		return 0;
	str_of(sb_mp_get(o, SB_RK_BY), &by, &nb);
	str_of(sb_mp_get(o, SB_RK_SIGNAL), &sig, &ns);
	str_of(sb_mp_get(o, SB_RK_WHY_NOT), &why, &nw);
	restart = int_of(sb_mp_get(o, SB_RK_RESTART), -1);
	max = int_of(sb_mp_get(o, SB_RK_MAX_RESTARTS), -1);
	req = sb_mp_get(o, SB_RK_REQUEUE);
	if (sb_record_digest(pl, SB_RK_CHECKPOINT, ck) <= 0)
		strcpy(ck, "none");
	if (nb == 14 && !memcmp(by, "requeue_signal", 14)) {
		if (req && req->type == MSGPACK_OBJECT_BOOLEAN && req->via.boolean)
			rc = asprintf(reason, "interrupted by SIG%.*s before the time limit at restart %"
				      PRId64 " with checkpoint %.12s, and requeued", ns, sig, restart, ck);
		else if (nw == 12 && !memcmp(why, "max_restarts", 12))
			rc = asprintf(reason, "gave up after %" PRId64 " restarts: interrupted by SIG%.*s "
				      "before the time limit again at restart %" PRId64 " (checkpoint %.12s), "
				      "and checkpoint max_restarts is %" PRId64, restart, ns, sig, restart,
				      ck, max);
		else
			rc = asprintf(reason, "interrupted by SIG%.*s before the time limit at restart %"
				      PRId64 " with checkpoint %.12s; not requeued (%.*s)", ns, sig, restart,
				      ck, nw, why);
	} else {
		rc = asprintf(reason, "interrupted by SIG%.*s at restart %" PRId64 " with checkpoint %.12s",
			      ns, sig, restart, ck);
	}
	if (rc < 0) {
		*reason = NULL;
		return -1;
	}
	sb_blank_controls(*reason);
	return 0;
}

bool sb_metric_value(const msgpack_object *v, struct sb_metric *m)
{
	m->is_int = false;
	m->i = 0;
	if (v->type == MSGPACK_OBJECT_FLOAT64 || v->type == MSGPACK_OBJECT_FLOAT32) {
		m->value = v->via.f64;
	} else if (v->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		m->is_int = v->via.u64 <= INT64_MAX;
		m->i = (int64_t)v->via.u64;
		m->value = (double)v->via.u64;
	} else if (v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
		m->is_int = true;
		m->i = v->via.i64;
		m->value = (double)v->via.i64;
	} else {
		return false;
	}
	return true;
}
