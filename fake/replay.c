/* Recording a run and playing it back through the fake (docs/fake-slurm.md,
 * "Record and replay").
 *
 * A recording is a directory: `timeline` (text, one event per line, see
 * below) and `blobs/` (the bytes files gained).  The recorder polls sacct
 * and squeue (whatever is first on PATH: the real Slurm, or the fake) and
 * the benchmark directory.  The replayer materialises the files at the
 * recorded pace (times divided by --speed) and makes the fake's sacct,
 * squeue and scontrol answer from the latest scheduler snapshot at the
 * replay clock, by loading that snapshot into the state store.
 *
 * timeline:
 *   sbfake-record 1 <wall time of t=0, seconds since the epoch>
 *   S <t> <n>          then n lines: sacct -P -n -X -D --format=RECORD_SACCT
 *   Q <t> <n>          then n lines: squeue -h -r -o RECORD_SQUEUE
 *   F <t> <offset> <length> <truncate 0|1> <blob> <path relative to the benchmark dir>
 * Times are seconds (decimal) since t=0. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake/replay.h"
#include "fake/store.h"
#include "fake/util.h"


#define RECORD_SACCT "JobID,JobIDRaw,JobName,State,ExitCode,Submit,Start,End,NodeList,Comment,Timelimit,Partition,Account,WorkDir,AllocCPUS"
#define RECORD_SQUEUE "%i|%A|%T|%r|%j"
#define LINE_MAX_LEN 65536
#define OUT_MAX (64 << 20)
#define BLOB_MAX (256 << 20)

/* ---------------- running a query without a shell ---------------- */

static char *run_capture(char *const argv[], int *status)
{
	int pfd[2];
	pid_t pid;
	char *buf;
	size_t len = 0, cap = 65536;
	ssize_t n;

	*status = -1;
	if (pipe(pfd) != 0)
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	if (pid == 0) {
		int nfd = open("/dev/null", O_RDWR);
		dup2(pfd[1], 1);
		if (nfd >= 0) {
			dup2(nfd, 0);
			dup2(nfd, 2);
		}
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	buf = malloc(cap + 1);
	while (buf) {
		if (len == cap) {
			char *nb;
			if (cap >= OUT_MAX)
				break;
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		n = read(pfd[0], buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(pfd[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	if (buf)
		buf[len] = '\0';
	return buf;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (*s == '\n')
			n++;
	return n;
}

/* ---------------- the recorder ---------------- */

struct seen {
	char *path;
	off_t size;
	ino_t ino;
};

struct rec {
	FILE *tl;
	char out[PATH_MAX];
	char bench[PATH_MAX];
	double t0;
	struct seen *files;
	size_t nfiles, cap;
	unsigned long blobs;
};

static struct seen *seen_find(struct rec *r, const char *rel)
{
	size_t i;

	for (i = 0; i < r->nfiles; i++)
		if (!strcmp(r->files[i].path, rel))
			return &r->files[i];
	if (r->nfiles == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 64;
		struct seen *n = realloc(r->files, nc * sizeof(*n));
		if (!n)
			return NULL;
		r->files = n;
		r->cap = nc;
	}
	r->files[r->nfiles].path = fake_xstrdup(rel);
	r->files[r->nfiles].size = 0;
	r->files[r->nfiles].ino = 0;
	return &r->files[r->nfiles++];
}

static int copy_range(const char *src, off_t off, off_t len, const char *dst)
{
	int in = open(src, O_RDONLY), out;
	char buf[65536];
	off_t done = 0;

	if (in < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (out < 0) {
		close(in);
		return -1;
	}
	while (done < len) {
		size_t want = (size_t)(len - done) < sizeof(buf) ? (size_t)(len - done) : sizeof(buf);
		ssize_t n = pread(in, buf, want, off + done);
		if (n <= 0 || fake_write_all(out, buf, (size_t)n) != 0)
			break;
		done += n;
	}
	close(in);
	if (close(out) != 0)
		return -1;
	return done == len ? 0 : -1;
}

static void scan_dir(struct rec *r, const char *rel, double t)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;

	if ((size_t)snprintf(path, sizeof(path), "%s%s%s", r->bench, *rel ? "/" : "", rel) >= sizeof(path))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char child[PATH_MAX], full[PATH_MAX * 2];
		struct stat sb;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (strpbrk(e->d_name, "\n\t"))
			continue;  /* not representable in the timeline */
		if ((size_t)snprintf(child, sizeof(child), "%s%s%s", rel, *rel ? "/" : "", e->d_name) >= sizeof(child))
			continue;
		snprintf(full, sizeof(full), "%s/%s", r->bench, child);
		if (lstat(full, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			scan_dir(r, child, t);
		} else if (S_ISREG(sb.st_mode)) {
			struct seen *s = seen_find(r, child);
			off_t from;
			int trunc = 0;
			char blob[PATH_MAX + 64];
			if (!s)
				continue;
			if (s->ino == sb.st_ino && sb.st_size == s->size)
				continue;
			if (s->ino != 0 && (s->ino != sb.st_ino || sb.st_size < s->size)) {
				from = 0;  /* replaced or shrunk: record it whole */
				trunc = 1;
			} else {
				from = s->ino ? s->size : 0;
				trunc = s->ino == 0;
			}
			if (sb.st_size - from > BLOB_MAX)
				continue;
			snprintf(blob, sizeof(blob), "%s/blobs/%06lu", r->out, r->blobs);
			if (copy_range(full, from, sb.st_size - from, blob) != 0)
				continue;
			fprintf(r->tl, "F %.3f %lld %lld %d %06lu %s\n", t, (long long)from,
				(long long)(sb.st_size - from), trunc, r->blobs, child);
			r->blobs++;
			s->ino = sb.st_ino;
			s->size = sb.st_size;
		}
	}
	closedir(d);
}

static int busy(const char *sacct_out, const char *squeue_out)
{
	if (squeue_out && *squeue_out)
		return 1;
	return sacct_out && (strstr(sacct_out, "|PENDING|") || strstr(sacct_out, "|RUNNING|") ||
			     strstr(sacct_out, "|REQUEUED|"));
}

int fake_record_main(int argc, char **argv)
{
	struct rec r;
	double interval = 1.0, duration = 0, since;
	const char *jobs = NULL;
	char *last_s = NULL, *last_q = NULL, path[PATH_MAX + 16], since_s[64];
	int i, quiet_rounds = 0;

	memset(&r, 0, sizeof(r));
	if (argc < 3) {
		fprintf(stderr, "usage: sbfake record BENCHDIR OUTDIR [--interval S] [--duration S] [--jobs IDS]\n");
		return 2;
	}
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--interval") && i + 1 < argc)
			interval = atof(argv[++i]);
		else if (!strcmp(argv[i], "--duration") && i + 1 < argc)
			duration = atof(argv[++i]);
		else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
			jobs = argv[++i];
		else {
			fprintf(stderr, "sbfake: error: record: unknown argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (interval < 0.05)
		interval = 0.05;
	if (!realpath(argv[1], r.bench)) {
		fprintf(stderr, "sbfake: error: record: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 2;
	}
	snprintf(r.out, sizeof(r.out), "%s", argv[2]);
	snprintf(path, sizeof(path), "%s/blobs", r.out);
	if (fake_mkdir_p(path, 0755) != 0) {
		fprintf(stderr, "sbfake: error: record: cannot create '%s': %s\n", path, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/timeline", r.out);
	r.tl = fopen(path, "wx");
	if (!r.tl) {
		fprintf(stderr, "sbfake: error: record: cannot create '%s': %s\n", path, strerror(errno));
		return 1;
	}
	r.t0 = fake_now();
	since = r.t0 - 86400;
	{
		time_t tt = (time_t)since;
		struct tm tm;
		localtime_r(&tt, &tm);
		strftime(since_s, sizeof(since_s), "%Y-%m-%dT%H:%M:%S", &tm);
	}
	fprintf(r.tl, "sbfake-record 1 %.3f\n", r.t0);
	for (;;) {
		double t = fake_now() - r.t0;
		char *sa, *sq;
		int st1, st2;
		char *sargv[16], *qargv[16];
		int k = 0;

		sargv[k++] = "sacct"; sargv[k++] = "-P"; sargv[k++] = "-n"; sargv[k++] = "-X";
		sargv[k++] = "-D"; sargv[k++] = "--format=" RECORD_SACCT; sargv[k++] = "-S";
		sargv[k++] = since_s;
		if (jobs) {
			sargv[k++] = "-j";
			sargv[k++] = (char *)jobs;
		}
		sargv[k] = NULL;
		k = 0;
		qargv[k++] = "squeue"; qargv[k++] = "-h"; qargv[k++] = "-r"; qargv[k++] = "-o";
		qargv[k++] = RECORD_SQUEUE;
		if (jobs) {
			qargv[k++] = "-j";
			qargv[k++] = (char *)jobs;
		} else {
			qargv[k++] = "--me";
		}
		qargv[k] = NULL;
		sa = run_capture(sargv, &st1);
		sq = run_capture(qargv, &st2);
		if (sq && st2 != 0) {
			sq[0] = '\0';  /* squeue -j of jobs that are gone: an empty queue */
		}
		if (sa && st1 == 0 && (!last_s || strcmp(sa, last_s) != 0)) {
			fprintf(r.tl, "S %.3f %zu\n%s", t, count_lines(sa), sa);
			free(last_s);
			last_s = fake_xstrdup(sa);
		}
		if (sq && (!last_q || strcmp(sq, last_q) != 0)) {
			fprintf(r.tl, "Q %.3f %zu\n%s", t, count_lines(sq), sq);
			free(last_q);
			last_q = fake_xstrdup(sq);
		}
		scan_dir(&r, "", t);
		fflush(r.tl);
		quiet_rounds = busy(last_s, last_q) ? 0 : quiet_rounds + 1;
		free(sa);
		free(sq);
		if (duration > 0 ? t >= duration : quiet_rounds >= 2)
			break;
		usleep((useconds_t)(interval * 1e6));
	}
	free(last_s);
	free(last_q);
	for (size_t k = 0; k < r.nfiles; k++)
		free(r.files[k].path);
	free(r.files);
	if (fclose(r.tl) != 0) {
		fprintf(stderr, "sbfake: error: record: cannot write the timeline: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

/* ---------------- the timeline ---------------- */

struct block {
	char kind;      /* S, Q or F */
	double t;
	long first;     /* S/Q: index of the first row line */
	long n;
	long long off, len;
	int trunc;
	char blob[32];
	char *path;
};

struct timeline {
	double t0;
	char **lines;   /* the row lines of the S and Q blocks */
	long nlines;
	struct block *b;
	long nb;
};

static void timeline_free(struct timeline *tl)
{
	long i;

	for (i = 0; i < tl->nlines; i++)
		free(tl->lines[i]);
	for (i = 0; i < tl->nb; i++)
		free(tl->b[i].path);
	free(tl->lines);
	free(tl->b);
	memset(tl, 0, sizeof(*tl));
}

static int timeline_load(const char *dir, struct timeline *tl)
{
	char path[PATH_MAX + 16], *line = malloc(LINE_MAX_LEN);
	FILE *f;
	long capl = 0, capb = 0, pending = 0;

	memset(tl, 0, sizeof(*tl));
	if (!line)
		return -1;
	snprintf(path, sizeof(path), "%s/timeline", dir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "sbfake: error: replay: cannot open '%s': %s\n", path, strerror(errno));
		free(line);
		return -1;
	}
	if (!fgets(line, LINE_MAX_LEN, f) || sscanf(line, "sbfake-record 1 %lf", &tl->t0) != 1) {
		fprintf(stderr, "sbfake: error: replay: '%s' is not an sbfake recording\n", path);
		fclose(f);
		free(line);
		return -1;
	}
	while (fgets(line, LINE_MAX_LEN, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (pending > 0) {
			if (tl->nlines == capl) {
				capl = capl ? capl * 2 : 256;
				char **n = realloc(tl->lines, (size_t)capl * sizeof(*n));
				if (!n)
					goto bad;
				tl->lines = n;
			}
			tl->lines[tl->nlines++] = fake_xstrdup(line);
			pending--;
			continue;
		}
		if (tl->nb == capb) {
			capb = capb ? capb * 2 : 64;
			struct block *n = realloc(tl->b, (size_t)capb * sizeof(*n));
			if (!n)
				goto bad;
			tl->b = n;
		}
		struct block *b = &tl->b[tl->nb];
		memset(b, 0, sizeof(*b));
		if ((line[0] == 'S' || line[0] == 'Q') &&
		    sscanf(line + 1, " %lf %ld", &b->t, &b->n) == 2 && b->n >= 0) {
			b->kind = line[0];
			b->first = tl->nlines;
			pending = b->n;
			tl->nb++;
		} else if (line[0] == 'F') {
			int used = 0;
			if (sscanf(line + 1, " %lf %lld %lld %d %31s %n", &b->t, &b->off, &b->len, &b->trunc,
				   b->blob, &used) < 5 || used == 0 || !line[1 + used] ||
			    strstr(line + 1 + used, "..") || line[1 + used] == '/')
				goto bad;
			b->kind = 'F';
			b->path = fake_xstrdup(line + 1 + used);
			tl->nb++;
		} else if (line[0]) {
			goto bad;
		}
	}
	fclose(f);
	free(line);
	return 0;
bad:
	fprintf(stderr, "sbfake: error: replay: '%s': malformed timeline line: %.80s\n", path, line);
	fclose(f);
	free(line);
	timeline_free(tl);
	return -1;
}

/* ---------------- loading a snapshot into the store ---------------- */

static double parse_stime(const char *s)
{
	struct tm tm;
	char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end || *end)
		return 0;
	tm.tm_isdst = -1;
	return (double)mktime(&tm);
}

static long parse_limit(const char *s)
{
	long d = 0, h = 0, m = 0, sec = 0;

	if (!strcmp(s, "UNLIMITED") || !*s)
		return -1;
	if (strchr(s, '-')) {
		if (sscanf(s, "%ld-%ld:%ld:%ld", &d, &h, &m, &sec) != 4)
			return -1;
	} else if (sscanf(s, "%ld:%ld:%ld", &h, &m, &sec) != 3) {
		return -1;
	}
	return d * 86400 + h * 3600 + m * 60 + sec;
}

static int split_fields(char *line, char **f, int max)
{
	int n = 0;

	f[n++] = line;
	for (char *p = line; *p && n < max; p++)
		if (*p == '|') {
			*p = '\0';
			f[n++] = p + 1;
		}
	return n;
}

static int ensure_job(struct fake_state *st, long id, int is_array, char **f, int throttle)
{
	sqlite3_stmt *s;
	int exists;
	struct fake_job j;

	if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM jobs WHERE id=?", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	exists = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	if (exists)
		return 0;
	memset(&j, 0, sizeof(j));
	j.id = id;
	j.is_array = is_array;
	j.throttle = throttle;
	j.array_spec = "";
	j.name = f[2];
	j.comment = f[9];
	j.workdir = f[13];
	j.submit_dir = f[13];
	j.out = "";
	j.partition = f[11];
	j.account = f[12];
	j.user = (char *)fake_username();
	j.time_limit = parse_limit(f[10]);
	j.cpus = atoi(f[14]) > 0 ? atoi(f[14]) : 1;
	j.submit = parse_stime(f[5]);
	j.uid = (int)getuid();
	j.gid = (int)getgid();
	return fake_job_insert(st, &j);
}

static int upsert_task(struct fake_state *st, long a, long t, long raw, const char *state,
		       double start, double end, int restarts)
{
	struct fake_task task;

	memset(&task, 0, sizeof(task));
	task.array_id = a;
	task.task_id = t;
	task.raw_id = raw;
	task.state = (char *)state;
	task.reason = "None";
	task.restarts = restarts;
	task.start = start;
	task.end = end;
	task.status = -1;
	if (fake_task_save(st, &task) != 0)
		return -1;
	if (sqlite3_changes(st->db) == 0)
		return fake_task_insert(st, &task);
	return 0;
}

static int acct_raw(struct fake_state *st, long a, long t, long raw, int restart, const char *state,
		    const char *ec, double start, double end)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "INSERT INTO acct(array_id, task_id, raw_id, restart, state,"
			       " exitcode, start, end, t, vis) VALUES(?,?,?,?,?,?,?,?,0,0)", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, a);
	sqlite3_bind_int64(s, 2, t);
	sqlite3_bind_int64(s, 3, raw);
	sqlite3_bind_int(s, 4, restart);
	sqlite3_bind_text(s, 5, state, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 6, ec, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(s, 7, start);
	sqlite3_bind_double(s, 8, end);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Parses "123", "123_4" or "123_[2-5%1]" */
static int parse_jobid(const char *s, long *a, long **tasks, size_t *n, int *throttle)
{
	char *end;

	*a = strtol(s, &end, 10);
	*tasks = NULL;
	*n = 0;
	*throttle = 0;
	if (end == s)
		return -1;
	if (!*end)
		return 0;
	if (*end != '_')
		return -1;
	if (end[1] == '[') {
		char inner[FAKE_TEXT_MAX];
		size_t len = strlen(end + 2);
		if (len < 2 || end[2 + len - 1] != ']' || len >= sizeof(inner))
			return -1;
		snprintf(inner, sizeof(inner), "%.*s", (int)(len - 1), end + 2);
		return fake_parse_array(inner, tasks, n, throttle);
	}
	*tasks = malloc(sizeof(long));
	if (!*tasks)
		return -1;
	(*tasks)[0] = strtol(end + 1, &end, 10);
	*n = 1;
	return *end ? -1 : 0;
}

static int apply_snapshot(struct fake_state *st, const struct timeline *tl, long si, long qi)
{
	long i;
	char node[256] = "";

	if (fake_exec(st, "DELETE FROM jobs; DELETE FROM tasks; DELETE FROM acct;") != 0)
		return -1;
	if (si >= 0) {
		const struct block *b = &tl->b[si];
		for (i = 0; i < b->n; i++) {
			char line[LINE_MAX_LEN], *f[20];
			long a, *tasks = NULL;
			size_t n, k;
			int th;
			snprintf(line, sizeof(line), "%s", tl->lines[b->first + i]);
			if (split_fields(line, f, 20) < 15 || parse_jobid(f[0], &a, &tasks, &n, &th) != 0) {
				free(tasks);
				continue;
			}
			if (ensure_job(st, a, n > 0 || strchr(f[0], '_') != NULL, f, th) != 0) {
				free(tasks);
				return -1;
			}
			if (th > 0) {
				char sql[128];
				snprintf(sql, sizeof(sql), "UPDATE jobs SET throttle=%d WHERE id=%ld", th, a);
				if (fake_exec(st, sql) != 0) {
					free(tasks);
					return -1;
				}
			}
			if (!node[0] && strcmp(f[8], "None assigned") && *f[8])
				snprintf(node, sizeof(node), "%s", f[8]);
			for (k = 0; k < (n ? n : 1); k++) {
				long t = n ? tasks[k] : -1;
				long raw = n > 1 ? 0 : atol(f[1]);
				sqlite3_stmt *s;
				int restart = 0;
				/* -D rows of the same task come in order: count them */
				if (sqlite3_prepare_v2(st->db, "SELECT COUNT(DISTINCT restart) FROM acct WHERE array_id=? AND task_id=?",
						       -1, &s, NULL) != SQLITE_OK)
					return -1;
				sqlite3_bind_int64(s, 1, a);
				sqlite3_bind_int64(s, 2, t);
				if (sqlite3_step(s) == SQLITE_ROW)
					restart = sqlite3_column_int(s, 0);
				sqlite3_finalize(s);
				/* Slurm 22.05's accounting updates the range of an
				 * array's pending record late: `24_[2-7%8] PENDING`
				 * next to rows of tasks 2-4 that already ran
				 * (tests/cluster).  Such a range is not a new run of
				 * those tasks: the tasks' own rows stand. */
				if (n > 1 && restart > 0)
					continue;
				if (acct_raw(st, a, t, raw, restart, f[3], f[4], parse_stime(f[6]), parse_stime(f[7])) != 0 ||
				    upsert_task(st, a, t, raw, f[3], parse_stime(f[6]), parse_stime(f[7]), restart) != 0) {
					free(tasks);
					return -1;
				}
			}
			free(tasks);
		}
	}
	if (qi >= 0) {
		const struct block *b = &tl->b[qi];
		/* what squeue no longer lists has left the controller */
		if (fake_exec(st, "UPDATE tasks SET state='COMPLETED' WHERE state IN ('PENDING','RUNNING','REQUEUED')") != 0)
			return -1;
		for (i = 0; i < b->n; i++) {
			char line[LINE_MAX_LEN], *f[8];
			long a, *tasks = NULL;
			size_t n;
			int th;
			sqlite3_stmt *s;
			snprintf(line, sizeof(line), "%s", tl->lines[b->first + i]);
			if (split_fields(line, f, 8) < 5 || parse_jobid(f[0], &a, &tasks, &n, &th) != 0 || n > 1) {
				free(tasks);
				continue;
			}
			/* the live state and reason come from squeue */
			if (sqlite3_prepare_v2(st->db, "UPDATE tasks SET state=?, reason=?, completing=?, raw_id=?"
					       " WHERE array_id=? AND task_id=?", -1, &s, NULL) != SQLITE_OK) {
				free(tasks);
				return -1;
			}
			sqlite3_bind_text(s, 1, !strcmp(f[2], "COMPLETING") ? "RUNNING" : f[2], -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(s, 2, f[3], -1, SQLITE_TRANSIENT);
			sqlite3_bind_int(s, 3, !strcmp(f[2], "COMPLETING"));
			sqlite3_bind_int64(s, 4, !strcmp(f[2], "PENDING") && n && atol(f[1]) == a ? 0 : atol(f[1]));
			sqlite3_bind_int64(s, 5, a);
			sqlite3_bind_int64(s, 6, n ? tasks[0] : -1);
			sqlite3_step(s);
			sqlite3_finalize(s);
			if (sqlite3_changes(st->db) == 0) {
				/* in the queue, not yet in accounting */
				char *jf[15];
				for (int z = 0; z < 15; z++)
					jf[z] = "";
				jf[2] = f[4];
				jf[10] = "UNLIMITED";
				jf[14] = "1";
				if (ensure_job(st, a, n > 0, jf, th) != 0 ||
				    upsert_task(st, a, n ? tasks[0] : -1,
						!strcmp(f[2], "PENDING") && n && atol(f[1]) == a ? 0 : atol(f[1]),
						!strcmp(f[2], "COMPLETING") ? "RUNNING" : f[2], 0, 0, 0) != 0) {
					free(tasks);
					return -1;
				}
				if (sqlite3_prepare_v2(st->db, "UPDATE tasks SET reason=? WHERE array_id=? AND task_id=?",
						       -1, &s, NULL) == SQLITE_OK) {
					sqlite3_bind_text(s, 1, f[3], -1, SQLITE_TRANSIENT);
					sqlite3_bind_int64(s, 2, a);
					sqlite3_bind_int64(s, 3, n ? tasks[0] : -1);
					sqlite3_step(s);
					sqlite3_finalize(s);
				}
			}
			free(tasks);
		}
	}
	if (node[0] && fake_meta_set(st, "replay_node", node) != 0)
		return -1;
	return 0;
}

int fake_replaying(struct fake_state *st)
{
	char *dir = fake_meta_get(st, "replay_dir");

	free(dir);
	return dir != NULL;
}

/* Called by sacct, squeue and scontrol: in replay mode, loads the snapshot
 * that holds at the replay clock and moves the clock.  1 when replaying. */
int fake_replay_sync(struct fake_state *st)
{
	char *dir = fake_meta_get(st, "replay_dir"), *v;
	double t0, speed, at = -1, clock;
	struct timeline tl;
	long i, si = -1, qi = -1;
	char key[64];
	int rc = 1;

	if (!dir)
		return 0;
	v = fake_meta_get(st, "replay_t0");
	t0 = v ? atof(v) : fake_now();
	free(v);
	v = fake_meta_get(st, "replay_speed");
	speed = v ? atof(v) : 1;
	free(v);
	v = fake_meta_get(st, "replay_at");
	if (v)
		at = atof(v);
	free(v);
	clock = at >= 0 ? at : (fake_now() - t0) * speed;
	if (timeline_load(dir, &tl) != 0) {
		free(dir);
		return -1;
	}
	for (i = 0; i < tl.nb; i++) {
		if (tl.b[i].t > clock)
			break;
		if (tl.b[i].kind == 'S')
			si = i;
		else if (tl.b[i].kind == 'Q')
			qi = i;
	}
	snprintf(key, sizeof(key), "%ld,%ld", si, qi);
	v = fake_meta_get(st, "replay_applied");
	if (!v || strcmp(v, key) != 0) {
		if (apply_snapshot(st, &tl, si, qi) != 0 || fake_meta_set(st, "replay_applied", key) != 0)
			rc = -1;
	}
	free(v);
	fake_set_now(tl.t0 + clock);
	v = fake_meta_get(st, "replay_node");
	if (v) {
		setenv("SB_FAKE_NODENAME", v, 1);
		free(v);
	}
	timeline_free(&tl);
	free(dir);
	return rc;
}

/* ---------------- the replayer ---------------- */

static int materialize(const char *rec, const char *target, const struct block *b)
{
	char src[PATH_MAX + 64], dst[PATH_MAX * 2], dir[PATH_MAX * 2], *slash;
	FILE *in;
	int out, ok = 0;
	char buf[65536];
	long long done = 0;

	snprintf(src, sizeof(src), "%s/blobs/%s", rec, b->blob);
	if ((size_t)snprintf(dst, sizeof(dst), "%s/%s", target, b->path) >= sizeof(dst))
		return -1;
	snprintf(dir, sizeof(dir), "%s", dst);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		if (fake_mkdir_p(dir, 0755) != 0)
			return -1;
	}
	in = fopen(src, "rb");
	if (!in)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | (b->trunc ? O_TRUNC : 0), 0644);
	if (out < 0) {
		fclose(in);
		return -1;
	}
	while (done < b->len) {
		size_t want = (size_t)(b->len - done) < sizeof(buf) ? (size_t)(b->len - done) : sizeof(buf);
		size_t n = fread(buf, 1, want, in);
		if (n == 0 || pwrite(out, buf, n, b->off + done) != (ssize_t)n)
			break;
		done += (long long)n;
	}
	ok = done == b->len;
	fclose(in);
	if (close(out) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

int fake_replay_main(int argc, char **argv)
{
	struct fake_state st;
	struct timeline tl;
	char rec[PATH_MAX], target[PATH_MAX], buf[64];
	double speed = 1, at = -1, t0;
	int i, detach = 0, rc = 0;
	long k;

	if (argc < 3) {
		fprintf(stderr, "usage: sbfake replay RECDIR TARGETDIR [--speed X] [--at SECONDS] [--detach]\n");
		return 2;
	}
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--speed") && i + 1 < argc)
			speed = atof(argv[++i]);
		else if (!strcmp(argv[i], "--at") && i + 1 < argc)
			at = atof(argv[++i]);
		else if (!strcmp(argv[i], "--detach"))
			detach = 1;
		else {
			fprintf(stderr, "sbfake: error: replay: unknown argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (speed <= 0 || speed > 1e6) {
		fprintf(stderr, "sbfake: error: replay: bad speed\n");
		return 2;
	}
	if (!realpath(argv[1], rec)) {
		fprintf(stderr, "sbfake: error: replay: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (fake_mkdir_p(argv[2], 0755) != 0 || !realpath(argv[2], target)) {
		fprintf(stderr, "sbfake: error: replay: cannot create '%s': %s\n", argv[2], strerror(errno));
		return 1;
	}
	if (timeline_load(rec, &tl) != 0)
		return 1;

	/* take the store over: the replay owns it from now on */
	if (fake_open(&st) != 0 || fake_load(&st) != 0) {
		fake_close(&st);
		timeline_free(&tl);
		return 1;
	}
	for (k = 0; k < (long)st.ntasks; k++) {
		if (fake_task_is_active(&st.tasks[k]) && st.tasks[k].sup_pid > 0) {
			fprintf(stderr, "sbfake: error: replay: the fake still runs jobs in %s (sbfake shutdown first)\n", st.dir);
			fake_close(&st);
			timeline_free(&tl);
			return 1;
		}
	}
	t0 = fake_now();
	snprintf(buf, sizeof(buf), "%.6f", t0);
	if (fake_meta_set(&st, "replay_dir", rec) || fake_meta_set(&st, "replay_t0", buf) ||
	    fake_meta_set(&st, "replay_applied", NULL)) {
		fake_close(&st);
		timeline_free(&tl);
		return 1;
	}
	snprintf(buf, sizeof(buf), "%g", speed);
	fake_meta_set(&st, "replay_speed", buf);
	if (at >= 0) {
		snprintf(buf, sizeof(buf), "%.3f", at);
		fake_meta_set(&st, "replay_at", buf);
	} else {
		fake_meta_set(&st, "replay_at", NULL);
	}
	if (fake_replay_sync(&st) < 0 || fake_commit(&st) != 0) {
		fake_close(&st);
		timeline_free(&tl);
		return 1;
	}
	fake_close(&st);
	fake_set_now(0);  /* the replayer itself paces on the real clock */

	if (at >= 0) {
		for (k = 0; k < tl.nb; k++)
			if (tl.b[k].kind == 'F' && tl.b[k].t <= at && materialize(rec, target, &tl.b[k]) != 0) {
				fprintf(stderr, "sbfake: error: replay: cannot write '%s/%s'\n", target, tl.b[k].path);
				rc = 1;
			}
		timeline_free(&tl);
		return rc;
	}
	if (detach) {
		pid_t p = fork();
		if (p < 0)
			return 1;
		if (p > 0) {
			timeline_free(&tl);
			return 0;
		}
		setsid();
		if (fork() != 0)
			_exit(0);
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
	}
	for (k = 0; k < tl.nb; k++) {
		double due = t0 + tl.b[k].t / speed, now = fake_now();
		if (tl.b[k].kind != 'F')
			continue;
		if (due > now)
			usleep((useconds_t)((due - now) * 1e6));
		if (materialize(rec, target, &tl.b[k]) != 0) {
			fprintf(stderr, "sbfake: error: replay: cannot write '%s/%s'\n", target, tl.b[k].path);
			rc = 1;
		}
	}
	timeline_free(&tl);
	return detach ? 0 : rc;
}
