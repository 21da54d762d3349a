/* Live watch (include/sbench/watch.h, docs/watch.md): the keys, the
 * endpoint file, the CurveZMQ socket and its ZAP handler, the log files read
 * again and again, and the events given once each. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

#include "log/logfiles.h"
#include "watch/watch_private.h"
#include "proto/benchdir.h"
#include "proto/watchfmt.h"
#include "sbench/key.h"
#include "sbench/sbench.h"
#include "proto/recordkeys.h"

#define STATUS_EVERY 2.0        /* seconds between two statuses */
#define STATUS_AFTER_FINISH 0.3 /* ... and this soon after a finish record */
#define SCAN_DEFAULT 0.5
#define RECV_BATCH 1000         /* messages taken off the socket in one go */
#define MSG_MAX (SB_LOG_HEADER_LEN + SB_LOG_BODY_MAX + SB_LOG_TAG_LEN)

struct sb_watch_file {
	off_t size;
	int64_t mtime_ns;
	bool problem_told;
};

struct sb_watch_seen {
	uint8_t *bits;
	size_t nbytes;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- a small string map ---- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static void **map_slot(struct sb_watch_map *m, const char *key, bool *found)
{
	size_t i = (size_t)hash_str(key) & (m->cap - 1);

	while (m->keys[i] != NULL && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & (m->cap - 1);
	*found = m->keys[i] != NULL;
	return &m->vals[i];
}

static int map_grow(struct sb_watch_map *m)
{
	struct sb_watch_map bigger = { 0 };
	size_t i;
	bool found;

	bigger.cap = m->cap ? m->cap * 2 : 64;
	bigger.keys = calloc(bigger.cap, sizeof(char *));
	bigger.vals = calloc(bigger.cap, sizeof(void *));
	if (bigger.keys == NULL || bigger.vals == NULL) {
		free(bigger.keys);
		free(bigger.vals);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		void **slot;

		if (m->keys[i] == NULL)
			continue;
		slot = map_slot(&bigger, m->keys[i], &found);
		bigger.keys[slot - bigger.vals] = m->keys[i];
		*slot = m->vals[i];
	}
	bigger.n = m->n;
	free(m->keys);
	free(m->vals);
	*m = bigger;
	return 0;
}

/* The value of key, made with calloc(size) when absent; NULL when out of
 * memory. */
static void *map_get(struct sb_watch_map *m, const char *key, size_t size)
{
	void **slot;
	bool found;

	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return NULL;
	slot = map_slot(m, key, &found);
	if (!found) {
		char *k = strdup(key);
		void *v = calloc(1, size);

		if (k == NULL || v == NULL) {
			free(k);
			free(v);
			return NULL;
		}
		m->keys[slot - m->vals] = k;
		*slot = v;
		m->n++;
	}
	return *slot;
}

static void map_release(struct sb_watch_map *m, void (*free_val)(void *))
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		if (m->keys[i] == NULL)
			continue;
		free(m->keys[i]);
		if (free_val)
			free_val(m->vals[i]);
		free(m->vals[i]);
	}
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static void free_seen(void *v)
{
	free(((struct sb_watch_seen *)v)->bits);
}

/* ---- records given once ---- */

/* Marks rec seen; 1 when it was new, 0 when given before, -1 out of memory.
 * A log is known by the identity its records carry (so that a record off
 * the wire and the same record read from the file are one); sbctl's own
 * logs (no child), which never come off the wire, by their path. */
static int mark_seen(struct sb_watch *w, const struct sb_log_record *rec, const char *path)
{
	char key[SB_LOG_STR_MAX * 2 + PATH_MAX + 128];
	struct sb_watch_seen *s;
	size_t byte = (size_t)(rec->seq / 8);

	if (rec->id.child < 0 && path != NULL)
		snprintf(key, sizeof(key), "path|%s", path);
	else
		snprintf(key, sizeof(key), "%" PRId64 "|%" PRId64 "|%s|%" PRId64 "|%s|%" PRId64,
			rec->id.child, rec->id.attempt, rec->id.job_id ? rec->id.job_id : "",
			rec->id.restart, rec->id.host ? rec->id.host : "", rec->id.pid);
	s = map_get(&w->seen, key, sizeof(*s));
	if (s == NULL)
		return -1;
	if (rec->seq > (uint64_t)SB_LOG_FILE_MAX)
		return 0; /* no log holds that many records */
	if (byte >= s->nbytes) {
		size_t n = s->nbytes ? s->nbytes : 8;
		uint8_t *p;

		while (n <= byte)
			n *= 2;
		p = realloc(s->bits, n);
		if (p == NULL)
			return -1;
		memset(p + s->nbytes, 0, n - s->nbytes);
		s->bits = p;
		s->nbytes = n;
	}
	if (s->bits[byte] & (1u << (rec->seq % 8)))
		return 0;
	s->bits[byte] |= (uint8_t)(1u << (rec->seq % 8));
	return 1;
}

/* ---- the queue of events ---- */

static struct sb_watch_item *push(struct sb_watch *w, enum sb_watch_kind kind)
{
	struct sb_watch_item *it;

	if (w->qhead + w->qlen == w->qcap) {
		if (w->qhead > 0) {
			memmove(w->q, w->q + w->qhead, w->qlen * sizeof(*w->q));
			w->qhead = 0;
		} else {
			size_t cap = w->qcap ? w->qcap * 2 : 256;
			struct sb_watch_item *q = realloc(w->q, cap * sizeof(*q));

			if (q == NULL)
				return NULL;
			w->q = q;
			w->qcap = cap;
		}
	}
	it = &w->q[w->qhead + w->qlen++];
	memset(it, 0, sizeof(*it));
	it->ev.kind = kind;
	return it;
}

static void item_release(struct sb_watch_item *it)
{
	sb_log_result_destroy(it->own);
	free(it->path);
	free(it->detail);
	memset(it, 0, sizeof(*it));
}

/* The path of the log file a record belongs in (for live records). */
static char *log_path_of(const struct sb_watch *w, const struct sb_log_record *rec)
{
	char buf[PATH_MAX];

	if (rec->id.child < 0 || rec->id.attempt < 0 ||
	    sb_bdir_log(buf, sizeof(buf), sb_bench_dir(w->bench), rec->id.child,
			rec->id.attempt, rec->id.job_id ? rec->id.job_id : "none",
			rec->id.restart < 0 ? 0 : rec->id.restart) < 0)
		return NULL;
	return strdup(buf);
}

/* Queues the records of r that are new (r is owned by the last of them,
 * or freed); -1 out of memory. */
static int push_records(struct sb_watch *w, struct sb_log_result *r, size_t from,
	bool live, const char *path)
{
	struct sb_watch_item *last = NULL;
	size_t i, n = sb_log_result_verified(r);
	int rc;

	for (i = from; i < n; i++) {
		const struct sb_log_record *rec = sb_log_result_record(r, i);
		struct sb_watch_item *it;

		rc = mark_seen(w, rec, path);
		if (rc < 0)
			goto nomem;
		if (rc == 0)
			continue;
		it = push(w, SB_WATCH_RECORD);
		if (it == NULL)
			goto nomem;
		it->ev.rec = rec;
		it->ev.live = live;
		it->path = path ? strdup(path) : log_path_of(w, rec);
		it->ev.path = it->path;
		sb_watch_view_note(w, rec);
		if (rec->type && !strcmp(rec->type, SB_RT_FINISH))
			w->finish_seen = true;
		w->counts.records++;
		if (live)
			w->counts.live++;
		else
			w->counts.from_files++;
		last = it;
	}
	if (last != NULL)
		last->own = r;
	else
		sb_log_result_destroy(r);
	return 0;
nomem:
	if (last != NULL)
		last->own = r;
	else
		sb_log_result_destroy(r);
	return -1;
}

static int push_note(struct sb_watch *w, enum sb_watch_kind kind, enum sb_log_tail tail,
	const char *path, const char *detail, size_t size)
{
	struct sb_watch_item *it = push(w, kind);

	if (it == NULL)
		return -1;
	it->ev.tail = tail;
	it->ev.size = size;
	it->path = path ? strdup(path) : NULL;
	it->detail = detail ? strdup(detail) : NULL;
	it->ev.path = it->path;
	it->ev.detail = it->detail;
	return 0;
}

/* ---- the log files ---- */

/* Reads the files of events/ and submissions/ whose size or mtime moved; -1 out of memory. */
static int scan_files(struct sb_watch *w, struct sb_error *err)
{
	struct sb_logfiles f = { 0 };
	struct sb_log_expect ex = { .id = &w->want };
	double t = now_s();
	char *events;
	size_t i;
	int rc = 0;

	for (i = 0; i < 2; i++) {
		events = sb_logfiles_join(sb_bench_dir(w->bench), i ? "submissions" : "events");
		if (events == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		sb_logfiles_walk(&f, events);
		free(events);
	}
	sb_logfiles_sort(&f);
	for (i = 0; i < f.n && rc == 0; i++) {
		struct sb_watch_file *st = map_get(&w->files, f.v[i].path, sizeof(*st));
		struct sb_log_result *r;
		struct stat sb;
		enum sb_log_tail tail;

		if (st == NULL) {
			rc = -1;
			break;
		}
		if (stat(f.v[i].path, &sb) != 0)
			continue;
		if (sb.st_size == st->size &&
		    (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec == st->mtime_ns)
			continue;
		r = sb_log_read_file(w->verifier, f.v[i].path, &ex, NULL);
		if (r == NULL)
			continue; /* unreadable for now: the next scan tries again */
		st->size = sb.st_size;
		st->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
		tail = sb_log_result_tail(r);
		if (tail != SB_LOG_TAIL_OK && tail != SB_LOG_TAIL_TORN && !st->problem_told) {
			st->problem_told = true;
			if (push_note(w, SB_WATCH_PROBLEM, tail, f.v[i].path,
					sb_log_result_detail(r), 0) < 0)
				rc = -1;
		}
		if (rc == 0)
			rc = push_records(w, r, 0, false, f.v[i].path);
		else
			sb_log_result_destroy(r);
	}
	sb_logfiles_release(&f);
	w->scan_cost = now_s() - t;
	if (rc < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	return 0;
}

/* ---- the wire ---- */

static void zap_reply(struct sb_watch *w, zmq_msg_t *parts, size_t n, bool ok)
{
	const char *code = ok ? "200" : "400", *text = ok ? "OK" : "no client key";

	zmq_send(w->zap, "1.0", 3, ZMQ_SNDMORE);
	zmq_send(w->zap, n > 1 ? zmq_msg_data(&parts[1]) : "", n > 1 ? zmq_msg_size(&parts[1]) : 0,
		ZMQ_SNDMORE);
	zmq_send(w->zap, code, 3, ZMQ_SNDMORE);
	zmq_send(w->zap, text, strlen(text), ZMQ_SNDMORE);
	zmq_send(w->zap, "", 0, ZMQ_SNDMORE);
	zmq_send(w->zap, "", 0, 0);
}

/* One ZAP request (RFC 27): version, request id, domain, address, routing
 * id, mechanism, credentials.  Only CURVE with the benchmark's client key
 * is let in. */
static int handle_zap(struct sb_watch *w)
{
	zmq_msg_t parts[8];
	size_t n = 0, i;
	int more = 1, rc = 0;
	bool ok;

	while (more) {
		size_t len = sizeof(more);
		zmq_msg_t tmp;

		zmq_msg_init(n < 8 ? &parts[n] : &tmp);
		if (zmq_msg_recv(n < 8 ? &parts[n] : &tmp, w->zap, ZMQ_DONTWAIT) < 0) {
			if (n >= 8)
				zmq_msg_close(&tmp);
			else
				zmq_msg_close(&parts[n]);
			break;
		}
		if (n >= 8)
			zmq_msg_close(&tmp);
		else
			n++;
		if (zmq_getsockopt(w->zap, ZMQ_RCVMORE, &more, &len) != 0)
			more = 0;
	}
	if (n == 0)
		return 0;
	ok = n >= 7 && zmq_msg_size(&parts[5]) == 5 && !memcmp(zmq_msg_data(&parts[5]), "CURVE", 5) &&
		zmq_msg_size(&parts[6]) == 32 && !memcmp(zmq_msg_data(&parts[6]), w->client_pub, 32);
	zap_reply(w, parts, n, ok);
	if (!ok) {
		char detail[160];
		size_t al = n > 3 ? zmq_msg_size(&parts[3]) : 0;

		if (al > 64)
			al = 64;
		snprintf(detail, sizeof(detail), "connection from %.*s refused: %s", (int)al,
			n > 3 ? (const char *)zmq_msg_data(&parts[3]) : "",
			n >= 6 && zmq_msg_size(&parts[5]) == 5 &&
			!memcmp(zmq_msg_data(&parts[5]), "CURVE", 5) ?
			"not the benchmark's client key" : "not CurveZMQ");
		w->counts.rejected++;
		rc = push_note(w, SB_WATCH_REJECTED, SB_LOG_TAIL_OK, NULL, detail, 0);
	}
	for (i = 0; i < n; i++)
		zmq_msg_close(&parts[i]);
	return rc;
}

/* One frame off the wire: a record when it verifies, else a bad frame. */
static int handle_frame(struct sb_watch *w, const void *data, size_t len,
	struct sb_error *err)
{
	struct sb_log_expect ex = { .id = &w->want };
	struct sb_log_result *r;

	r = sb_log_read_frame(w->verifier, data, len, &ex, err);
	if (r == NULL)
		return -1;
	if (sb_log_result_verified(r) == 1)
		return push_records(w, r, 0, true, NULL) < 0 ?
			sb_error_set(err, SB_ERR_NOMEM, "out of memory") : 0;
	w->counts.bad_frames++;
	if (push_note(w, SB_WATCH_BAD_FRAME, sb_log_result_tail(r), NULL,
			sb_log_result_detail(r), len) < 0) {
		sb_log_result_destroy(r);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	sb_log_result_destroy(r);
	return 0;
}

static int recv_frames(struct sb_watch *w, struct sb_error *err)
{
	int i;

	for (i = 0; i < RECV_BATCH; i++) {
		zmq_msg_t m;
		int rc;

		zmq_msg_init(&m);
		if (zmq_msg_recv(&m, w->pull, ZMQ_DONTWAIT) < 0) {
			zmq_msg_close(&m);
			return 0;
		}
		rc = handle_frame(w, zmq_msg_data(&m), zmq_msg_size(&m), err);
		zmq_msg_close(&m);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* ---- the status, for until_done and the view ---- */

static int refresh_status(struct sb_watch *w, struct sb_error *err)
{
	struct sb_status_opts o = { 0 };
	struct sb_status *st;

	if (sb_status_compute(w->ctx, w->bench, &o, &st, err) < 0)
		return -1;
	sb_status_destroy(w->status);
	w->status = st;
	if (push_note(w, SB_WATCH_STATUS, SB_LOG_TAIL_OK, NULL, NULL, 0) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (w->opts.until_done && !sb_status_unsettled(st))
		w->final_scan = true;
	return 0;
}

/* ---- keys and the endpoint file ---- */

static void short_host(char *buf, size_t size)
{
	char *dot;

	if (gethostname(buf, size) != 0)
		snprintf(buf, size, "localhost");
	buf[size - 1] = '\0';
	dot = strchr(buf, '.');
	if (dot)
		*dot = '\0';
}

/* keys/watch.key: read, or made (linked into place, so that two watchers
 * starting at once agree on one).  Its public key into w->client_pub. */
static int client_key(struct sb_watch *w, struct sb_error *err)
{
	char path[PATH_MAX], tmp[PATH_MAX + 32], sec[SB_WATCH_Z85_LEN + 1],
		pub[SB_WATCH_Z85_LEN + 1], line[SB_WATCH_Z85_LEN + 2];
	struct stat st;
	int fd, rc;

	if (snprintf(path, sizeof(path), "%s/%s", sb_bench_dir(w->bench), SB_WATCH_KEY) >=
	    (int)sizeof(path))
		return sb_errorf(err, "benchmark directory path too long");
	if (lstat(path, &st) != 0 && errno == ENOENT) {
		if (zmq_curve_keypair(pub, sec) != 0)
			return sb_errorf(err, "cannot make a CurveZMQ key pair: %s",
				zmq_strerror(zmq_errno()));
		snprintf(tmp, sizeof(tmp), "%s/keys/.watch.key.%d", sb_bench_dir(w->bench),
			(int)getpid());
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return sb_errorf(err, "cannot create '%s': %s", tmp, strerror(errno));
		snprintf(line, sizeof(line), "%s\n", sec);
		rc = fchmod(fd, 0600) == 0 && write(fd, line, strlen(line)) == (ssize_t)strlen(line) &&
			fsync(fd) == 0 ? 0 : -1;
		if (close(fd) != 0)
			rc = -1;
		memset(line, 0, sizeof(line));
		memset(sec, 0, sizeof(sec));
		if (rc == 0 && link(tmp, path) != 0 && errno != EEXIST)
			rc = -1;
		unlink(tmp);
		if (rc < 0)
			return sb_errorf(err, "cannot write the watch key '%s': %s", path,
				strerror(errno));
	}
	if (sb_watch_key_read(path, sec, err) < 0)
		return sb_error_prefix(err, "cannot read the watch key");
	rc = zmq_curve_public(pub, sec);
	memset(sec, 0, sizeof(sec));
	if (rc != 0 || zmq_z85_decode(w->client_pub, pub) == NULL)
		return sb_errorf(err, "bad watch key '%s'", path);
	return 0;
}

/* watch/: made 0700 when absent; the endpoint files of this host's dead
 * watchers removed. */
static int watch_dir(struct sb_watch *w, char *dir, size_t size, struct sb_error *err)
{
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (snprintf(dir, size, "%s/%s", sb_bench_dir(w->bench), SB_WATCH_DIR) >= (int)size)
		return sb_errorf(err, "benchmark directory path too long");
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return sb_errorf(err, "cannot create '%s': %s", dir, strerror(errno));
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return sb_errorf(err, "'%s' is not a directory of yours", dir);
	d = opendir(dir);
	if (d == NULL)
		return sb_errorf(err, "cannot read '%s': %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		char host[256], path[PATH_MAX + 300];
		int64_t pid;

		if (sb_watch_name_parse(de->d_name, host, sizeof(host), &pid) < 0 ||
		    strcmp(host, w->host) != 0 || pid == (int64_t)getpid())
			continue;
		if (!sb_watch_pid_gone(pid))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	return 0;
}

static int write_endpoint(struct sb_watch *w, const char *server_pub, struct sb_error *err)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 300], text[SB_WATCH_FILE_MAX];
	struct sb_watch_endpoint ep = { 0 };
	int fd, n, rc;

	if (watch_dir(w, dir, sizeof(dir), err) < 0)
		return -1;
	snprintf(ep.addr, sizeof(ep.addr), "%s", w->address);
	memcpy(ep.server_key, server_pub, SB_WATCH_Z85_LEN);
	n = sb_watch_endpoint_format(&ep, text, sizeof(text));
	if (n < 0 || asprintf(&w->endpoint_path, "%s/%s-%d%s", dir, w->host, (int)getpid(),
			SB_WATCH_SUFFIX) < 0) {
		w->endpoint_path = NULL;
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	snprintf(tmp, sizeof(tmp), "%s/.%s-%d.tmp", dir, w->host, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return sb_errorf(err, "cannot create '%s': %s", tmp, strerror(errno));
	rc = write(fd, text, (size_t)n) == n && fsync(fd) == 0 ? 0 : -1;
	if (close(fd) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, w->endpoint_path) != 0)
		rc = -1;
	if (rc < 0) {
		int e = errno;

		unlink(tmp);
		free(w->endpoint_path);
		w->endpoint_path = NULL;
		return sb_errorf(err, "cannot write the endpoint file in '%s': %s", dir, strerror(e));
	}
	return 0;
}

/* The address of the host's name (libzmq binds interfaces and numbers,
 * not names): IPv4 first. */
static int host_address(char *ip, size_t size, struct sb_error *err)
{
	struct addrinfo hints = { 0 }, *res = NULL, *p;
	char name[256];
	int rc;

	if (gethostname(name, sizeof(name)) != 0)
		snprintf(name, sizeof(name), "localhost");
	name[sizeof(name) - 1] = '\0';
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(name, NULL, &hints, &res);
	if (rc != 0)
		return sb_errorf(err, "cannot resolve this host's name '%s': %s (give an address "
			"with --bind)", name, gai_strerror(rc));
	rc = -1;
	for (p = res; p && rc < 0; p = p->ai_next)
		if (p->ai_family == AF_INET)
			rc = inet_ntop(AF_INET, &((struct sockaddr_in *)p->ai_addr)->sin_addr, ip,
				(socklen_t)size) ? 0 : -1;
	for (p = res; p && rc < 0; p = p->ai_next)
		if (p->ai_family == AF_INET6)
			rc = inet_ntop(AF_INET6, &((struct sockaddr_in6 *)p->ai_addr)->sin6_addr, ip,
				(socklen_t)size) ? 0 : -1;
	freeaddrinfo(res);
	if (rc < 0)
		return sb_errorf(err, "this host's name '%s' has no address (give one with --bind)",
			name);
	return 0;
}

/* Binds the PULL socket with CURVE server on, and the ZAP handler. */
static int bind_socket(struct sb_watch *w, const char *server_sec, struct sb_error *err)
{
	char addr[SB_WATCH_ADDR_MAX], full[200];
	int one = 1, zero = 0;
	int64_t maxmsg = MSG_MAX;
	size_t len = sizeof(w->address);

	w->zctx = zmq_ctx_new();
	if (w->zctx == NULL)
		return sb_errorf(err, "cannot make a ZeroMQ context: %s", zmq_strerror(zmq_errno()));
	zmq_ctx_set(w->zctx, ZMQ_BLOCKY, 0);
	w->zap = zmq_socket(w->zctx, ZMQ_REP);
	if (w->zap == NULL || zmq_setsockopt(w->zap, ZMQ_LINGER, &zero, sizeof(zero)) != 0 ||
	    zmq_bind(w->zap, "inproc://zeromq.zap.01") != 0)
		return sb_errorf(err, "cannot start the ZAP handler: %s", zmq_strerror(zmq_errno()));
	w->pull = zmq_socket(w->zctx, ZMQ_PULL);
	if (w->pull == NULL)
		return sb_errorf(err, "cannot make a socket: %s", zmq_strerror(zmq_errno()));
	if (zmq_setsockopt(w->pull, ZMQ_LINGER, &zero, sizeof(zero)) != 0 ||
	    zmq_setsockopt(w->pull, ZMQ_CURVE_SERVER, &one, sizeof(one)) != 0 ||
	    zmq_setsockopt(w->pull, ZMQ_CURVE_SECRETKEY, server_sec, SB_WATCH_Z85_LEN) != 0 ||
	    zmq_setsockopt(w->pull, ZMQ_ZAP_DOMAIN, "sbench", 6) != 0 ||
	    zmq_setsockopt(w->pull, ZMQ_MAXMSGSIZE, &maxmsg, sizeof(maxmsg)) != 0)
		return sb_errorf(err, "cannot set up CurveZMQ: %s", zmq_strerror(zmq_errno()));
	if (w->opts.bind != NULL) {
		if (strlen(w->opts.bind) >= sizeof(addr))
			return sb_error_set(err, SB_ERR_INPUT, "bind address too long");
		snprintf(addr, sizeof(addr), "%s", w->opts.bind);
	} else {
		char ip[INET6_ADDRSTRLEN];

		if (host_address(ip, sizeof(ip), err) < 0)
			return -1;
		snprintf(addr, sizeof(addr), strchr(ip, ':') ? "tcp://[%s]:*" : "tcp://%s:*", ip);
	}
	if (zmq_bind(w->pull, addr) != 0)
		return sb_error_set(err, w->opts.bind ? SB_ERR_INPUT : SB_ERR_RUNTIME,
			"cannot bind '%s': %s%s", addr, zmq_strerror(zmq_errno()),
			w->opts.bind ? "" : " (give an address with --bind)");
	if (zmq_getsockopt(w->pull, ZMQ_LAST_ENDPOINT, w->address, &len) != 0)
		return sb_errorf(err, "cannot read the bound address: %s", zmq_strerror(zmq_errno()));
	/* a wildcard bind: agents connect to this host by name */
	if (!strncmp(w->address, "tcp://0.0.0.0:", 14)) {
		char port[32];

		snprintf(port, sizeof(port), "%s", w->address + 14);
		if (gethostname(full, sizeof(full)) != 0)
			snprintf(full, sizeof(full), "localhost");
		full[sizeof(full) - 1] = '\0';
		snprintf(w->address, sizeof(w->address), "tcp://%s:%s", full, port);
	}
	return 0;
}

/* ---- the API ---- */

int sb_watch_open(const struct sb_ctx *ctx, const char *bench_arg,
	const struct sb_watch_opts *opts, struct sb_watch **out, struct sb_error *err)
{
	char spub[SB_WATCH_Z85_LEN + 1], ssec[SB_WATCH_Z85_LEN + 1], keypath[PATH_MAX];
	struct sb_watch *w;
	struct sb_key key;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	w->ctx = ctx;
	if (opts)
		w->opts = *opts;
	w->opts.bind = NULL;
	w->t0 = now_s();
	short_host(w->host, sizeof(w->host));
	w->bench = sb_bench_find(ctx, bench_arg, err);
	if (w->bench == NULL)
		goto fail;
	w->nchildren = sb_bench_children(w->bench);
	w->children = calloc(w->nchildren ? w->nchildren : 1, sizeof(*w->children));
	if (w->children == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	w->want.bench = sb_bench_digest(w->bench);
	w->want.child = -1;
	w->want.attempt = -1;
	w->want.restart = -1;
	w->want.pid = -1;
	if (sb_bdir_key(keypath, sizeof(keypath), sb_bench_dir(w->bench)) < 0) {
		sb_errorf(err, "benchmark directory path too long");
		goto fail;
	}
	if (sb_key_load(keypath, &key, err) < 0)
		goto fail;
	w->verifier = sb_log_verifier_create(&key, err);
	sb_key_cleanse(&key);
	if (w->verifier == NULL || client_key(w, err) < 0)
		goto fail;
	if (zmq_curve_keypair(spub, ssec) != 0) {
		sb_errorf(err, "cannot make a CurveZMQ key pair: %s", zmq_strerror(zmq_errno()));
		goto fail;
	}
	w->opts.bind = opts ? opts->bind : NULL;
	if (bind_socket(w, ssec, err) < 0) {
		memset(ssec, 0, sizeof(ssec));
		goto fail;
	}
	w->opts.bind = NULL; /* borrowed for the call only */
	memset(ssec, 0, sizeof(ssec));
	if (write_endpoint(w, spub, err) < 0)
		goto fail;
	*out = w;
	return 0;
fail:
	w->opts.bind = NULL;
	sb_watch_close(w);
	return -1;
}

void sb_watch_close(struct sb_watch *w)
{
	size_t i;

	if (w == NULL)
		return;
	if (w->endpoint_path)
		unlink(w->endpoint_path);
	free(w->endpoint_path);
	if (w->pull)
		zmq_close(w->pull);
	if (w->zap)
		zmq_close(w->zap);
	if (w->zctx)
		zmq_ctx_term(w->zctx);
	item_release(&w->cur);
	for (i = 0; i < w->qlen; i++)
		item_release(&w->q[w->qhead + i]);
	free(w->q);
	map_release(&w->files, NULL);
	map_release(&w->seen, free_seen);
	sb_status_destroy(w->status);
	sb_log_verifier_destroy(w->verifier);
	sb_bench_destroy(w->bench);
	free(w->children);
	free(w);
}

const char *sb_watch_address(const struct sb_watch *w) { return w->address; }
const char *sb_watch_endpoint_path(const struct sb_watch *w) { return w->endpoint_path; }
const struct sb_bench *sb_watch_bench(const struct sb_watch *w) { return w->bench; }
const char *sb_watch_done_reason(const struct sb_watch *w) { return w->done; }
const struct sb_status *sb_watch_status(const struct sb_watch *w) { return w->status; }

void sb_watch_counts(const struct sb_watch *w, struct sb_watch_counts *c)
{
	*c = w->counts;
}

static double scan_interval(const struct sb_watch *w)
{
	double iv = w->opts.scan_interval > 0 ? w->opts.scan_interval : SCAN_DEFAULT;

	return fmax(iv, 20 * w->scan_cost);
}

static bool want_status(const struct sb_watch *w)
{
	return w->opts.until_done || w->opts.track_status;
}

/* Gives the first queued event; the one given before is released (with
 * the result it owns, once nothing later points into it). */
static int pop(struct sb_watch *w, struct sb_watch_event *ev)
{
	item_release(&w->cur);
	w->cur = w->q[w->qhead++];
	w->qlen--;
	if (w->qlen == 0)
		w->qhead = 0;
	*ev = w->cur.ev;
	return SB_WATCH_EVENT;
}

int sb_watch_next(struct sb_watch *w, double wait_s, struct sb_watch_event *ev,
	struct sb_error *err)
{
	double deadline = wait_s < 0 ? INFINITY : now_s() + wait_s;

	memset(ev, 0, sizeof(*ev));
	for (;;) {
		zmq_pollitem_t items[2];
		struct sb_error e = { 0 };
		double now = now_s(), wake;
		long timeout;

		if (w->qlen > 0)
			return pop(w, ev);
		if (w->done)
			return SB_WATCH_DONE;
		if (w->opts.stop && *w->opts.stop) {
			w->done = "stopped";
			continue;
		}
		if (w->opts.timeout > 0 && now - w->t0 >= w->opts.timeout) {
			w->done = "timeout";
			continue;
		}
		if (!w->scanned || now >= w->next_scan || w->final_scan) {
			bool last = w->final_scan;

			if (scan_files(w, err) < 0)
				return -1;
			w->scanned = true;
			w->next_scan = now_s() + scan_interval(w);
			if (last) {
				w->done = "done";
				w->final_scan = false;
			}
			continue;
		}
		if (want_status(w) && (now >= w->next_status ||
		    (w->finish_seen && now >= w->next_status - STATUS_EVERY + STATUS_AFTER_FINISH))) {
			w->finish_seen = false;
			w->next_status = now_s() + STATUS_EVERY;
			if (refresh_status(w, &e) < 0) {
				/* as sbctl wait: a scheduler that does not answer is no verdict */
				if (e.code != SB_ERR_SCHEDULER) {
					if (err)
						*err = e;
					return -1;
				}
				sb_ctx_warn(w->ctx, "%s; retrying in %g s", e.msg, STATUS_EVERY);
			}
			continue;
		}
		wake = fmin(deadline, w->next_scan);
		if (want_status(w))
			wake = fmin(wake, w->next_status);
		if (w->opts.timeout > 0)
			wake = fmin(wake, w->t0 + w->opts.timeout);
		timeout = wake <= now ? 0 : (long)fmin(ceil((wake - now) * 1000), 100.0);
		items[0] = (zmq_pollitem_t){ .socket = w->pull, .events = ZMQ_POLLIN };
		items[1] = (zmq_pollitem_t){ .socket = w->zap, .events = ZMQ_POLLIN };
		if (zmq_poll(items, 2, timeout) < 0 && zmq_errno() != EINTR)
			return sb_errorf(err, "cannot poll the watch socket: %s",
				zmq_strerror(zmq_errno()));
		if ((items[1].revents & ZMQ_POLLIN) && handle_zap(w) < 0)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		if ((items[0].revents & ZMQ_POLLIN) && recv_frames(w, err) < 0)
			return -1;
		if (w->qlen == 0 && now_s() >= deadline)
			return SB_WATCH_IDLE;
	}
}
