/* Payload maps of the agent's records.  Canonical msgpack: every map's keys
 * are written in the order of their raw bytes (checked by
 * tests/agent/test_records.c), integers in their shortest form (msgpack-c
 * does that), floats always float64. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "agent/agent.h"
#include "proto/inputs.h"
#include "proto/recordkeys.h"

static int pk_str(msgpack_packer *pk, const char *s)
{
	size_t n;

	if (s == NULL)
		return msgpack_pack_nil(pk);
	n = strlen(s);
	return msgpack_pack_str(pk, n) | msgpack_pack_str_body(pk, s, n);
}

static int pk_bool(msgpack_packer *pk, int v)
{
	return v ? msgpack_pack_true(pk) : msgpack_pack_false(pk);
}

static int pk_int_or_nil(msgpack_packer *pk, int64_t v)
{
	return v < 0 ? msgpack_pack_nil(pk) : msgpack_pack_int64(pk, v);
}

#define KEY(pk, k) pk_str(pk, k)

const char *sb_agent_signal_name(int sig, char buf[16])
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGHUP, "HUP" }, { SIGINT, "INT" }, { SIGQUIT, "QUIT" },
		{ SIGILL, "ILL" }, { SIGTRAP, "TRAP" }, { SIGABRT, "ABRT" },
		{ SIGBUS, "BUS" }, { SIGFPE, "FPE" }, { SIGKILL, "KILL" },
		{ SIGUSR1, "USR1" }, { SIGSEGV, "SEGV" }, { SIGUSR2, "USR2" },
		{ SIGPIPE, "PIPE" }, { SIGALRM, "ALRM" }, { SIGTERM, "TERM" },
		{ SIGSTKFLT, "STKFLT" }, { SIGCHLD, "CHLD" }, { SIGCONT, "CONT" },
		{ SIGSTOP, "STOP" }, { SIGTSTP, "TSTP" }, { SIGTTIN, "TTIN" },
		{ SIGTTOU, "TTOU" }, { SIGURG, "URG" }, { SIGXCPU, "XCPU" },
		{ SIGXFSZ, "XFSZ" }, { SIGVTALRM, "VTALRM" }, { SIGPROF, "PROF" },
		{ SIGWINCH, "WINCH" }, { SIGIO, "IO" }, { SIGPWR, "PWR" },
		{ SIGSYS, "SYS" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].sig == sig)
			return names[i].name;
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, 16, "RTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, 16, "SIG%d", sig);
	return buf;
}

/* "inputs": each input file of the child, hashed now, as its SHA-256
 * (bin 32), or the reason it could not be ("missing", "not a regular
 * file", "N bytes, over the bound...", "read failed: ..."). */
static int pk_inputs(msgpack_packer *pk, const struct sb_agent_run *run)
{
	uint8_t sha[32];
	uint64_t size;
	size_t i;
	int rc = KEY(pk, SB_RK_INPUTS);

	rc |= msgpack_pack_map(pk, run->ninputs);
	for (i = 0; i < run->ninputs; i++) {
		struct sb_error why = { 0 };
		rc |= pk_str(pk, run->inputs[i]);
		if (sb_inputs_hash(run->spec_dir, run->inputs[i], SB_INPUTS_MAX_BYTES, sha, &size, &why) == 0) {
			rc |= msgpack_pack_bin(pk, sizeof(sha));
			rc |= msgpack_pack_bin_body(pk, sha, sizeof(sha));
		} else {
			rc |= pk_str(pk, why.msg);
		}
	}
	return rc;
}

int sb_agent_payload_start(msgpack_sbuffer *sb, const struct sb_agent_run *run,
	const struct sb_key *key, const struct sb_agent_host *host)
{
	msgpack_packer pk;
	size_t i;
	int rc = 0;

	const struct sb_agent_ckpt *ck = run->checkpoint && run->checkpoint->present ?
		run->resumed_from : NULL;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	rc |= msgpack_pack_map(&pk, (run->ninputs ? 12 : 11) + (ck ? 1 + (ck->error[0] != 0) : 0));
	if (ck && ck->error[0]) {
		rc |= KEY(&pk, SB_RK_CHECKPOINT_ERROR);
		rc |= pk_str(&pk, ck->error);
	}
	rc |= KEY(&pk, SB_RK_COMMAND);
	rc |= msgpack_pack_array(&pk, run->argc);
	for (i = 0; i < run->argc; i++)
		rc |= pk_str(&pk, run->argv[i]);
	rc |= KEY(&pk, SB_RK_CORES);
	rc |= pk_int_or_nil(&pk, host->cores);
	rc |= KEY(&pk, SB_RK_CPU_MODEL);
	rc |= pk_str(&pk, host->cpu_model[0] ? host->cpu_model : NULL);
	rc |= KEY(&pk, SB_RK_CPUS_ALLOWED);
	rc |= pk_int_or_nil(&pk, host->cpus_allowed);
	rc |= KEY(&pk, SB_RK_CWD);
	rc |= pk_str(&pk, run->run_dir);
	rc |= KEY(&pk, SB_RK_HEARTBEAT_S);
	rc |= msgpack_pack_double(&pk, run->heartbeat_s);
	if (run->ninputs)
		rc |= pk_inputs(&pk, run);
	rc |= KEY(&pk, SB_RK_KERNEL);
	rc |= pk_str(&pk, host->kernel[0] ? host->kernel : NULL);
	rc |= KEY(&pk, SB_RK_KEY_ID);
	rc |= pk_str(&pk, key->id);
	rc |= KEY(&pk, SB_RK_KILL_WAIT_S);
	rc |= msgpack_pack_double(&pk, run->kill_wait_s);
	rc |= KEY(&pk, SB_RK_METRICS_FILE);
	rc |= pk_str(&pk, run->metrics);
	rc |= KEY(&pk, SB_RK_RESULT_FILES);
	rc |= msgpack_pack_array(&pk, run->nresults);
	for (i = 0; i < run->nresults; i++)
		rc |= pk_str(&pk, run->results[i]);
	if (ck) {
		rc |= KEY(&pk, SB_RK_RESUMED_FROM);
		rc |= pk_str(&pk, ck->have ? ck->digest : NULL);
	}
	return rc ? -1 : 0;
}

/* The first max numbers of a metrics file as a map (sorted by name:
 * canonical). */
static int pk_metrics_max(msgpack_packer *pk, const struct sb_agent_metrics *m, size_t max)
{
	size_t i, n = m ? (m->n < max ? m->n : max) : 0;
	int rc = msgpack_pack_map(pk, n);

	for (i = 0; i < n; i++) {
		rc |= pk_str(pk, m->v[i].name);
		if (m->v[i].is_float)
			rc |= msgpack_pack_double(pk, m->v[i].f);
		else
			rc |= msgpack_pack_int64(pk, m->v[i].i);
	}
	return rc;
}

static int pk_metrics(msgpack_packer *pk, const struct sb_agent_metrics *m)
{
	return pk_metrics_max(pk, m, SIZE_MAX);
}

int sb_agent_payload_heartbeat(msgpack_sbuffer *sb, double elapsed_s,
	const struct sb_agent_usage *u, const struct sb_agent_metrics *metrics,
	const uint64_t *watch_dropped)
{
	size_t left_off = metrics && metrics->n > SB_AGENT_HB_MAX_METRICS ?
		metrics->n - SB_AGENT_HB_MAX_METRICS : 0;
	msgpack_packer pk;
	int rc = 0;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	rc |= msgpack_pack_map(&pk, 4 + (metrics != NULL) + (left_off != 0) + (watch_dropped != NULL));
	rc |= KEY(&pk, SB_RK_ELAPSED_S);
	rc |= msgpack_pack_double(&pk, elapsed_s);
	rc |= KEY(&pk, SB_RK_MAX_RSS_KB);
	rc |= msgpack_pack_int64(&pk, u->max_rss_kb);
	if (metrics) {
		/* bounded: the first ones by name, and how many were left off */
		rc |= KEY(&pk, SB_RK_METRICS);
		rc |= pk_metrics_max(&pk, metrics, SB_AGENT_HB_MAX_METRICS);
		if (left_off) {
			rc |= KEY(&pk, SB_RK_METRICS_LEFT_OFF);
			rc |= msgpack_pack_uint64(&pk, left_off);
		}
	}
	rc |= KEY(&pk, SB_RK_SYS_S);
	rc |= msgpack_pack_double(&pk, u->sys_s);
	rc |= KEY(&pk, SB_RK_USER_S);
	rc |= msgpack_pack_double(&pk, u->user_s);
	if (watch_dropped) {
		rc |= KEY(&pk, SB_RK_WATCH_DROPPED);
		rc |= msgpack_pack_uint64(&pk, *watch_dropped);
	}
	return rc ? -1 : 0;
}

int sb_agent_payload_signal(msgpack_sbuffer *sb, int sig, const char *action)
{
	msgpack_packer pk;
	char buf[16];
	int rc = 0;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	rc |= msgpack_pack_map(&pk, 3);
	rc |= KEY(&pk, SB_RK_ACTION);
	rc |= pk_str(&pk, action);
	rc |= KEY(&pk, SB_RK_NAME);
	rc |= pk_str(&pk, sb_agent_signal_name(sig, buf));
	rc |= KEY(&pk, SB_RK_SIGNAL);
	rc |= msgpack_pack_int64(&pk, sig);
	return rc ? -1 : 0;
}

static int pk_result(msgpack_packer *pk, const struct sb_agent_result *r)
{
	int rc = 0;

	switch (r->state) {
	case SB_RESULT_HASHED:
		rc |= msgpack_pack_map(pk, 4);
		rc |= KEY(pk, SB_RK_MTIME_NS);
		rc |= msgpack_pack_int64(pk, r->mtime_ns);
		rc |= KEY(pk, SB_RK_PATH);
		rc |= pk_str(pk, r->path);
		rc |= KEY(pk, SB_RK_SHA256);
		rc |= pk_str(pk, r->sha256);
		rc |= KEY(pk, SB_RK_SIZE);
		rc |= msgpack_pack_uint64(pk, r->size);
		break;
	case SB_RESULT_MISSING:
		rc |= msgpack_pack_map(pk, 2);
		rc |= KEY(pk, SB_RK_MISSING);
		rc |= msgpack_pack_true(pk);
		rc |= KEY(pk, SB_RK_PATH);
		rc |= pk_str(pk, r->path);
		break;
	case SB_RESULT_NOT_HASHED:
		rc |= msgpack_pack_map(pk, 4);
		rc |= KEY(pk, SB_RK_MTIME_NS);
		rc |= msgpack_pack_int64(pk, r->mtime_ns);
		rc |= KEY(pk, SB_RK_NOT_HASHED);
		rc |= msgpack_pack_true(pk);
		rc |= KEY(pk, SB_RK_PATH);
		rc |= pk_str(pk, r->path);
		rc |= KEY(pk, SB_RK_SIZE);
		rc |= msgpack_pack_uint64(pk, r->size);
		break;
	case SB_RESULT_ERROR:
		rc |= msgpack_pack_map(pk, 2);
		rc |= KEY(pk, SB_RK_ERROR);
		rc |= pk_str(pk, r->error);
		rc |= KEY(pk, SB_RK_PATH);
		rc |= pk_str(pk, r->path);
		break;
	}
	return rc;
}

int sb_agent_payload_finish(msgpack_sbuffer *sb, const struct sb_agent_finish *f)
{
	const struct sb_agent_outcome *o = f->outcome;
	const struct sb_agent_metrics *m = f->metrics;
	int signaled = WIFSIGNALED(o->status);
	msgpack_packer pk;
	size_t i;
	int rc = 0;

	const struct sb_agent_ckpt *ck = f->checkpoint;
	const struct sb_agent_interrupt *in = f->interrupted && f->interrupted->by ? f->interrupted : NULL;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	rc |= msgpack_pack_map(&pk, 13 + (f->records_skipped != 0) + o->early.fired +
			       (ck ? 1 + (ck->error[0] != 0) : 0) + (in != NULL));
	if (ck) {
		rc |= KEY(&pk, SB_RK_CHECKPOINT);
		rc |= pk_str(&pk, ck->have ? ck->digest : NULL);
		if (ck->error[0]) {
			rc |= KEY(&pk, SB_RK_CHECKPOINT_ERROR);
			rc |= pk_str(&pk, ck->error);
		}
	}
	rc |= KEY(&pk, SB_RK_CORE_DUMPED);
	rc |= pk_bool(&pk, signaled && WCOREDUMP(o->status));
	if (o->early.fired) {
		rc |= KEY(&pk, SB_RK_EARLY_STOP);
		rc |= sb_agent_pack_early_stop(&pk, f->early_stop, &o->early);
	}
	rc |= KEY(&pk, SB_RK_ERROR);
	rc |= pk_str(&pk, f->error);
	rc |= KEY(&pk, SB_RK_EXIT_CODE);
	if (signaled)
		rc |= msgpack_pack_nil(&pk);
	else
		rc |= msgpack_pack_int64(&pk, WEXITSTATUS(o->status));
	if (in) {
		rc |= KEY(&pk, SB_RK_INTERRUPTED);
		rc |= msgpack_pack_map(&pk, 5 + (in->why_not != NULL));
		rc |= KEY(&pk, SB_RK_BY);
		rc |= pk_str(&pk, in->by);
		rc |= KEY(&pk, SB_RK_MAX_RESTARTS);
		rc |= msgpack_pack_int64(&pk, in->max_restarts);
		rc |= KEY(&pk, SB_RK_REQUEUE);
		rc |= pk_bool(&pk, in->requeue);
		rc |= KEY(&pk, SB_RK_RESTART);
		rc |= msgpack_pack_int64(&pk, in->restart);
		rc |= KEY(&pk, SB_RK_SIGNAL);
		rc |= pk_str(&pk, in->signal);
		if (in->why_not) {
			rc |= KEY(&pk, SB_RK_WHY_NOT);
			rc |= pk_str(&pk, in->why_not);
		}
	}
	rc |= KEY(&pk, SB_RK_MAX_RSS_KB);
	rc |= msgpack_pack_int64(&pk, o->usage.max_rss_kb);
	rc |= KEY(&pk, SB_RK_METRICS);
	rc |= pk_metrics(&pk, m);
	rc |= KEY(&pk, SB_RK_METRICS_ERROR);
	rc |= pk_str(&pk, f->metrics_error);
	rc |= KEY(&pk, SB_RK_RECORDS);
	rc |= msgpack_pack_uint64(&pk, f->records);
	rc |= KEY(&pk, SB_RK_RESULTS);
	rc |= msgpack_pack_array(&pk, f->nresults);
	for (i = 0; i < f->nresults; i++)
		rc |= pk_result(&pk, &f->results[i]);
	rc |= KEY(&pk, SB_RK_SIGNAL);
	if (signaled)
		rc |= msgpack_pack_int64(&pk, WTERMSIG(o->status));
	else
		rc |= msgpack_pack_nil(&pk);
	rc |= KEY(&pk, SB_RK_SKIPPED_METRICS);
	rc |= msgpack_pack_array(&pk, m ? m->nskipped : 0);
	for (i = 0; m && i < m->nskipped; i++)
		rc |= pk_str(&pk, m->skipped[i]);
	if (f->records_skipped) {
		rc |= KEY(&pk, SB_RK_SKIPPED_RECORDS);
		rc |= msgpack_pack_uint64(&pk, f->records_skipped);
	}
	rc |= KEY(&pk, SB_RK_SYS_S);
	rc |= msgpack_pack_double(&pk, o->usage.sys_s);
	rc |= KEY(&pk, SB_RK_USER_S);
	rc |= msgpack_pack_double(&pk, o->usage.user_s);
	rc |= KEY(&pk, SB_RK_WALL_S);
	rc |= msgpack_pack_double(&pk, o->wall_s);
	return rc ? -1 : 0;
}
