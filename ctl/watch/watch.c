/* Live watch (include/sbench/watch.h, docs/watch.md): the keys, the
 * endpoint file, the CurveZMQ socket and its ZAP handler, the log files read
 * again and again, and the events given once each.
 *
 * Streaming: the log files are read in passes (struct sb_watch_scan), a
 * shard of events/ at a time, and one file's new records are given, one a
 * call, before the next file is read; nothing is held per record.  The wire
 * is looked at every POLL_EVERY seconds while files are read, and what it
 * brought (live records, refused frames and connections) is given before
 * any record of a file.  A live record whose log has records before it not
 * yet given is held while they are read from its file and given, so that a
 * log's records are given in order (docs/sbctl-watch.md, "ORDER"); a
 * record is marked given only when it is given.  A log file over
 * SB_WATCH_BIG bytes is read again a frame at a time. */
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
#define POLL_EVERY 0.02         /* seconds between two looks at the wire while busy */
#define STEP_S 0.005            /* the longest step of a reading pass without a look */
#define RECV_BATCH 1000         /* messages taken off the socket in one go */
#define MSG_MAX (SB_LOG_HEADER_LEN + SB_LOG_BODY_MAX + SB_LOG_TAG_LEN)
#define SIZE_MAX32 0xffffffffu

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the table of log files and logs ---- */

/* Two hashes of s: FNV-1a (64 bits, mixed) and a multiply-xorshift one (32
 * bits), so that two keys are taken for one only if both collide: at a
 * million logs, about one chance in 10^17. */
static struct sb_watch_key key_of(const char *s)
{
	uint64_t a = 1469598103934665603ull, b = 0x9e3779b97f4a7c15ull;
	struct sb_watch_key k;

	for (; *s; s++) {
		a = (a ^ (unsigned char)*s) * 1099511628211ull;
		b = (b ^ (unsigned char)*s) * 0xff51afd7ed558ccdull;
		b ^= b >> 29;
	}
	a ^= a >> 33;
	a *= 0xc4ceb9fe1a85ec53ull;
	a ^= a >> 33;
	k.k0 = a ? a : 1; /* 0 marks an empty slot */
	k.k1 = (uint32_t)(b ^ (b >> 32));
	return k;
}

static int logs_grow(struct sb_watch *w)
{
	size_t cap = w->logs_cap ? w->logs_cap * 2 : 1024, i;
	struct sb_watch_log *v = calloc(cap, sizeof(*v));

	if (v == NULL)
		return -1;
	for (i = 0; i < w->logs_cap; i++) {
		size_t j;

		if (w->logs[i].k0 == 0)
			continue;
		j = (size_t)w->logs[i].k0 & (cap - 1);
		while (v[j].k0 != 0)
			j = (j + 1) & (cap - 1);
		v[j] = w->logs[i];
	}
	free(w->logs);
	w->logs = v;
	w->logs_cap = cap;
	return 0;
}

/* The entry of k, made (zero) when absent; NULL out of memory.  Valid until
 * the next entry is made. */
static struct sb_watch_log *log_get(struct sb_watch *w, struct sb_watch_key k)
{
	size_t i;

	if ((w->logs_n + 1) * 8 > w->logs_cap * 7 && logs_grow(w) < 0)
		return NULL;
	i = (size_t)k.k0 & (w->logs_cap - 1);
	while (w->logs[i].k0 != 0 && (w->logs[i].k0 != k.k0 || w->logs[i].k1 != k.k1))
		i = (i + 1) & (w->logs_cap - 1);
	if (w->logs[i].k0 == 0) {
		memset(&w->logs[i], 0, sizeof(w->logs[i]));
		w->logs[i].k0 = k.k0;
		w->logs[i].k1 = k.k1;
		w->logs_n++;
	}
	return &w->logs[i];
}

/* ---- records given once ---- */

/* The string of a log's key: the path where its record's identity puts it;
 * the path of the file it was read from for a record of sbctl's own (no
 * child); its identity for a frame of neither. */
static void log_key_text(const struct sb_watch *w, const struct sb_log_record *rec,
	const char *path, char *buf, size_t size)
{
	if (rec->id.child >= 0 && rec->id.attempt >= 0 &&
	    sb_bdir_log(buf, size, sb_bench_dir(w->bench), rec->id.child, rec->id.attempt,
			rec->id.job_id ? rec->id.job_id : "none",
			rec->id.restart < 0 ? 0 : rec->id.restart) >= 0)
		return;
	if (path != NULL)
		snprintf(buf, size, "%s", path);
	else
		snprintf(buf, size, "id|%" PRId64 "|%" PRId64 "|%s|%" PRId64, rec->id.child,
			rec->id.attempt, rec->id.job_id ? rec->id.job_id : "", rec->id.restart);
}

/* The key of the log rec belongs to (path: the file it was read from, or
 * NULL for a frame).  A log is its writer's: were two writers' records to
 * name the same place (a log copied by hand), the second is a log of its
 * own, as before when logs were known by their whole identity.  -1 out of
 * memory. */
static int log_key(struct sb_watch *w, const struct sb_log_record *rec, const char *path,
	struct sb_watch_key *key)
{
	char buf[PATH_MAX + SB_LOG_STR_MAX * 2 + 128], wr[SB_LOG_STR_MAX + 32];
	struct sb_watch_key wk;
	struct sb_watch_log *e;
	size_t len;

	log_key_text(w, rec, path, buf, sizeof(buf));
	snprintf(wr, sizeof(wr), "%s|%" PRId64, rec->id.host ? rec->id.host : "", rec->id.pid);
	wk = key_of(wr);
	if (wk.k1 == 0)
		wk.k1 = 1; /* 0: no writer yet */
	*key = key_of(buf);
	e = log_get(w, *key);
	if (e == NULL)
		return -1;
	if (e->writer == 0)
		e->writer = wk.k1;
	if (e->writer == wk.k1)
		return 0;
	len = strlen(buf);
	snprintf(buf + len, sizeof(buf) - len, "|%s", wr);
	*key = key_of(buf);
	e = log_get(w, *key);
	if (e == NULL)
		return -1;
	e->writer = wk.k1;
	return 0;
}

static struct sb_watch_gap *gap_find(struct sb_watch *w, struct sb_watch_key k)
{
	size_t i;

	for (i = 0; i < w->ngaps; i++)
		if (w->gaps[i].key.k0 == k.k0 && w->gaps[i].key.k1 == k.k1)
			return &w->gaps[i];
	return NULL;
}

static bool gap_has(const struct sb_watch_gap *g, uint64_t seq)
{
	return g != NULL && seq / 8 < g->nbytes && (g->bits[seq / 8] & (1u << (seq % 8)));
}

/* Whether record seq of the log k was given (the log's entry exists). */
static bool was_given(struct sb_watch *w, struct sb_watch_key k, uint64_t seq)
{
	struct sb_watch_log *e = log_get(w, k);

	if (e == NULL || seq > (uint64_t)SB_LOG_FILE_MAX)
		return true; /* no log holds that many records */
	if (seq < e->given)
		return true;
	return (e->flags & SB_WLOG_GAPS) && gap_has(gap_find(w, k), seq);
}

/* Marks record seq of the log k given; 1 when it was new, 0 when given
 * before, -1 out of memory. */
static int mark_given(struct sb_watch *w, struct sb_watch_key k, uint64_t seq)
{
	struct sb_watch_log *e = log_get(w, k);
	struct sb_watch_gap *g;

	if (e == NULL)
		return -1;
	if (seq > (uint64_t)SB_LOG_FILE_MAX || seq < e->given)
		return 0;
	g = (e->flags & SB_WLOG_GAPS) ? gap_find(w, k) : NULL;
	if (seq == e->given) {
		if (gap_has(g, seq))
			return 0;
		e->given++;
		while (gap_has(g, e->given))
			e->given++;
		if (g != NULL && (size_t)e->given >= g->nbytes * 8) {
			/* nothing given beyond the prefix any more */
			free(g->bits);
			*g = w->gaps[--w->ngaps];
			e->flags &= ~SB_WLOG_GAPS;
		}
		return 1;
	}
	if (g == NULL) {
		if (w->ngaps == w->gaps_cap) {
			size_t cap = w->gaps_cap ? 2 * w->gaps_cap : 8;
			struct sb_watch_gap *v = realloc(w->gaps, cap * sizeof(*v));

			if (v == NULL)
				return -1;
			w->gaps = v;
			w->gaps_cap = cap;
		}
		g = &w->gaps[w->ngaps++];
		memset(g, 0, sizeof(*g));
		g->key = k;
		e->flags |= SB_WLOG_GAPS;
	}
	if (seq / 8 >= g->nbytes) {
		size_t n = g->nbytes ? g->nbytes : 8;
		uint8_t *p;

		while (n <= seq / 8)
			n *= 2;
		p = realloc(g->bits, n);
		if (p == NULL)
			return -1;
		memset(p + g->nbytes, 0, n - g->nbytes);
		g->bits = p;
		g->nbytes = n;
	}
	if (gap_has(g, seq))
		return 0;
	g->bits[seq / 8] |= (uint8_t)(1u << (seq % 8));
	return 1;
}

/* What is counted and noted of a record given. */
static int note_given(struct sb_watch *w, const struct sb_log_record *rec, bool live)
{
	if (sb_watch_view_note(w, rec) < 0)
		return -1;
	if (rec->type && !strcmp(rec->type, SB_RT_FINISH))
		w->finish_seen = true;
	w->counts.records++;
	if (live)
		w->counts.live++;
	else
		w->counts.from_files++;
	return 0;
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
			size_t cap = w->qcap ? w->qcap * 2 : 64;
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

static bool same_key(struct sb_watch_key a, struct sb_watch_key b)
{
	return a.k0 == b.k0 && a.k1 == b.k1;
}

/* Whether a held record is of the log k (and, seq != UINT64_MAX, is its
 * record seq). */
static bool held_has(const struct sb_watch *w, struct sb_watch_key k, uint64_t seq)
{
	size_t i;

	for (i = 0; i < w->nheld; i++)
		if (same_key(w->held[i].key, k) && (seq == UINT64_MAX || w->held[i].ev.rec->seq == seq))
			return true;
	return false;
}

/* A live record, r's only one (r taken over).  Given at once (queued)
 * when every record of its log before it was given; held otherwise, until
 * they are (read from its file, or given before); dropped when it was
 * given or is held already.  -1 out of memory. */
static int push_live(struct sb_watch *w, struct sb_log_result *r)
{
	const struct sb_log_record *rec = sb_log_result_record(r, 0);
	char buf[PATH_MAX];
	struct sb_watch_item *it;
	struct sb_watch_key k;
	struct sb_watch_log *e;
	char *path = NULL;
	bool hold;

	if (log_key(w, rec, NULL, &k) < 0)
		goto nomem;
	if (was_given(w, k, rec->seq) || held_has(w, k, rec->seq)) {
		sb_log_result_destroy(r);
		return 0;
	}
	e = log_get(w, k);
	if (e == NULL)
		goto nomem;
	hold = rec->seq > e->given;
	if (rec->id.child >= 0 && rec->id.attempt >= 0 &&
	    sb_bdir_log(buf, sizeof(buf), sb_bench_dir(w->bench), rec->id.child, rec->id.attempt,
		    rec->id.job_id ? rec->id.job_id : "none",
		    rec->id.restart < 0 ? 0 : rec->id.restart) >= 0) {
		path = strdup(buf);
		if (path == NULL)
			goto nomem;
	}
	if (hold) {
		if (w->nheld == w->heldcap) {
			size_t cap = w->heldcap ? 2 * w->heldcap : 16;
			struct sb_watch_item *v = realloc(w->held, cap * sizeof(*v));

			if (v == NULL)
				goto nomem;
			w->held = v;
			w->heldcap = cap;
		}
		it = &w->held[w->nheld++];
		memset(it, 0, sizeof(*it));
		it->ev.kind = SB_WATCH_RECORD;
	} else {
		if (mark_given(w, k, rec->seq) < 0)
			goto nomem;
		it = push(w, SB_WATCH_RECORD);
		if (it == NULL)
			goto nomem;
	}
	it->ev.rec = rec;
	it->ev.live = true;
	it->own = r;
	it->path = path;
	it->ev.path = path;
	it->key = k;
	return hold ? 0 : note_given(w, rec, true);
nomem:
	free(path);
	sb_log_result_destroy(r);
	return -1;
}

/* ---- the log files ---- */

static void strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int strv_add(char ***v, size_t *n, size_t *cap, char *s)
{
	if (s == NULL)
		return -1;
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		char **p = realloc(*v, c * sizeof(*p));

		if (p == NULL) {
			free(s);
			return -1;
		}
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = s;
	return 0;
}

/* A shard's name: decimal digits (at most 18). */
static bool shard_name(const char *name, uint64_t *num)
{
	size_t n = strspn(name, "0123456789");

	if (n == 0 || n > 18 || name[n] != '\0')
		return false;
	*num = strtoull(name, NULL, 10);
	return true;
}

static int cmp_shard(const void *pa, const void *pb)
{
	const char *a = strrchr(*(char *const *)pa, '/') + 1, *b = strrchr(*(char *const *)pb, '/') + 1;
	uint64_t x = strtoull(a, NULL, 10), y = strtoull(b, NULL, 10);

	if (x != y)
		return x < y ? -1 : 1;
	return strcmp(a, b);
}

static void scan_release(struct sb_watch_scan *s)
{
	strv_free(s->shards, s->nshards);
	strv_free(s->rest, s->nrest);
	sb_logfiles_release(&s->files);
	s->shards = s->rest = NULL;
	s->nshards = s->ishard = s->nrest = s->ifile = 0;
	s->active = s->listed = s->rest_done = false;
}

/* Starts a pass over the files (again from the first, when one is under way). */
static void scan_start(struct sb_watch *w, bool final)
{
	scan_release(&w->scan);
	w->scan.active = true;
	w->scan.final = final;
	w->scan.cost = w->scan.first_reads = 0;
}

/* The shards of events/ (events/<N>/, in numeric order), and what else is
 * there or in submissions/ (listed last).  -1 out of memory. */
static int scan_list(struct sb_watch *w)
{
	struct sb_watch_scan *s = &w->scan;
	size_t cap_shards = 0, cap_rest = 0;
	char *events, *subm;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	events = sb_logfiles_join(sb_bench_dir(w->bench), "events");
	subm = sb_logfiles_join(sb_bench_dir(w->bench), "submissions");
	if (events == NULL || subm == NULL) {
		free(events);
		free(subm);
		return -1;
	}
	d = opendir(events);
	while (d != NULL && rc == 0 && (de = readdir(d)) != NULL) {
		uint64_t num;
		char *p;
		bool dir;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = sb_logfiles_join(events, de->d_name);
		if (p == NULL) {
			rc = -1;
			break;
		}
		dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			dir = lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
		}
		if (dir && shard_name(de->d_name, &num))
			rc = strv_add(&s->shards, &s->nshards, &cap_shards, p);
		else
			rc = strv_add(&s->rest, &s->nrest, &cap_rest, p);
	}
	if (d != NULL)
		closedir(d);
	free(events);
	if (rc == 0)
		rc = strv_add(&s->rest, &s->nrest, &cap_rest, subm);
	else
		free(subm);
	if (rc == 0 && s->nshards > 1)
		qsort(s->shards, s->nshards, sizeof(*s->shards), cmp_shard);
	s->listed = true;
	return rc;
}

/* Adds the files of a shard to f: its regular files by their directory
 * entries' type (no stat each), what else it holds as sb_logfiles_walk
 * does. */
static void list_shard(struct sb_logfiles *f, const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d == NULL)
		return; /* gone or unreadable for now */
	while (!f->nomem && (de = readdir(d)) != NULL) {
		struct stat st;
		char *p;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = sb_logfiles_join(dir, de->d_name);
		if (p == NULL) {
			f->nomem = true;
			break;
		}
		if (de->d_type == DT_REG) {
			sb_logfiles_add(f, p);
			continue;
		}
		if (de->d_type == DT_DIR || (de->d_type == DT_UNKNOWN && lstat(p, &st) == 0 &&
					     S_ISDIR(st.st_mode)))
			sb_logfiles_walk(f, p);
		else if (de->d_type == DT_UNKNOWN && lstat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			sb_logfiles_add(f, p);
			continue;
		}
		free(p); /* not a regular file */
	}
	closedir(d);
}

/* The next list of files of the pass, sorted in child order (a shard, or
 * the rest): 1; 0 when the pass has read them all; -1 out of memory. */
static int scan_next_list(struct sb_watch *w)
{
	struct sb_watch_scan *s = &w->scan;
	size_t i;

	sb_logfiles_release(&s->files);
	s->ifile = 0;
	if (!s->listed && scan_list(w) < 0)
		return -1;
	while (s->ishard < s->nshards) {
		list_shard(&s->files, s->shards[s->ishard++]);
		if (s->files.nomem)
			return -1;
		if (s->files.n > 0) {
			sb_logfiles_sort(&s->files);
			return 1;
		}
	}
	if (s->rest_done)
		return 0;
	s->rest_done = true;
	for (i = 0; i < s->nrest; i++) {
		struct stat st;

		if (lstat(s->rest[i], &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			sb_logfiles_walk(&s->files, s->rest[i]);
		else if (S_ISREG(st.st_mode)) {
			char *p = strdup(s->rest[i]);

			if (p == NULL || sb_logfiles_add(&s->files, p) < 0)
				return -1;
		}
		if (s->files.nomem)
			return -1;
	}
	sb_logfiles_sort(&s->files);
	return s->files.n > 0;
}

static void reading_release(struct sb_watch_reading *rd)
{
	sb_log_result_destroy(rd->r);
	if (rd->fd >= 0)
		close(rd->fd);
	free(rd->refs);
	memset(rd, 0, sizeof(*rd));
	rd->fd = -1;
}

struct collect_arg {
	struct sb_watch *w;
	struct sb_watch_reading *rd;
	const struct sb_watch_key *want;
	bool keyed, stop;
};

/* sb_log_read_file_each's callback: the place of each verified record of
 * a large log not given yet. */
static int collect(const struct sb_log_record *rec, void *arg, struct sb_error *err)
{
	struct collect_arg *a = arg;
	struct sb_watch_reading *rd = a->rd;
	struct sb_watch_ref *ref;

	if (!rec->verified || a->stop)
		return 0;
	if (!a->keyed) {
		if (log_key(a->w, rec, rd->path, &rd->key) < 0)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		a->keyed = true;
		if (a->want != NULL && !same_key(rd->key, *a->want))
			a->stop = true; /* another writer's log in its place */
	}
	if (a->stop || rec->seq >= rd->below) {
		a->stop = true;
		return 0;
	}
	if (was_given(a->w, rd->key, rec->seq))
		return 0;
	if (rd->nrefs == rd->refs_cap) {
		size_t cap = rd->refs_cap ? 2 * rd->refs_cap : 64;
		struct sb_watch_ref *v = realloc(rd->refs, cap * sizeof(*v));

		if (v == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		rd->refs = v;
		rd->refs_cap = cap;
	}
	ref = &rd->refs[rd->nrefs++];
	ref->seq = rec->seq;
	ref->offset = rec->offset;
	ref->size = (uint32_t)rec->size;
	memcpy(ref->tag, rec->tag, SB_LOG_TAG_LEN);
	return 0;
}

/* Reads the log file path into rd, to give its records not given yet below
 * seq `below`: those of the log want (NULL: the log its first record
 * names).  *summary (when not NULL) is given the reading's result for its
 * tail (the caller destroys it).  1 when there are records to give; 0 when
 * none or the file cannot be read (yet); -1 out of memory. */
static int reading_open(struct sb_watch *w, struct sb_watch_reading *rd, const char *path,
	off_t size, uint64_t below, const struct sb_watch_key *want,
	struct sb_log_result **summary)
{
	struct sb_log_expect ex = { .id = &w->want };
	struct sb_log_result *r;
	struct sb_error e = { 0 };

	reading_release(rd);
	rd->path = path;
	rd->below = below;
	if (summary)
		*summary = NULL;
	if (size <= (off_t)SB_WATCH_BIG) {
		r = sb_log_read_file(w->verifier, path, &ex, &e);
		if (r == NULL)
			return e.code == SB_ERR_NOMEM ? -1 : 0;
		rd->r = r;
		rd->n = sb_log_result_verified(r);
		if (summary)
			*summary = r;
		if (rd->n == 0)
			return 0;
		if (log_key(w, sb_log_result_record(r, 0), path, &rd->key) < 0)
			return -1;
		if (want != NULL && !same_key(rd->key, *want))
			rd->n = 0;
		return rd->n > 0;
	} else {
		struct collect_arg a = { .w = w, .rd = rd, .want = want };

		rd->big = true;
		rd->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (rd->fd < 0)
			return 0;
		r = sb_log_read_file_each(w->verifier, path, &ex, collect, &a, &e);
		if (r == NULL)
			return e.code == SB_ERR_NOMEM ? -1 : 0;
		if (summary)
			*summary = r;
		else
			sb_log_result_destroy(r);
		return rd->nrefs > 0;
	}
}

/* The next record of rd not given yet: 1 with *rec; 0 when it has none
 * left; -1 out of memory.  A large file's frame that is no longer the one
 * verified (the file changed under us) ends its reading; the file is read
 * again at the next pass. */
static int reading_next(struct sb_watch *w, struct sb_watch_reading *rd,
	const struct sb_log_record **rec)
{
	struct sb_log_expect ex = { .id = &w->want };

	if (!rd->big) {
		while (rd->next < rd->n) {
			const struct sb_log_record *x = sb_log_result_record(rd->r, rd->next++);
			int rc;

			if (x->seq >= rd->below)
				break;
			rc = mark_given(w, rd->key, x->seq);
			if (rc < 0)
				return -1;
			if (rc > 0) {
				*rec = x;
				return 1;
			}
		}
		return 0;
	}
	while (rd->iref < rd->nrefs) {
		const struct sb_watch_ref *ref = &rd->refs[rd->iref++];
		const struct sb_log_record *x;
		struct sb_log_result *fr;
		struct sb_watch_log *e;
		int rc;

		if (was_given(w, rd->key, ref->seq))
			continue;
		if (ref->size > w->fbuf_cap) {
			uint8_t *p = realloc(w->fbuf, ref->size);

			if (p == NULL)
				return -1;
			w->fbuf = p;
			w->fbuf_cap = ref->size;
		}
		if (pread(rd->fd, w->fbuf, ref->size, (off_t)ref->offset) != (ssize_t)ref->size)
			goto changed;
		fr = sb_log_read_frame(w->verifier, w->fbuf, ref->size, &ex, NULL);
		if (fr == NULL)
			return -1;
		x = sb_log_result_record(fr, 0);
		if (sb_log_result_verified(fr) != 1 || x->seq != ref->seq ||
		    memcmp(x->tag, ref->tag, SB_LOG_TAG_LEN) != 0) {
			sb_log_result_destroy(fr);
			goto changed;
		}
		sb_log_result_destroy(rd->r);
		rd->r = fr;
		rd->rec = *x;
		rd->rec.offset = ref->offset;
		rc = mark_given(w, rd->key, x->seq);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			*rec = &rd->rec;
			return 1;
		}
		continue;
changed:
		e = rd->fkey.k0 ? log_get(w, rd->fkey) : NULL;
		if (e != NULL)
			e->flags &= ~SB_WLOG_READ;
		rd->iref = rd->nrefs;
	}
	return 0;
}

/* Reads the file path when its size or mtime moved since it was last read,
 * and makes it the pass's file whose records are given (1) when it has
 * records not given yet; 0 when not; -1 out of memory. */
static int visit_file(struct sb_watch *w, const char *path)
{
	struct sb_watch_key fk = key_of(path);
	struct sb_log_result *sum = NULL;
	struct sb_watch_log *e;
	struct stat sb;
	enum sb_log_tail tail;
	uint32_t size, mtime;
	double t0;
	bool first;
	int rc;

	if (stat(path, &sb) != 0)
		return 0;
	size = sb.st_size > (off_t)SIZE_MAX32 ? SIZE_MAX32 : (uint32_t)sb.st_size;
	mtime = (uint32_t)((uint64_t)sb.st_mtim.tv_sec * 1000000000u + (uint64_t)sb.st_mtim.tv_nsec);
	e = log_get(w, fk);
	if (e == NULL)
		return -1;
	if ((e->flags & SB_WLOG_READ) && e->size == size && e->mtime == mtime)
		return 0;
	first = !(e->flags & SB_WLOG_READ);
	t0 = first ? now_s() : 0;
	rc = reading_open(w, &w->rd, path, sb.st_size, UINT64_MAX, NULL, &sum);
	if (first)
		w->scan.first_reads += now_s() - t0;
	if (rc < 0 || sum == NULL) {
		if (sum != w->rd.r)
			sb_log_result_destroy(sum);
		reading_release(&w->rd);
		return rc; /* unreadable for now: the next pass tries again */
	}
	w->rd.fkey = fk;
	e = log_get(w, fk);
	if (e == NULL)
		rc = -1;
	else {
		e->flags |= SB_WLOG_READ;
		e->size = size;
		e->mtime = mtime;
		tail = sb_log_result_tail(sum);
		if (tail != SB_LOG_TAIL_OK && tail != SB_LOG_TAIL_TORN &&
		    !(e->flags & SB_WLOG_PROBLEM)) {
			e->flags |= SB_WLOG_PROBLEM;
			if (push_note(w, SB_WATCH_PROBLEM, tail, path, sb_log_result_detail(sum), 0) < 0)
				rc = -1;
		}
	}
	if (sum != w->rd.r)
		sb_log_result_destroy(sum);
	if (rc <= 0)
		reading_release(&w->rd);
	return rc;
}

/* A record event of rec, read from a file. */
static int give_read(struct sb_watch *w, const struct sb_log_record *rec, const char *path,
	struct sb_watch_event *ev)
{
	if (note_given(w, rec, false) < 0)
		return -1;
	memset(ev, 0, sizeof(*ev));
	ev->kind = SB_WATCH_RECORD;
	ev->rec = rec;
	ev->live = false;
	ev->path = path;
	return SB_WATCH_EVENT;
}

/* Gives the next record of the pass's file not given yet: SB_WATCH_EVENT;
 * 0 when it has none left (it is then let go); -1 out of memory. */
static int give_from_file(struct sb_watch *w, struct sb_watch_event *ev)
{
	const struct sb_log_record *rec;
	int rc = reading_next(w, &w->rd, &rec);

	if (rc > 0)
		return give_read(w, rec, w->rd.path, ev);
	reading_release(&w->rd);
	return rc;
}

/* The first held record: the next record of its log before it not given
 * yet, read from its file (SB_WATCH_EVENT); once there is none, the held
 * record is queued, given now (0); -1 out of memory. */
static int give_held(struct sb_watch *w, struct sb_watch_event *ev)
{
	struct sb_watch_item *h = &w->held[0];
	const struct sb_log_record *rec;
	struct sb_watch_item *it;
	int rc;

	if (!w->filling) {
		struct sb_watch_log *e = log_get(w, h->key);
		struct stat sb;

		if (e == NULL)
			return -1;
		rc = 0;
		if (h->ev.rec->seq > e->given && h->path != NULL && stat(h->path, &sb) == 0)
			rc = reading_open(w, &w->fill, h->path, sb.st_size, h->ev.rec->seq, &h->key,
				NULL);
		if (rc < 0)
			return -1;
		w->filling = rc > 0;
	}
	if (w->filling) {
		rc = reading_next(w, &w->fill, &rec);
		if (rc < 0)
			return -1;
		if (rc > 0)
			return give_read(w, rec, h->path, ev);
	}
	/* its log's records before it that its file holds are given: it is next */
	reading_release(&w->fill);
	w->filling = false;
	rc = mark_given(w, h->key, h->ev.rec->seq);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		item_release(h); /* given from its file meanwhile */
	} else {
		it = push(w, SB_WATCH_RECORD);
		if (it == NULL)
			return -1;
		*it = *h;
		if (note_given(w, it->ev.rec, true) < 0) {
			memmove(w->held, w->held + 1, --w->nheld * sizeof(*w->held));
			return -1;
		}
	}
	memmove(w->held, w->held + 1, --w->nheld * sizeof(*w->held));
	return 0;
}

/* Seconds from the end of a pass to the next one: at least 20 times what
 * the pass cost, but for the first reading of each file (done once). */
static double scan_interval(const struct sb_watch *w)
{
	double iv = w->opts.scan_interval > 0 ? w->opts.scan_interval : SCAN_DEFAULT;

	return fmax(iv, 20 * w->scan_cost);
}

/* One step of the pass: files read until one has records to give (1), or
 * STEP_S passed (0), or the pass is over (0, and the watch done when it was
 * the final one); -1 out of memory. */
static int scan_step(struct sb_watch *w)
{
	struct sb_watch_scan *s = &w->scan;
	double t0 = now_s();
	int rc = 0;

	for (;;) {
		if (s->ifile < s->files.n) {
			rc = visit_file(w, s->files.v[s->ifile++].path);
			if (rc != 0)
				break;
		} else {
			rc = scan_next_list(w);
			if (rc < 0)
				break;
			if (rc == 0) {
				bool final = s->final;

				/* what reading again costs: the first reading of a
				 * file is done once */
				s->cost += now_s() - t0;
				w->scan_cost = fmax(s->cost - s->first_reads, 0);
				scan_release(s);
				w->scanned = true;
				w->next_scan = now_s() + scan_interval(w);
				if (final)
					w->done = "done";
				return 0;
			}
			rc = 0;
		}
		if (now_s() - t0 >= STEP_S)
			break;
	}
	s->cost += now_s() - t0;
	return rc;
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
		return push_live(w, r) < 0 ? sb_error_set(err, SB_ERR_NOMEM, "out of memory") : 0;
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

/* Looks at the wire (waiting at most timeout ms) and queues what came. */
static int poll_wire(struct sb_watch *w, long timeout, struct sb_error *err)
{
	zmq_pollitem_t items[2];

	items[0] = (zmq_pollitem_t){ .socket = w->pull, .events = ZMQ_POLLIN };
	items[1] = (zmq_pollitem_t){ .socket = w->zap, .events = ZMQ_POLLIN };
	if (zmq_poll(items, 2, timeout) < 0 && zmq_errno() != EINTR)
		return sb_errorf(err, "cannot poll the watch socket: %s", zmq_strerror(zmq_errno()));
	if ((items[1].revents & ZMQ_POLLIN) && handle_zap(w) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if ((items[0].revents & ZMQ_POLLIN) && recv_frames(w, err) < 0)
		return -1;
	w->next_poll = now_s() + POLL_EVERY;
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
		w->final_req = true;
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
	w->rd.fd = w->fill.fd = -1;
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
	for (i = 0; i < w->nheld; i++)
		item_release(&w->held[i]);
	free(w->held);
	reading_release(&w->rd);
	reading_release(&w->fill);
	free(w->fbuf);
	scan_release(&w->scan);
	free(w->logs);
	for (i = 0; i < w->ngaps; i++)
		free(w->gaps[i].bits);
	free(w->gaps);
	sb_status_destroy(w->status);
	sb_log_verifier_destroy(w->verifier);
	sb_bench_destroy(w->bench);
	free(w->children);
	free(w->runs);
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

static bool want_status(const struct sb_watch *w)
{
	return w->opts.until_done || w->opts.track_status;
}

/* Gives the first queued event (released at the next call). */
static int pop(struct sb_watch *w, struct sb_watch_event *ev)
{
	w->cur = w->q[w->qhead++];
	w->qlen--;
	if (w->qlen == 0)
		w->qhead = 0;
	*ev = w->cur.ev;
	return SB_WATCH_EVENT;
}

/* The order of the work: what came off the wire (looked at every
 * POLL_EVERY seconds whatever else is going on), then the records of the
 * file being read, a status when one is due (not before the first pass
 * over the files is over: the records already there come first), a step of
 * the pass over the files when one is under way or due, else a wait on the
 * wire until the next of these is due. */
int sb_watch_next(struct sb_watch *w, double wait_s, struct sb_watch_event *ev,
	struct sb_error *err)
{
	double deadline = wait_s < 0 ? INFINITY : now_s() + wait_s;

	memset(ev, 0, sizeof(*ev));
	item_release(&w->cur); /* the event given last is no longer borrowed */
	for (;;) {
		struct sb_error e = { 0 };
		double now = now_s(), wake;
		long timeout;
		int rc;

		/* the wire while busy (not while what it brought is still being
		 * given: it waits in libzmq, where the agents' send buffers
		 * bound it, rather than here) */
		if (!w->done && now >= w->next_poll && w->qlen == 0 && w->nheld < RECV_BATCH &&
		    poll_wire(w, 0, err) < 0)
			return -1;
		if (w->qlen > 0)
			return pop(w, ev);
		if (w->nheld > 0) {
			rc = give_held(w, ev);
			if (rc < 0)
				return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			if (rc == SB_WATCH_EVENT)
				return rc;
			continue;
		}
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
		if (w->rd.path != NULL) {
			rc = give_from_file(w, ev);
			if (rc < 0)
				return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			if (rc == SB_WATCH_EVENT)
				return rc;
			continue;
		}
		if (w->final_req) {
			/* the status says it is over: one more whole pass, then done */
			w->final_req = false;
			scan_start(w, true);
			continue;
		}
		if (want_status(w) && w->scanned && !(w->scan.active && w->scan.final) &&
		    (now >= w->next_status ||
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
		if (w->scan.active || !w->scanned || now >= w->next_scan) {
			if (!w->scan.active)
				scan_start(w, false);
			if (scan_step(w) < 0)
				return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			if (w->qlen == 0 && w->rd.path == NULL && !w->done && now_s() >= deadline)
				return SB_WATCH_IDLE;
			continue;
		}
		wake = fmin(deadline, w->next_scan);
		if (want_status(w))
			wake = fmin(wake, w->next_status);
		if (w->opts.timeout > 0)
			wake = fmin(wake, w->t0 + w->opts.timeout);
		timeout = wake <= now ? 0 : (long)fmin(ceil((wake - now) * 1000), 100.0);
		if (poll_wire(w, timeout, err) < 0)
			return -1;
		if (w->qlen == 0 && w->nheld == 0 && now_s() >= deadline)
			return SB_WATCH_IDLE;
	}
}
