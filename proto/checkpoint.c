/* The checkpoint section shared by the spec loader, sbctl and sbagent
 * (proto/checkpoint.h). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proto/checkpoint.h"
#include "proto/mpcheck.h"

static const char *const cause_names[SB_REQUEUE_NCAUSES] = { "node_fail", "preempt", "timeout" };
static const unsigned cause_bits[SB_REQUEUE_NCAUSES] = {
	SB_REQUEUE_NODE_FAIL, SB_REQUEUE_PREEMPT, SB_REQUEUE_TIMEOUT,
};

const char *sb_requeue_cause_name(size_t k)
{
	return k < SB_REQUEUE_NCAUSES ? cause_names[k] : NULL;
}

unsigned sb_requeue_cause_bit(size_t k)
{
	return k < SB_REQUEUE_NCAUSES ? cause_bits[k] : 0;
}

int sb_checkpoint_signal(const char *name, const char **canon)
{
	static const struct { const char *name; int sig; } sigs[] = {
		{ "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "TERM", SIGTERM },
		{ "INT", SIGINT }, { "HUP", SIGHUP }, { "QUIT", SIGQUIT },
	};
	size_t i;

	if (name == NULL)
		return 0;
	if (!strncasecmp(name, "SIG", 3))
		name += 3;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcasecmp(name, sigs[i].name)) {
			if (canon)
				*canon = sigs[i].name;
			return sigs[i].sig;
		}
	return 0;
}

static int bad(struct sb_error *err, const char *what)
{
	return sb_errorf(err, "checkpoint of the task map: %s", what);
}

static int get_int(const msgpack_object *m, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
	const msgpack_object *o = sb_mp_get(m, key);

	if (o == NULL || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > (uint64_t)hi ||
	    (int64_t)o->via.u64 < lo)
		return -1;
	*out = (int64_t)o->via.u64;
	return 0;
}

int sb_checkpoint_decode(struct sb_checkpoint_cfg *c, const msgpack_object *o, struct sb_error *err)
{
	const msgpack_object *files, *sig, *causes;
	const char *canon = NULL;
	char name[SB_CKPT_SIGNAL_MAX + 4];
	uint32_t i;
	size_t k;

	memset(c, 0, sizeof(*c));
	if (o == NULL || o->type == MSGPACK_OBJECT_NIL)
		return 0;
	if (o->type != MSGPACK_OBJECT_MAP)
		return bad(err, "not a map");
	files = sb_mp_get(o, SB_CK_FILES);
	if (files == NULL || files->type != MSGPACK_OBJECT_ARRAY || files->via.array.size == 0 ||
	    files->via.array.size > SB_CKPT_MAX_FILES)
		return bad(err, "'files' is not a list of 1 to 64 paths");
	if (get_int(o, SB_CK_BEFORE, 1, SB_CKPT_MAX_BEFORE, &c->before) < 0 ||
	    get_int(o, SB_CK_MAX_RESTARTS, 0, SB_CKPT_MAX_RESTARTS, &c->max_restarts) < 0)
		return bad(err, "'before' or 'max_restarts' is out of range");
	sig = sb_mp_get(o, SB_CK_SIGNAL);
	if (sig == NULL || sig->type != MSGPACK_OBJECT_STR || sig->via.str.size >= sizeof(name))
		return bad(err, "'signal' is not a signal's name");
	memcpy(name, sig->via.str.ptr, sig->via.str.size);
	name[sig->via.str.size] = '\0';
	if ((c->signal = sb_checkpoint_signal(name, &canon)) == 0)
		return bad(err, "'signal' is not one of USR1, USR2, TERM, INT, HUP, QUIT");
	strcpy(c->signal_name, canon);
	causes = sb_mp_get(o, SB_CK_REQUEUE_ON);
	if (causes == NULL || causes->type != MSGPACK_OBJECT_ARRAY)
		return bad(err, "'requeue_on' is not a list");
	for (i = 0; i < causes->via.array.size; i++) {
		const msgpack_object *e = &causes->via.array.ptr[i];
		for (k = 0; k < SB_REQUEUE_NCAUSES; k++)
			if (e->type == MSGPACK_OBJECT_STR && e->via.str.size == strlen(cause_names[k]) &&
			    !memcmp(e->via.str.ptr, cause_names[k], e->via.str.size))
				break;
		if (k == SB_REQUEUE_NCAUSES)
			return bad(err, "'requeue_on' names an unknown cause");
		c->requeue_on |= cause_bits[k];
	}
	c->files = calloc(files->via.array.size, sizeof(*c->files));
	if (c->files == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	for (i = 0; i < files->via.array.size; i++) {
		const msgpack_object *e = &files->via.array.ptr[i];
		if (e->type != MSGPACK_OBJECT_STR || e->via.str.size == 0 || e->via.str.size > SB_CKPT_MAX_PATH ||
		    memchr(e->via.str.ptr, '\0', e->via.str.size) || e->via.str.ptr[0] == '/') {
			sb_checkpoint_release(c);
			return bad(err, "a file of 'files' is not a relative path");
		}
		if ((c->files[i] = strndup(e->via.str.ptr, e->via.str.size)) == NULL) {
			sb_checkpoint_release(c);
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		}
		c->nfiles = i + 1;
	}
	c->present = true;
	return 0;
}

void sb_checkpoint_release(struct sb_checkpoint_cfg *c)
{
	size_t i;

	for (i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	memset(c, 0, sizeof(*c));
}
