/* Scheduling pass and job supervisors.
 *
 * There is no daemon.  Every command runs fake_schedule() inside its store
 * transaction: it notices supervisors that died (their jobs become
 * NODE_FAIL), then starts the pending tasks that may run (begin time,
 * dependencies, array throttle, CPUs of the one fake node).  A started task
 * gets a supervisor: a detached process (double fork, setsid, stdio on
 * /dev/null) that runs the batch script in its own process group, enforces
 * the time limit and --signal, carries out kill requests (scancel, faults)
 * with SIGTERM then SIGKILL after KillWait, records the end in the store and
 * runs a scheduling pass itself so the next tasks start. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
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
#include "fake/sched.h"
#include "fake/store.h"
#include "fake/util.h"

extern char **environ;

static int pid_alive(long pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	if (pid <= 0)
		return 0;
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;  /* no /proc: trust kill() */
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
		return 0;
	return 1;
}

static void close_from(int lowfd)
{
	int fd;

	for (fd = lowfd; fd < 1024; fd++)
		close(fd);
}

/* Starts this executable as NAME ARG... detached (own session, stdio on
 * /dev/null, wake-up signals blocked until it is ready); returns its pid. */
static long spawn_detached(const char *name, const char *a, const char *b, const char *c)
{
	char exe[PATH_MAX];
	ssize_t n;
	int pfd[2];
	pid_t mid, pid = -1;
	sigset_t set;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	if (pipe(pfd) != 0)
		return -1;
	mid = fork();
	if (mid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (mid == 0) {
		pid_t g;
		close(pfd[0]);
		setsid();
		g = fork();
		if (g == 0) {
			int fd = open("/dev/null", O_RDWR);
			if (fd >= 0) {
				dup2(fd, 0);
				dup2(fd, 1);
				dup2(fd, 2);
			}
			close_from(3);
			sigemptyset(&set);
			sigaddset(&set, SIGUSR1);
			sigaddset(&set, SIGCHLD);
			sigprocmask(SIG_SETMASK, &set, NULL);
			execl(exe, name, a, b, c, (char *)NULL);
			_exit(127);
		}
		if (fake_write_all(pfd[1], &g, sizeof(g)) != 0)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &pid, sizeof(pid)) != (ssize_t)sizeof(pid))
		pid = -1;
	close(pfd[0]);
	while (waitpid(mid, NULL, 0) < 0 && errno == EINTR)
		;
	return pid;
}

static long spawn_supervisor(const struct fake_task *t)
{
	char a[32], b[32], c[32];

	snprintf(a, sizeof(a), "%ld", t->array_id);
	snprintf(b, sizeof(b), "%ld", t->task_id);
	snprintf(c, sizeof(c), "%d", t->restarts);
	return spawn_detached("sbfake-supervise", a, b, c);
}

/* Begin times (--begin, the delay after a requeue) need someone to run a
 * scheduling pass when they come: one detached timer process at a time,
 * `sbfake-tick WHEN DIR` (DIR on its command line, so that a test can find
 * the timers of its state directory with pgrep -f). */
/* 1 when pid is a timer (sbfake-tick) of this state directory: its command
 * line is "sbfake-tick\0WHEN\0DIR\0" (a pid can be reused). */
static int is_our_timer(const struct fake_state *st, long pid)
{
	char path[64], buf[4096];
	size_t n, w;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (strcmp(buf, "sbfake-tick") != 0)
		return 0;
	w = strlen(buf) + 1;
	if (w >= n)
		return 0;
	w += strlen(buf + w) + 1;
	return w < n && !strcmp(buf + w, st->dir);
}

/* Stops the armed timer (not when it is this process) and forgets it. */
static int stop_timer(struct fake_state *st)
{
	char *pid = fake_meta_get(st, "timer_pid");
	long p = pid ? atol(pid) : 0;

	free(pid);
	if (p <= 0)
		return 0;
	if (p != (long)getpid() && is_our_timer(st, p))
		kill((pid_t)p, SIGKILL);
	return fake_meta_set(st, "timer_at", NULL) | fake_meta_set(st, "timer_pid", NULL);
}

static int arm_timer(struct fake_state *st, double when)
{
	char *at = fake_meta_get(st, "timer_at"), *pid = fake_meta_get(st, "timer_pid");
	double cur = at ? atof(at) : 0;
	long p = pid ? atol(pid) : 0;
	char buf[64];
	int rc = 0;

	free(at);
	free(pid);
	if (p > 0 && p != (long)getpid() && pid_alive(p) && cur <= when + 0.001)
		return 0;
	if (stop_timer(st) != 0)  /* a later one: the new timer's pass re-arms for it */
		return -1;
	snprintf(buf, sizeof(buf), "%.3f", when);
	p = spawn_detached("sbfake-tick", buf, st->dir, NULL);
	if (p > 0) {
		char pb[32];
		snprintf(pb, sizeof(pb), "%ld", p);
		rc = fake_meta_set(st, "timer_at", buf) | fake_meta_set(st, "timer_pid", pb);
	}
	return rc;
}

/* The longest a timer sleeps between two looks at its state directory. */
#define TICK_NAP_S 2.0

/* The state directory and its store, as a timer first saw them. */
struct tick_home {
	dev_t dev, db_dev;
	ino_t ino, db_ino;
};

static int tick_home_get(const char *dir, struct tick_home *h)
{
	char db[PATH_MAX];
	struct stat a, b;

	if (snprintf(db, sizeof(db), "%s/state.db", dir) >= (int)sizeof(db) ||
	    stat(dir, &a) != 0 || !S_ISDIR(a.st_mode) || stat(db, &b) != 0)
		return -1;
	*h = (struct tick_home){ a.st_dev, b.st_dev, a.st_ino, b.st_ino };
	return 0;
}

/* 1 while DIR and its state.db are the ones the timer started with: a test
 * that removed (or replaced) its state directory has no more use for it. */
static int tick_home_same(const char *dir, const struct tick_home *h)
{
	struct tick_home now;

	return tick_home_get(dir, &now) == 0 && now.dev == h->dev && now.ino == h->ino &&
	       now.db_dev == h->db_dev && now.db_ino == h->db_ino;
}

/* sbfake-tick WHEN DIR: sleeps until WHEN (fake_now() seconds), then runs a
 * scheduling pass in DIR.  It wakes at least every TICK_NAP_S seconds and
 * exits at once when DIR or its store is gone or replaced, so no timer
 * outlives its state directory by more than that; it never lives past
 * WHEN. */
int fake_tick_main(int argc, char **argv)
{
	struct tick_home home;
	struct fake_state st;
	const char *dir;
	double when, now;

	fake_set_prog("sbfake-tick");
	if (argc != 3)
		return 2;
	when = atof(argv[1]);
	dir = argv[2];
	if (tick_home_get(dir, &home) != 0 || setenv("SB_FAKE_SLURM_DIR", dir, 1) != 0)
		return 0;
	while ((now = fake_now()) < when) {
		double nap = when - now < TICK_NAP_S ? when - now : TICK_NAP_S;
		struct timespec ts;
		ts.tv_sec = (time_t)nap;
		ts.tv_nsec = (long)((nap - (double)ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
		if (!tick_home_same(dir, &home))
			return 0;
	}
	if (!tick_home_same(dir, &home))
		return 0;
	if (fake_open(&st) == 0 && fake_load(&st) == 0 && fake_schedule(&st) == 0)
		fake_commit(&st);
	fake_close(&st);
	return 0;
}

static int set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? fake_xstrdup(v) : NULL;
	return 0;
}

/* Dependency check: 1 satisfied, 0 not yet, -1 never. */
static int dep_check(struct fake_state *st, const char *dep)
{
	char buf[FAKE_TEXT_MAX], *term, *save = NULL;
	char *marks;
	int result = 1, any_or, or_ok = 0, or_never = 1;

	if (!dep || !*dep)
		return 1;
	any_or = strchr(dep, '?') != NULL;
	snprintf(buf, sizeof(buf), "%s", dep);
	marks = fake_xcalloc(st->ntasks + 1, 1);
	for (term = strtok_r(buf, any_or ? "?" : ",", &save); term;
	     term = strtok_r(NULL, any_or ? "?" : ",", &save)) {
		char *colon = strchr(term, ':'), *idsave = NULL, *id;
		int r = 1;
		if (!colon)
			continue;
		*colon = '\0';
		for (id = strtok_r(colon + 1, ":", &idsave); id; id = strtok_r(NULL, ":", &idsave)) {
			size_t i;
			memset(marks, 0, st->ntasks + 1);
			if (fake_match_id(st, id, marks) == 0)
				continue;  /* purged: treated as satisfied */
			for (i = 0; i < st->ntasks; i++) {
				struct fake_task *d = &st->tasks[i];
				int ended;
				if (!marks[i])
					continue;
				ended = fake_task_is_ended(d) && !d->completing;
				if (!strcmp(term, "after")) {
					if (!strcmp(d->state, "PENDING") && r > 0)
						r = 0;
				} else if (!strcmp(term, "afterany")) {
					if (!ended && r > 0)
						r = 0;
				} else if (!strcmp(term, "afterok")) {
					if (ended && strcmp(d->state, "COMPLETED") != 0)
						r = -1;
					else if (!ended && r > 0)
						r = 0;
				} else if (!strcmp(term, "afternotok")) {
					if (ended && !strcmp(d->state, "COMPLETED"))
						r = -1;
					else if (!ended && r > 0)
						r = 0;
				}
			}
		}
		if (any_or) {
			if (r == 1)
				or_ok = 1;
			if (r != -1)
				or_never = 0;
		} else if (r < result) {
			result = r;
		}
	}
	free(marks);
	if (any_or)
		return or_ok ? 1 : (or_never ? -1 : 0);
	return result;
}


int fake_schedule(struct fake_state *st)
{
	size_t i;
	int used = 0, cpus = fake_cpus(), blocked = 0;
	double now = fake_now();

	if (fake_replaying(st))
		return 0;  /* the recording decides everything */

	/* 1. supervisors that vanished: the node failed under them */
	for (i = 0; i < st->ntasks; i++) {
		struct fake_task *t = &st->tasks[i];
		if (!fake_task_is_active(t) || (t->sup_pid != 0 && pid_alive(t->sup_pid)))
			continue;  /* (no supervisor at all: it could not be started) */
		if (t->pgid > 0)
			kill(-(pid_t)t->pgid, SIGKILL);
		if (!strcmp(t->state, "RUNNING")) {
			set_str(&t->state, "NODE_FAIL");
			t->end = now;
			if (!t->lost && fake_acct_record(st, t, "NODE_FAIL", "0:0") != 0)
				return -1;
		} else if (!strcmp(t->state, "REQUEUED")) {
			if (fake_requeue_task(st, t) != 0)
				return -1;
		}
		t->completing = 0;
		t->sup_pid = 0;
		if (fake_task_save(st, t) != 0)
			return -1;
	}
	for (i = 0; i < st->njobs; i++) {
		st->jobs[i].active = 0;
		st->jobs[i].unsplit = 0;
		st->jobs[i].dep_state = 2;
	}
	for (i = 0; i < st->ntasks; i++) {
		struct fake_task *t = &st->tasks[i];
		if (fake_task_is_active(t)) {
			used += t->job->cpus;
			t->job->active++;
		}
		if (t->raw_id == 0 && !strcmp(t->state, "PENDING"))
			t->job->unsplit++;
	}

	/* 2. start what may start, oldest first */
	const struct fake_job *unsplit_job = NULL;
	const char *unsplit_reason = NULL;
	for (i = 0; i < st->ntasks; i++) {
		struct fake_task *t = &st->tasks[i];
		struct fake_job *j = t->job;
		const char *reason = NULL;
		int d;

		if (strcmp(t->state, "PENDING") != 0)
			continue;
		if (j->dep_state == 2)
			j->dep_state = dep_check(st, j->dep);  /* once per job and pass */
		d = j->dep_state;
		if (t->begin > now) {
			reason = "BeginTime";
		} else if (d != 1) {
			reason = d < 0 ? "DependencyNeverSatisfied" : "Dependency";
		} else {
			if (j->throttle > 0 && j->active >= j->throttle)
				reason = "JobArrayTaskLimit";
			else if (blocked || used + j->cpus > cpus) {
				/* the tasks not split off an array are one job record
				 * in Slurm, with one reason: all get the first one's */
				if (t->raw_id == 0 && j == unsplit_job && unsplit_reason)
					reason = unsplit_reason;
				else
					reason = blocked++ ? "Priority" : "Resources";
				if (t->raw_id == 0) {
					unsplit_job = j;
					unsplit_reason = reason;
				}
			}
		}
		if (reason) {
			if (strcmp(t->reason, reason) != 0) {
				set_str(&t->reason, reason);
				if (fake_task_save(st, t) != 0)
					return -1;
			}
			continue;
		}
		if (t->raw_id == 0) {
			j->unsplit--;
			if (!j->is_array || j->unsplit == 0)
				t->raw_id = t->array_id;
			else if ((t->raw_id = fake_next_id(st)) < 0)
				return -1;
		}
		j->active++;
		set_str(&t->state, "RUNNING");
		set_str(&t->reason, "None");
		set_str(&t->kill_state, NULL);
		t->kill_sig = 0;
		t->kill_time = 0;
		t->start = now;
		t->end = 0;
		t->status = -1;
		t->completing = 0;
		t->pgid = 0;
		t->sup_pid = spawn_supervisor(t);
		if (t->sup_pid <= 0) {
			t->sup_pid = 0;  /* noticed as a failed node on the next pass */
		}
		used += j->cpus;
		if (!t->lost && fake_acct_record(st, t, "RUNNING", "0:0") != 0)
			return -1;
		if (fake_task_save(st, t) != 0)
			return -1;
	}

	/* 3. wake up for the next begin time */
	{
		double next = 0;
		for (i = 0; i < st->ntasks; i++) {
			struct fake_task *t = &st->tasks[i];
			if (!strcmp(t->state, "PENDING") && t->begin > now && (next == 0 || t->begin < next))
				next = t->begin;
		}
		if (next > 0 ? arm_timer(st, next) != 0 : stop_timer(st) != 0)
			return -1;  /* no begin time to wait for: no timer either */
	}

	/* 4. the last pending element of an array takes over the array's own id */
	for (i = 0; i < st->ntasks; i++) {
		struct fake_task *t = &st->tasks[i];
		if (t->job->is_array && t->raw_id == 0 && !strcmp(t->state, "PENDING") &&
		    t->job->unsplit == 1) {
			int taken = 0;
			for (size_t k = 0; k < st->ntasks; k++)
				if (st->tasks[k].array_id == t->array_id && st->tasks[k].raw_id == t->array_id)
					taken = 1;
			if (!taken) {
				t->raw_id = t->array_id;
				if (fake_task_save(st, t) != 0)
					return -1;
			}
		}
	}
	return 0;
}

int fake_requeue_task(struct fake_state *st, struct fake_task *t)
{
	double delay = fake_env_double("SB_FAKE_REQUEUE_DELAY", 1.0);

	t->restarts++;
	set_str(&t->state, "PENDING");
	set_str(&t->reason, "BeginTime");
	set_str(&t->kill_state, NULL);
	t->begin = fake_now() + delay;
	t->start = 0;
	t->end = 0;
	t->status = -1;
	t->completing = 0;
	t->sup_pid = 0;
	t->pgid = 0;
	if (!t->lost && fake_acct_record(st, t, "PENDING", "0:0") != 0)
		return -1;
	return 0;
}

int fake_request_kill(struct fake_state *st, struct fake_task *t,
		      const char *final_state, int sig)
{
	double now = fake_now();

	if (strcmp(final_state, "OUT_OF_MEMORY") != 0) {
		if (!strcmp(final_state, "REQUEUED")) {
			t->end = now;
			if (!t->lost && fake_acct_record(st, t, "REQUEUED", "0:0") != 0)
				return -1;
		} else {
			t->end = now;
			if (!t->lost && fake_acct_record(st, t, final_state, "0:0") != 0)
				return -1;
		}
		set_str(&t->state, final_state);
		t->completing = 1;
	}
	set_str(&t->kill_state, final_state);
	t->kill_sig = sig;
	t->kill_time = now;
	if (fake_task_save(st, t) != 0)
		return -1;
	if (t->sup_pid > 0)
		kill((pid_t)t->sup_pid, SIGUSR1);
	return 0;
}

/* The job's largest process by resident memory, as the cgroup OOM killer
 * picks it: among the members of the job's process group and all their
 * descendants (a cgroup holds those too, e.g. the command sbagent runs in a
 * process group of its own). */
long fake_largest_in_pgrp(long pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	struct pinfo { long pid, ppid, pg, rss; int in; } *v = NULL;
	size_t n = 0, cap = 0, i;
	long best = pgid, best_rss = -1;
	int changed;

	if (!d)
		return pgid;
	while ((e = readdir(d)) != NULL) {
		char path[300], buf[1024], *p, st_c;
		long pid = atol(e->d_name), ppid, pg, rss_pages;
		unsigned long vsize;
		FILE *f;
		size_t got;
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		got = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[got] = '\0';
		p = strrchr(buf, ')');
		if (!p)
			continue;
		/* fields after ')': state ppid pgrp session ... rss is field 24 */
		if (sscanf(p + 2, "%c %ld %ld %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %*u %lu %ld",
			   &st_c, &ppid, &pg, &vsize, &rss_pages) != 5)
			continue;
		if (n == cap) {
			struct pinfo *nv;
			cap = cap ? cap * 2 : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n].pid = pid;
		v[n].ppid = ppid;
		v[n].pg = pg;
		v[n].rss = rss_pages;
		v[n].in = pg == pgid;
		n++;
	}
	closedir(d);
	do {
		changed = 0;
		for (i = 0; i < n; i++) {
			size_t k;
			if (v[i].in)
				continue;
			for (k = 0; k < n; k++)
				if (v[k].in && v[k].pid == v[i].ppid) {
					v[i].in = 1;
					changed = 1;
					break;
				}
		}
	} while (changed);
	for (i = 0; i < n; i++)
		if (v[i].in && v[i].rss > best_rss) {
			best_rss = v[i].rss;
			best = v[i].pid;
		}
	free(v);
	return best;
}

/* ---------------- the supervisor ---------------- */

struct sup {
	long array_id, task_id;
	int restarts;
	pid_t child;
	long raw_id;
	double start;
	long limit;
	int sig, sig_time, sig_batch;
	char errpath[PATH_MAX];
};

static int env_add(char ***env, size_t *n, size_t *cap, const char *name, const char *val)
{
	size_t len = strlen(name), i;
	char *kv;

	if (*n + 2 > *cap) {
		size_t nc = *cap ? *cap * 2 : 128;
		char **ne = realloc(*env, nc * sizeof(*ne));
		if (!ne)
			return -1;
		*env = ne;
		*cap = nc;
	}
	kv = malloc(len + strlen(val) + 2);
	if (!kv)
		return -1;
	sprintf(kv, "%s=%s", name, val);
	for (i = 0; i < *n; i++) {
		if (!strncmp((*env)[i], name, len) && (*env)[i][len] == '=') {
			free((*env)[i]);
			(*env)[i] = kv;
			return 0;
		}
	}
	(*env)[(*n)++] = kv;
	(*env)[*n] = NULL;
	return 0;
}

static char **build_env(struct fake_state *st, const struct fake_task *t)
{
	const struct fake_job *j = t->job;
	char path[PATH_MAX], num[64], *data = NULL;
	char **env = NULL;
	size_t n = 0, cap = 0, len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/jobs/%ld/environment", st->dir, j->id);
	f = fopen(path, "rb");
	if (f) {
		struct stat sb;
		/* bounded like sbatch's own environment (ARG_MAX-sized) */
		size_t size = fstat(fileno(f), &sb) == 0 && sb.st_size > 0 &&
			      sb.st_size < (16 << 20) ? (size_t)sb.st_size : 0;
		data = malloc(size + 1);
		if (data) {
			len = fread(data, 1, size, f);
			data[len] = '\0';
		}
		fclose(f);
	}
	for (size_t off = 0; data && off < len;) {
		char *kv = data + off, *eq = strchr(kv, '=');
		size_t kl = strlen(kv);
		if (eq && eq != kv) {
			*eq = '\0';
			env_add(&env, &n, &cap, kv, eq + 1);
		}
		off += kl + 1;
	}
	free(data);
#define SETN(name, v) do { snprintf(num, sizeof(num), "%ld", (long)(v)); env_add(&env, &n, &cap, name, num); } while (0)
	SETN("SLURM_JOB_ID", t->raw_id);
	SETN("SLURM_JOBID", t->raw_id);
	if (j->is_array) {
		SETN("SLURM_ARRAY_JOB_ID", j->id);
		SETN("SLURM_ARRAY_TASK_ID", t->task_id);
		SETN("SLURM_ARRAY_TASK_COUNT", j->task_count);
		SETN("SLURM_ARRAY_TASK_MIN", j->task_min);
		SETN("SLURM_ARRAY_TASK_MAX", j->task_max);
		SETN("SLURM_ARRAY_TASK_STEP", j->task_step);
	}
	env_add(&env, &n, &cap, "SLURM_JOB_NAME", j->name);
	if (t->restarts > 0)  /* like slurmstepd: only once the job has been restarted */
		SETN("SLURM_RESTART_COUNT", t->restarts);
	env_add(&env, &n, &cap, "SLURM_SUBMIT_DIR", j->submit_dir);
	env_add(&env, &n, &cap, "SLURM_SUBMIT_HOST", fake_nodename());
	env_add(&env, &n, &cap, "SLURM_JOB_NODELIST", fake_nodename());
	env_add(&env, &n, &cap, "SLURM_NODELIST", fake_nodename());
	env_add(&env, &n, &cap, "SLURMD_NODENAME", fake_nodename());
	env_add(&env, &n, &cap, "SLURM_TOPOLOGY_ADDR", fake_nodename());
	env_add(&env, &n, &cap, "SLURM_TOPOLOGY_ADDR_PATTERN", "node");
	env_add(&env, &n, &cap, "SLURM_JOB_NUM_NODES", "1");
	env_add(&env, &n, &cap, "SLURM_NNODES", "1");
	env_add(&env, &n, &cap, "SLURM_NODEID", "0");
	env_add(&env, &n, &cap, "SLURM_PROCID", "0");
	env_add(&env, &n, &cap, "SLURM_LOCALID", "0");
	env_add(&env, &n, &cap, "SLURM_GTIDS", "0");
	env_add(&env, &n, &cap, "SLURM_CLUSTER_NAME", fake_cluster());
	env_add(&env, &n, &cap, "SLURM_JOB_PARTITION", j->partition);
	env_add(&env, &n, &cap, "SLURM_JOB_USER", j->user);
	SETN("SLURM_JOB_UID", j->uid);
	SETN("SLURM_JOB_GID", j->gid);
	SETN("SLURM_JOB_CPUS_PER_NODE", j->cpus);
	SETN("SLURM_CPUS_ON_NODE", j->cpus);
	if (j->account && *j->account)
		env_add(&env, &n, &cap, "SLURM_JOB_ACCOUNT", j->account);
	env_add(&env, &n, &cap, "SLURM_JOB_QOS", "normal");
	env_add(&env, &n, &cap, "ENVIRONMENT", "BATCH");
	env_add(&env, &n, &cap, "HOSTNAME", fake_nodename());
	env_add(&env, &n, &cap, "SLURM_TASKS_PER_NODE", "1");
	if (j->cpus > 1)
		SETN("SLURM_CPUS_PER_TASK", j->cpus);
	env_add(&env, &n, &cap, "SLURM_CONF", "/etc/slurm/slurm.conf");
	env_add(&env, &n, &cap, "SB_FAKE_SLURM_DIR", st->dir);
#undef SETN
	if (!env) {
		env = calloc(1, sizeof(*env));
	}
	return env;
}

/* SB_FAKE_NODE_MNTNS: a mount namespace file (/proc/PID/ns/mnt) the job
 * enters before anything else, so that it sees the file systems of a
 * "compute node" (tests/storage/ runs jobs through a network file system
 * client of their own); NULL when unset. */
static const char *fake_node_mntns(void)
{
	const char *s = getenv("SB_FAKE_NODE_MNTNS");

	return (s && *s) ? s : NULL;
}

/* Enters the mount namespace named by path; 0, or -1 with a message in msg. */
static int enter_node_mntns(const char *path, char *msg, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setns(fd, CLONE_NEWNS) != 0) {
		snprintf(msg, len, "slurmstepd-%s: error: cannot enter the node's mount namespace %s (SB_FAKE_NODE_MNTNS): %s\n",
			 fake_nodename(), path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static pid_t start_job(struct fake_state *st, struct fake_task *t, struct sup *s)
{
	const struct fake_job *j = t->job;
	char script[PATH_MAX], outp[PATH_MAX], errp[PATH_MAX], chdir_msg[PATH_MAX + 128];
	char ns_msg[PATH_MAX + 128];
	const char *mntns = fake_node_mntns();
	char *argvbuf, *argv_list[258];
	char **env;
	int argc = 0, ofd, efd, flags;
	pid_t pid;

	snprintf(script, sizeof(script), "%s/jobs/%ld/slurm_script", st->dir, j->id);
	fake_expand_pattern(j->out, j, t, outp, sizeof(outp));
	fake_expand_pattern(j->err && *j->err ? j->err : j->out, j, t, errp, sizeof(errp));
	env = build_env(st, t);
	argvbuf = fake_xstrdup(j->argv ? j->argv : "");
	argv_list[argc++] = script;
	for (char *p = argvbuf, *q; *p && argc < 256; p = q + 1) {
		q = strchr(p, '\x1f');
		if (!q) {
			argv_list[argc++] = p;
			break;
		}
		*q = '\0';
		argv_list[argc++] = p;
	}
	argv_list[argc] = NULL;
	chdir_msg[0] = '\0';
	ns_msg[0] = '\0';

	pid = fork();
	if (pid < 0) {
		free(argvbuf);
		return -1;
	}
	if (pid == 0) {
		sigset_t none;
		int sig;
		setpgid(0, 0);
		for (sig = 1; sig < 32; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				signal(sig, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* the node's file systems first: the working directory and the
		 * output files are looked up there.  If it cannot be entered the
		 * job fails (exit 1) before its script runs, with the reason in
		 * its stderr file as seen from here, the only place left to say it. */
		if (mntns)
			enter_node_mntns(mntns, ns_msg, sizeof(ns_msg));
		if (chdir(j->workdir) != 0) {
			snprintf(chdir_msg, sizeof(chdir_msg),
				 "slurmstepd-%s: error: couldn't chdir to `%s': %s: going to /tmp instead\n",
				 fake_nodename(), j->workdir, strerror(errno));
			if (chdir("/tmp") != 0)
				_exit(1);
		}
		flags = O_WRONLY | O_CREAT | (t->restarts > 0 || j->open_append ? O_APPEND : O_TRUNC);
		ofd = open(outp, flags, 0644);
		if (ofd < 0)
			_exit(1);
		if (strcmp(outp, errp) == 0) {
			efd = ofd;
		} else {
			efd = open(errp, flags, 0644);
			if (efd < 0)
				_exit(1);
		}
		/* like slurmstepd's writes, ours (the OOM notice) must not be
		 * overwritten: every writer appends */
		fcntl(ofd, F_SETFL, fcntl(ofd, F_GETFL) | O_APPEND);
		fcntl(efd, F_SETFL, fcntl(efd, F_GETFL) | O_APPEND);
		int nfd = open("/dev/null", O_RDONLY);
		if (nfd < 0 || dup2(nfd, 0) < 0 || dup2(ofd, 1) < 0 || dup2(efd, 2) < 0)
			_exit(1);
		close_from(3);
		if (ns_msg[0]) {
			fake_write_all(2, ns_msg, strlen(ns_msg));
			_exit(1);
		}
		if (chdir_msg[0])
			fake_write_all(2, chdir_msg, strlen(chdir_msg));
		execve(script, argv_list, env);
		dprintf(2, "slurmstepd-%s: error: execve(): %s: %s\n", fake_nodename(), script, strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	setpgid(pid, pid);
	s->child = pid;
	if (errp[0] == '/')
		snprintf(s->errpath, sizeof(s->errpath), "%s", errp);
	else
		if ((size_t)snprintf(s->errpath, sizeof(s->errpath), "%s/%s", j->workdir, errp) >= sizeof(s->errpath))
			s->errpath[0] = '\0';
	free(argvbuf);
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
	return pid;
}

/* Opens the store and finds our task; NULL when it is no longer ours. */
static struct fake_task *sup_reload(struct fake_state *st, const struct sup *s)
{
	struct fake_task *t;

	if (fake_open(st) != 0 || fake_load(st) != 0)
		return NULL;
	t = fake_find_task(st, s->array_id, s->task_id);
	if (!t || t->restarts != s->restarts || t->sup_pid != (long)getpid())
		return NULL;
	return t;
}

static void append_line(const char *path, const char *line)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);

	if (fd >= 0) {
		fake_write_all(fd, line, strlen(line));
		close(fd);
	}
}

/* slurmstepd's notice in the job's stderr when it kills the job, as Slurm
 * 22.05 wrote it: "slurmstepd-vm: error: *** JOB 4 ON vm CANCELLED AT
 * 2026-11-30T13:39:45 DUE TO TIME LIMIT ***" (JOB: the raw id) */
static void cancel_notice(const struct sup *s, const char *why)
{
	char line[512], tb[64];

	if (!s->errpath[0])
		return;
	fake_fmt_time(fake_now(), tb, sizeof(tb));
	snprintf(line, sizeof(line), "slurmstepd-%s: error: *** JOB %ld ON %s CANCELLED AT %s%s ***\n",
		 fake_nodename(), s->raw_id, fake_nodename(), tb, why);
	append_line(s->errpath, line);
}

int fake_supervise_main(int argc, char **argv)
{
	struct fake_state st;
	struct fake_task *t;
	struct sup s;
	sigset_t set;
	double killwait = fake_killwait(), kill_at = 0, handled_kill = 0;
	int status = -1, oom = 0, sig_sent = 0, timed_out = 0, killing = 0;

	fake_set_prog("sbfake-supervise");
	if (argc != 4)
		return 2;
	memset(&s, 0, sizeof(s));
	s.array_id = atol(argv[1]);
	s.task_id = atol(argv[2]);
	s.restarts = atoi(argv[3]);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (chdir("/") != 0) {
		/* keep no directory of the caller busy; the job gets its own */
	}

	t = sup_reload(&st, &s);
	if (!t || strcmp(t->state, "RUNNING") != 0) {
		fake_close(&st);
		return 1;
	}
	s.start = t->start;
	s.raw_id = t->raw_id;
	s.limit = t->job->time_limit;
	s.sig = t->job->sig;
	s.sig_time = t->job->sig_time;
	s.sig_batch = t->job->sig_batch;
	if (start_job(&st, t, &s) < 0) {
		fake_close(&st);
		return 1;
	}
	t->pgid = s.child;
	if (fake_task_save(&st, t) != 0 || fake_commit(&st) != 0) {
		kill(-s.child, SIGKILL);
		fake_close(&st);
		return 1;
	}
	fake_close(&st);

	for (;;) {
		double now = fake_now(), next = now + 3600;
		struct timespec ts;
		siginfo_t si;
		int w, r;

		w = waitpid(s.child, &r, WNOHANG);
		if (w == s.child) {
			status = r;
			break;
		}
		if (s.limit > 0 && !timed_out && !killing && now >= s.start + s.limit) {
			timed_out = 1;
			t = sup_reload(&st, &s);
			if (t && !strcmp(t->state, "RUNNING")) {
				fake_request_kill(&st, t, "TIMEOUT", SIGTERM);
				/* we are the supervisor: no wake-up needed */
				fake_commit(&st);
			}
			fake_close(&st);
			cancel_notice(&s, " DUE TO TIME LIMIT");
			kill(-s.child, SIGCONT);
			kill(-s.child, SIGTERM);
			killing = 1;
			kill_at = now + killwait;
			handled_kill = fake_now();
		}
		if (s.sig > 0 && !sig_sent && s.limit > 0 && now >= s.start + s.limit - s.sig_time) {
			sig_sent = 1;
			/* like Slurm: without B: the signal goes to job steps only,
			 * and a batch job run by the fake has none */
			if (s.sig_batch)
				kill(s.child, s.sig);
		}
		if (killing && kill_at > 0 && now >= kill_at) {
			kill(-s.child, SIGKILL);
			kill_at = 0;
		}
		/* next wake-up */
		if (s.limit > 0 && !timed_out && s.start + s.limit < next)
			next = s.start + s.limit;
		if (s.sig > 0 && !sig_sent && s.limit > 0 && s.start + s.limit - s.sig_time < next)
			next = s.start + s.limit - s.sig_time;
		if (kill_at > 0 && kill_at < next)
			next = kill_at;
		if (next < now)
			next = now;
		if (next - now > 1.0)
			next = now + 1.0;  /* also a cheap safety net for lost wake-ups */
		ts.tv_sec = (time_t)(next - now);
		ts.tv_nsec = (long)((next - now - (double)ts.tv_sec) * 1e9);
		if (ts.tv_nsec < 1000000 && ts.tv_sec == 0)
			ts.tv_nsec = 1000000;
		r = sigtimedwait(&set, &si, &ts);
		if (r == SIGUSR1) {
			t = sup_reload(&st, &s);
			if (t && t->kill_state && t->kill_time > handled_kill) {
				handled_kill = t->kill_time;
				if (!strcmp(t->kill_state, "OUT_OF_MEMORY")) {
					long victim = fake_largest_in_pgrp(s.child);
					/* slurmstepd's notice comes when the step ends */
					oom = 1;
					kill((pid_t)victim, SIGKILL);
				} else {
					if (!strncmp(t->kill_state, "CANCELLED", 9))
						cancel_notice(&s, "");
					killing = 1;
					kill(-s.child, SIGCONT);
					kill(-s.child, t->kill_sig ? t->kill_sig : SIGTERM);
					if (t->kill_sig != SIGKILL)
						kill_at = fake_now() + killwait;
				}
			}
			fake_close(&st);
		}
	}

	/* the batch script is gone: nothing of the job may outlive it */
	kill(-s.child, SIGKILL);
	if (oom) {
		/* as slurmstepd writes it, at the end of the step (so after what
		 * the script printed about its killed child) */
		char line[512];
		snprintf(line, sizeof(line),
			 "slurmstepd-%s: error: Detected 1 oom-kill event(s) in StepId=%ld.batch. "
			 "Some of your processes may have been killed by the cgroup out-of-memory handler.\n",
			 fake_nodename(), s.raw_id);
		append_line(s.errpath, line);
	}
	t = sup_reload(&st, &s);
	if (!t) {
		fake_close(&st);
		return 0;
	}
	t->status = status;
	if (!strcmp(t->state, "RUNNING")) {
		char ec[32];
		const char *state;
		if (oom || (t->kill_state && !strcmp(t->kill_state, "OUT_OF_MEMORY"))) {
			state = "OUT_OF_MEMORY";
			snprintf(ec, sizeof(ec), "0:125");
		} else {
			fake_exitcode_of_status(status, ec, sizeof(ec));
			state = (WIFEXITED(status) && WEXITSTATUS(status) == 0) ? "COMPLETED" : "FAILED";
		}
		t->end = fake_now();
		set_str(&t->state, state);
		if (!t->lost)
			fake_acct_record(&st, t, state, ec);
		t->completing = 0;
		t->sup_pid = 0;
	} else if (!strcmp(t->state, "REQUEUED")) {
		/* the run's batch step ended now */
		char how[64] = "REQUEUED";
		/* "PREEMPTED+REQUEUE", "NODE_FAIL+REQUEUE": the run ended as X */
		if (t->kill_state && strstr(t->kill_state, "+REQUEUE"))
			snprintf(how, sizeof(how), "%.*s", (int)(strstr(t->kill_state, "+REQUEUE") - t->kill_state),
				 t->kill_state);
		if (!t->lost)
			fake_acct_record(&st, t, how, "0:0");
		fake_requeue_task(&st, t);
	} else {
		char ec[32];
		snprintf(ec, sizeof(ec), "0:0");
		if (!t->lost)
			fake_acct_record(&st, t, t->state, ec);
		t->completing = 0;
		t->sup_pid = 0;
	}
	if (fake_task_save(&st, t) == 0)
		fake_schedule(&st);
	fake_commit(&st);
	fake_close(&st);
	return 0;
}

int fake_open_scheduled(struct fake_state *st)
{
	if (fake_open(st) != 0 || fake_replay_sync(st) < 0 || fake_load(st) != 0 ||
	    fake_schedule(st) != 0 || fake_commit(st) != 0) {
		fake_close(st);
		return -1;
	}
	return 0;
}
