/* Live watch, the ZeroMQ side (agent/sender.h, docs/watch.md), in the
 * helper sbagent-watch.  libzmq is loaded with dlopen the first time an
 * endpoint file is found, so that the helper runs (and says why watch is
 * off) where libzmq is not installed. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/sender.h"
#include "agent/watch_feed.h"
#include "proto/watchfmt.h"

/* The few libzmq constants used (zmq.h, stable since libzmq 4.0). */
#define Z_PUSH 8
#define Z_DONTWAIT 1
#define Z_LINGER 17
#define Z_SNDHWM 23
#define Z_CURVE_PUBLICKEY 48
#define Z_CURVE_SECRETKEY 49
#define Z_CURVE_SERVERKEY 50
#define Z_BLOCKY 70
#define Z_IO_THREADS 1

struct zmq_api {
	void *(*ctx_new)(void);
	int (*ctx_set)(void *, int, int);
	int (*ctx_term)(void *);
	void *(*socket)(void *, int);
	int (*setsockopt)(void *, int, const void *, size_t);
	int (*connect)(void *, const char *);
	int (*send)(void *, const void *, size_t, int);
	int (*close)(void *);
	int (*curve_public)(char *, const char *);
};

struct conn {
	char name[NAME_MAX + 1];
	struct sb_watch_endpoint ep;
	void *sock;
	bool seen;
};

struct sb_agent_sender {
	char dir[PATH_MAX];          /* <bench>/watch */
	char key_path[PATH_MAX];     /* <bench>/keys/watch.key */
	char host[256];
	bool active, broken;
	void *lib, *ctx;
	struct zmq_api z;
	char pub[SB_WATCH_Z85_LEN + 1], sec[SB_WATCH_Z85_LEN + 1];
	struct conn c[SB_SENDER_MAX_WATCHERS];
	size_t n;
	uint64_t dropped;
};

struct sb_agent_sender *sb_agent_sender_create(const char *dir, const char *host)
{
	struct sb_agent_sender *w = calloc(1, sizeof(*w));
	int a, b;

	if (w == NULL)
		return NULL;
	a = snprintf(w->dir, sizeof(w->dir), "%s/%s", dir, SB_WATCH_DIR);
	b = snprintf(w->key_path, sizeof(w->key_path), "%s/%s", dir, SB_WATCH_KEY);
	if (a < 0 || (size_t)a >= sizeof(w->dir) || b < 0 || (size_t)b >= sizeof(w->key_path)) {
		free(w);
		return NULL;
	}
	snprintf(w->host, sizeof(w->host), "%s", host);
	return w;
}

/* Told once: the run goes on without live watch. */
static void give_up(struct sb_agent_sender *w, const char *what, const char *why)
{
	w->broken = true;
	sb_agent_watch_warn(what, why);
}

#define SYM(name, field) \
	(*(void **)&w->z.field = dlsym(w->lib, name)) == NULL

/* Loads libzmq and the client key pair; false (and broken) when it cannot. */
static bool load(struct sb_agent_sender *w)
{
	struct sb_error err;

	if (w->ctx != NULL)
		return true;
	if (w->broken)
		return false;
	w->lib = dlopen("libzmq.so.5", RTLD_NOW | RTLD_LOCAL);
	if (w->lib == NULL) {
		give_up(w, "cannot load libzmq.so.5", dlerror());
		return false;
	}
	if (SYM("zmq_ctx_new", ctx_new) || SYM("zmq_ctx_set", ctx_set) ||
	    SYM("zmq_ctx_term", ctx_term) || SYM("zmq_socket", socket) ||
	    SYM("zmq_setsockopt", setsockopt) || SYM("zmq_connect", connect) ||
	    SYM("zmq_send", send) || SYM("zmq_close", close) ||
	    SYM("zmq_curve_public", curve_public)) {
		give_up(w, "libzmq.so.5 lacks a function", dlerror());
		return false;
	}
	if (sb_watch_key_read(w->key_path, w->sec, &err) < 0) {
		give_up(w, "no client key", err.msg);
		return false;
	}
	if (w->z.curve_public(w->pub, w->sec) != 0) {
		give_up(w, "libzmq has no CURVE support", NULL);
		return false;
	}
	w->ctx = w->z.ctx_new();
	if (w->ctx == NULL) {
		give_up(w, "cannot make a ZeroMQ context", strerror(errno));
		return false;
	}
	w->z.ctx_set(w->ctx, Z_BLOCKY, 0);   /* sockets linger 0, term never waits */
	w->z.ctx_set(w->ctx, Z_IO_THREADS, 1);
	return true;
}

/* A PUSH socket to the watcher of c->ep: CURVE client, small queue, no
 * linger.  connect(2) happens in libzmq's I/O thread: nothing here blocks. */
static void *open_conn(struct sb_agent_sender *w, const struct conn *c)
{
	int zero = 0, hwm = SB_AGENT_SENDER_HWM;
	void *s = w->z.socket(w->ctx, Z_PUSH);

	if (s == NULL)
		return NULL;
	if (w->z.setsockopt(s, Z_LINGER, &zero, sizeof(zero)) != 0 ||
	    w->z.setsockopt(s, Z_SNDHWM, &hwm, sizeof(hwm)) != 0 ||
	    w->z.setsockopt(s, Z_CURVE_SERVERKEY, c->ep.server_key, SB_WATCH_Z85_LEN) != 0 ||
	    w->z.setsockopt(s, Z_CURVE_PUBLICKEY, w->pub, SB_WATCH_Z85_LEN) != 0 ||
	    w->z.setsockopt(s, Z_CURVE_SECRETKEY, w->sec, SB_WATCH_Z85_LEN) != 0 ||
	    w->z.connect(s, c->ep.addr) != 0) {
		w->z.close(s);
		return NULL;
	}
	return s;
}

static void close_conn(struct sb_agent_sender *w, size_t i)
{
	if (w->c[i].sock != NULL)
		w->z.close(w->c[i].sock);
	w->c[i] = w->c[--w->n];
}

/* One endpoint file: an existing connection is kept, a new one made. */
static void consider(struct sb_agent_sender *w, const char *name)
{
	char path[PATH_MAX + NAME_MAX + 2], text[SB_WATCH_FILE_MAX + 1];
	struct sb_watch_endpoint ep;
	struct sb_error err;
	size_t i;
	int n;

	if (!sb_watch_name_usable(name, w->host))
		return;
	snprintf(path, sizeof(path), "%s/%s", w->dir, name);
	n = sb_watch_read_private(path, text, sizeof(text), &err);
	if (n < 0 || sb_watch_endpoint_parse(text, (size_t)n, &ep, &err) < 0)
		return; /* being replaced, or not ours: the next heartbeat looks again */
	for (i = 0; i < w->n; i++) {
		if (strcmp(w->c[i].name, name) != 0)
			continue;
		if (!memcmp(&w->c[i].ep, &ep, sizeof(ep))) {
			w->c[i].seen = true;
			return;
		}
		close_conn(w, i); /* the same name now says another endpoint */
		break;
	}
	if (w->n == SB_SENDER_MAX_WATCHERS || strlen(name) >= sizeof(w->c[0].name))
		return;
	w->active = true;
	if (!load(w))
		return;
	memset(&w->c[w->n], 0, sizeof(w->c[0]));
	snprintf(w->c[w->n].name, sizeof(w->c[0].name), "%s", name);
	w->c[w->n].ep = ep;
	w->c[w->n].sock = open_conn(w, &w->c[w->n]);
	if (w->c[w->n].sock == NULL)
		return;
	w->c[w->n].seen = true;
	w->n++;
}

void sb_agent_sender_scan(struct sb_agent_sender *w)
{
	struct dirent *de;
	size_t i;
	DIR *d;

	if (w == NULL || w->broken)
		return;
	for (i = 0; i < w->n; i++)
		w->c[i].seen = false;
	d = opendir(w->dir);
	if (d != NULL) {
		while ((de = readdir(d)) != NULL)
			consider(w, de->d_name);
		closedir(d);
	}
	for (i = w->n; i-- > 0;)
		if (!w->c[i].seen)
			close_conn(w, i);
}

void sb_agent_sender_send(void *arg, const void *frame, size_t len)
{
	struct sb_agent_sender *w = arg;
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->n; i++)
		if (w->z.send(w->c[i].sock, frame, len, Z_DONTWAIT) < 0)
			w->dropped++;
}

bool sb_agent_sender_active(const struct sb_agent_sender *w)
{
	return w != NULL && w->active;
}

uint64_t sb_agent_sender_dropped(const struct sb_agent_sender *w)
{
	return w != NULL ? w->dropped : 0;
}

void sb_agent_sender_destroy(struct sb_agent_sender *w, int linger_ms)
{
	if (w == NULL)
		return;
	while (w->n > 0) {
		if (w->c[w->n - 1].sock != NULL)
			w->z.setsockopt(w->c[w->n - 1].sock, Z_LINGER, &linger_ms, sizeof(linger_ms));
		close_conn(w, w->n - 1);
	}
	if (w->ctx != NULL)
		w->z.ctx_term(w->ctx);
	memset(w->sec, 0, sizeof(w->sec));
	/* libzmq stays loaded: its threads are gone, the process ends soon */
	free(w);
}
