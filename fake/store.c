/* The fake Slurm's state store: one SQLite database per $SB_FAKE_SLURM_DIR.
 *
 * Why SQLite rather than fcntl-locked text files: every command needs a
 * consistent read-modify-write of the whole queue (scheduling pass, id
 * allocation), and BEGIN IMMEDIATE gives exactly that, across processes,
 * with a busy timeout instead of hand-written retry loops; a crash in the
 * middle of a command rolls back instead of leaving a half-written file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake/store.h"
#include "fake/util.h"

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT);"
	"CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY, is_array INT, throttle INT,"
	" array_spec TEXT, name TEXT, comment TEXT, workdir TEXT, submit_dir TEXT, out TEXT,"
	" err TEXT, dep TEXT, partition TEXT, account TEXT, user TEXT, export_spec TEXT,"
	" argv TEXT, time_limit INT, sig INT, sig_time INT, sig_batch INT, cpus INT,"
	" requeue INT, submit REAL, uid INT, gid INT, task_min INT, task_max INT,"
	" task_count INT, task_step INT, open_append INT DEFAULT 0);"
	"CREATE TABLE IF NOT EXISTS tasks(array_id INT, task_id INT, raw_id INT, state TEXT,"
	" reason TEXT, completing INT, restarts INT, begin REAL, start REAL, end REAL,"
	" status INT, sup_pid INT, pgid INT, kill_state TEXT, kill_sig INT, kill_time REAL,"
	" lost INT, lie TEXT, lag REAL, cancelled_pending INT,"
	" PRIMARY KEY(array_id, task_id));"
	"CREATE TABLE IF NOT EXISTS acct(seq INTEGER PRIMARY KEY AUTOINCREMENT, array_id INT,"
	" task_id INT, raw_id INT, restart INT, state TEXT, exitcode TEXT, start REAL,"
	" end REAL, t REAL, vis REAL, step_status INT DEFAULT -1, step_end REAL DEFAULT 0);"
	"CREATE INDEX IF NOT EXISTS acct_task ON acct(array_id, task_id);";

int fake_exec(struct fake_state *st, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "%s: error: fake state store: %s\n", fake_prog(),
			msg ? msg : "unknown error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int fake_open(struct fake_state *st)
{
	const char *dir = getenv("SB_FAKE_SLURM_DIR");
	char path[3200];

	memset(st, 0, sizeof(*st));
	if (!dir || !*dir) {
		fprintf(stderr, "%s: error: SB_FAKE_SLURM_DIR is not set (the fake Slurm keeps its state there)\n",
			fake_prog());
		return -1;
	}
	if (strlen(dir) >= sizeof(st->dir) - 64) {
		fprintf(stderr, "%s: error: SB_FAKE_SLURM_DIR is too long\n", fake_prog());
		return -1;
	}
	snprintf(st->dir, sizeof(st->dir), "%s", dir);
	if (fake_mkdir_p(st->dir, 0700) != 0) {
		fprintf(stderr, "%s: error: cannot create '%s': %s\n", fake_prog(), st->dir,
			strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/state.db", st->dir);
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		fprintf(stderr, "%s: error: cannot open '%s': %s\n", fake_prog(), path,
			st->db ? sqlite3_errmsg(st->db) : "out of memory");
		sqlite3_close(st->db);
		st->db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(st->db, 60000);
	if (fake_exec(st, "PRAGMA synchronous=NORMAL") != 0 ||
	    fake_exec(st, "BEGIN IMMEDIATE") != 0 || fake_exec(st, schema) != 0) {
		sqlite3_close(st->db);
		st->db = NULL;
		return -1;
	}
	/* columns added after the first version: fails harmlessly when present */
	sqlite3_exec(st->db, "ALTER TABLE jobs ADD COLUMN open_append INT DEFAULT 0", NULL, NULL, NULL);
	sqlite3_exec(st->db, "ALTER TABLE acct ADD COLUMN step_status INT DEFAULT -1", NULL, NULL, NULL);
	sqlite3_exec(st->db, "ALTER TABLE acct ADD COLUMN step_end REAL DEFAULT 0", NULL, NULL, NULL);
	st->now = fake_now();
	return 0;
}

int fake_commit(struct fake_state *st)
{
	return fake_exec(st, "COMMIT");
}

void fake_close(struct fake_state *st)
{
	if (!st)
		return;
	fake_free_loaded(st);
	if (st->db) {
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close(st->db);
		st->db = NULL;
	}
}

static char *col_str(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? fake_xstrdup((const char *)t) : NULL;
}

static sqlite3_stmt *prep(struct fake_state *st, const char *sql)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		fprintf(stderr, "%s: error: fake state store: %s\n", fake_prog(), sqlite3_errmsg(st->db));
		return NULL;
	}
	return s;
}

static int step_done(struct fake_state *st, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		fprintf(stderr, "%s: error: fake state store: %s\n", fake_prog(), sqlite3_errmsg(st->db));
		return -1;
	}
	return 0;
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

char *fake_meta_get(struct fake_state *st, const char *key)
{
	sqlite3_stmt *s = prep(st, "SELECT v FROM meta WHERE k=?");
	char *r = NULL;

	if (!s)
		return NULL;
	bind_text(s, 1, key);
	if (sqlite3_step(s) == SQLITE_ROW)
		r = col_str(s, 0);
	sqlite3_finalize(s);
	return r;
}

int fake_meta_set(struct fake_state *st, const char *key, const char *val)
{
	sqlite3_stmt *s;

	if (!val) {
		s = prep(st, "DELETE FROM meta WHERE k=?");
		if (!s)
			return -1;
		bind_text(s, 1, key);
		return step_done(st, s);
	}
	s = prep(st, "INSERT OR REPLACE INTO meta(k, v) VALUES(?, ?)");
	if (!s)
		return -1;
	bind_text(s, 1, key);
	bind_text(s, 2, val);
	return step_done(st, s);
}

long fake_next_id(struct fake_state *st)
{
	char *v = fake_meta_get(st, "next_id");
	long id = v ? atol(v) : fake_env_long("SB_FAKE_FIRST_JOB_ID", 1000);
	char buf[32];

	free(v);
	if (id < 1)
		id = 1;
	snprintf(buf, sizeof(buf), "%ld", id + 1);
	if (fake_meta_set(st, "next_id", buf) != 0)
		return -1;
	return id;
}

static int cmp_job(const void *a, const void *b)
{
	long x = ((const struct fake_job *)a)->id, y = ((const struct fake_job *)b)->id;

	return (x > y) - (x < y);
}

struct fake_job *fake_find_job(struct fake_state *st, long id)
{
	struct fake_job key;

	key.id = id;
	if (!st->njobs)
		return NULL;
	return bsearch(&key, st->jobs, st->njobs, sizeof(key), cmp_job);
}

struct fake_task *fake_find_task(struct fake_state *st, long array_id, long task_id)
{
	size_t lo = 0, hi = st->ntasks;

	/* tasks are loaded sorted by (array_id, task_id) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fake_task *t = &st->tasks[mid];
		if (t->array_id < array_id || (t->array_id == array_id && t->task_id < task_id))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < st->ntasks && st->tasks[lo].array_id == array_id && st->tasks[lo].task_id == task_id)
		return &st->tasks[lo];
	return NULL;
}

int fake_load(struct fake_state *st)
{
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc;

	fake_free_loaded(st);
	s = prep(st, "SELECT id, is_array, throttle, array_spec, name, comment, workdir,"
		 " submit_dir, out, err, dep, partition, account, user, export_spec, argv,"
		 " time_limit, sig, sig_time, sig_batch, cpus, requeue, submit, uid, gid,"
		 " task_min, task_max, task_count, task_step, open_append FROM jobs ORDER BY id");
	if (!s)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fake_job *j;
		if (st->njobs == cap) {
			cap = cap ? cap * 2 : 64;
			struct fake_job *n = realloc(st->jobs, cap * sizeof(*n));
			if (!n) {
				sqlite3_finalize(s);
				return -1;
			}
			st->jobs = n;
		}
		j = &st->jobs[st->njobs++];
		memset(j, 0, sizeof(*j));
		j->id = sqlite3_column_int64(s, 0);
		j->is_array = sqlite3_column_int(s, 1);
		j->throttle = sqlite3_column_int(s, 2);
		j->array_spec = col_str(s, 3);
		j->name = col_str(s, 4);
		j->comment = col_str(s, 5);
		j->workdir = col_str(s, 6);
		j->submit_dir = col_str(s, 7);
		j->out = col_str(s, 8);
		j->err = col_str(s, 9);
		j->dep = col_str(s, 10);
		j->partition = col_str(s, 11);
		j->account = col_str(s, 12);
		j->user = col_str(s, 13);
		j->export_spec = col_str(s, 14);
		j->argv = col_str(s, 15);
		j->time_limit = sqlite3_column_int64(s, 16);
		j->sig = sqlite3_column_int(s, 17);
		j->sig_time = sqlite3_column_int(s, 18);
		j->sig_batch = sqlite3_column_int(s, 19);
		j->cpus = sqlite3_column_int(s, 20);
		j->requeue = sqlite3_column_int(s, 21);
		j->submit = sqlite3_column_double(s, 22);
		j->uid = sqlite3_column_int(s, 23);
		j->gid = sqlite3_column_int(s, 24);
		j->task_min = sqlite3_column_int(s, 25);
		j->task_max = sqlite3_column_int(s, 26);
		j->task_count = sqlite3_column_int(s, 27);
		j->task_step = sqlite3_column_int(s, 28);
		j->open_append = sqlite3_column_int(s, 29);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return -1;

	cap = 0;
	s = prep(st, "SELECT array_id, task_id, raw_id, state, reason, completing, restarts,"
		 " begin, start, end, status, sup_pid, pgid, kill_state, kill_sig, kill_time,"
		 " lost, lie, lag, cancelled_pending FROM tasks ORDER BY array_id, task_id");
	if (!s)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fake_task *t;
		if (st->ntasks == cap) {
			cap = cap ? cap * 2 : 256;
			struct fake_task *n = realloc(st->tasks, cap * sizeof(*n));
			if (!n) {
				sqlite3_finalize(s);
				return -1;
			}
			st->tasks = n;
		}
		t = &st->tasks[st->ntasks++];
		memset(t, 0, sizeof(*t));
		t->array_id = sqlite3_column_int64(s, 0);
		t->task_id = sqlite3_column_int64(s, 1);
		t->raw_id = sqlite3_column_int64(s, 2);
		t->state = col_str(s, 3);
		t->reason = col_str(s, 4);
		t->completing = sqlite3_column_int(s, 5);
		t->restarts = sqlite3_column_int(s, 6);
		t->begin = sqlite3_column_double(s, 7);
		t->start = sqlite3_column_double(s, 8);
		t->end = sqlite3_column_double(s, 9);
		t->status = sqlite3_column_int(s, 10);
		t->sup_pid = sqlite3_column_int64(s, 11);
		t->pgid = sqlite3_column_int64(s, 12);
		t->kill_state = col_str(s, 13);
		t->kill_sig = sqlite3_column_int(s, 14);
		t->kill_time = sqlite3_column_double(s, 15);
		t->lost = sqlite3_column_int(s, 16);
		t->lie = col_str(s, 17);
		t->lag = sqlite3_column_double(s, 18);
		t->cancelled_pending = sqlite3_column_int(s, 19);
		t->job = fake_find_job(st, t->array_id);
		if (!t->state)
			t->state = fake_xstrdup("PENDING");
		if (!t->reason)
			t->reason = fake_xstrdup("None");
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return -1;
	for (size_t i = 0; i < st->ntasks; i++)
		if (!st->tasks[i].job) {
			fprintf(stderr, "%s: error: fake state store is inconsistent (task of unknown job %ld)\n",
				fake_prog(), st->tasks[i].array_id);
			return -1;
		}
	return 0;
}

void fake_free_loaded(struct fake_state *st)
{
	size_t i;

	for (i = 0; i < st->njobs; i++) {
		struct fake_job *j = &st->jobs[i];
		free(j->array_spec); free(j->name); free(j->comment); free(j->workdir);
		free(j->submit_dir); free(j->out); free(j->err); free(j->dep);
		free(j->partition); free(j->account); free(j->user); free(j->export_spec);
		free(j->argv);
	}
	for (i = 0; i < st->ntasks; i++) {
		struct fake_task *t = &st->tasks[i];
		free(t->state); free(t->reason); free(t->kill_state); free(t->lie);
	}
	free(st->jobs);
	free(st->tasks);
	st->jobs = NULL;
	st->tasks = NULL;
	st->njobs = st->ntasks = 0;
}

int fake_job_insert(struct fake_state *st, const struct fake_job *j)
{
	sqlite3_stmt *s = prep(st, "INSERT INTO jobs(id, is_array, throttle, array_spec, name,"
		" comment, workdir, submit_dir, out, err, dep, partition, account, user, export_spec,"
		" argv, time_limit, sig, sig_time, sig_batch, cpus, requeue, submit, uid, gid,"
		" task_min, task_max, task_count, task_step, open_append) VALUES(?,?,?,?,?,?,?,?,?,?,"
		"?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, j->id);
	sqlite3_bind_int(s, 2, j->is_array);
	sqlite3_bind_int(s, 3, j->throttle);
	bind_text(s, 4, j->array_spec);
	bind_text(s, 5, j->name);
	bind_text(s, 6, j->comment);
	bind_text(s, 7, j->workdir);
	bind_text(s, 8, j->submit_dir);
	bind_text(s, 9, j->out);
	bind_text(s, 10, j->err);
	bind_text(s, 11, j->dep);
	bind_text(s, 12, j->partition);
	bind_text(s, 13, j->account);
	bind_text(s, 14, j->user);
	bind_text(s, 15, j->export_spec);
	bind_text(s, 16, j->argv);
	sqlite3_bind_int64(s, 17, j->time_limit);
	sqlite3_bind_int(s, 18, j->sig);
	sqlite3_bind_int(s, 19, j->sig_time);
	sqlite3_bind_int(s, 20, j->sig_batch);
	sqlite3_bind_int(s, 21, j->cpus);
	sqlite3_bind_int(s, 22, j->requeue);
	sqlite3_bind_double(s, 23, j->submit);
	sqlite3_bind_int(s, 24, j->uid);
	sqlite3_bind_int(s, 25, j->gid);
	sqlite3_bind_int(s, 26, j->task_min);
	sqlite3_bind_int(s, 27, j->task_max);
	sqlite3_bind_int(s, 28, j->task_count);
	sqlite3_bind_int(s, 29, j->task_step);
	sqlite3_bind_int(s, 30, j->open_append);
	return step_done(st, s);
}

static int task_bind_write(struct fake_state *st, const struct fake_task *t, const char *sql)
{
	sqlite3_stmt *s = prep(st, sql);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, t->raw_id);
	bind_text(s, 2, t->state);
	bind_text(s, 3, t->reason);
	sqlite3_bind_int(s, 4, t->completing);
	sqlite3_bind_int(s, 5, t->restarts);
	sqlite3_bind_double(s, 6, t->begin);
	sqlite3_bind_double(s, 7, t->start);
	sqlite3_bind_double(s, 8, t->end);
	sqlite3_bind_int(s, 9, t->status);
	sqlite3_bind_int64(s, 10, t->sup_pid);
	sqlite3_bind_int64(s, 11, t->pgid);
	bind_text(s, 12, t->kill_state);
	sqlite3_bind_int(s, 13, t->kill_sig);
	sqlite3_bind_double(s, 14, t->kill_time);
	sqlite3_bind_int(s, 15, t->lost);
	bind_text(s, 16, t->lie);
	sqlite3_bind_double(s, 17, t->lag);
	sqlite3_bind_int(s, 18, t->cancelled_pending);
	sqlite3_bind_int64(s, 19, t->array_id);
	sqlite3_bind_int64(s, 20, t->task_id);
	return step_done(st, s);
}

int fake_task_save(struct fake_state *st, const struct fake_task *t)
{
	return task_bind_write(st, t, "UPDATE tasks SET raw_id=?, state=?, reason=?, completing=?,"
		" restarts=?, begin=?, start=?, end=?, status=?, sup_pid=?, pgid=?, kill_state=?,"
		" kill_sig=?, kill_time=?, lost=?, lie=?, lag=?, cancelled_pending=?"
		" WHERE array_id=? AND task_id=?");
}

int fake_task_insert(struct fake_state *st, const struct fake_task *t)
{
	return task_bind_write(st, t, "INSERT INTO tasks(raw_id, state, reason, completing,"
		" restarts, begin, start, end, status, sup_pid, pgid, kill_state, kill_sig,"
		" kill_time, lost, lie, lag, cancelled_pending, array_id, task_id)"
		" VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
}

int fake_acct_record(struct fake_state *st, const struct fake_task *t,
		     const char *state, const char *exitcode)
{
	sqlite3_stmt *s;
	char *g = fake_meta_get(st, "lag");
	double lag = g ? atof(g) : 0, now = fake_now();

	free(g);
	if (t->lag > lag)
		lag = t->lag;
	s = prep(st, "INSERT INTO acct(array_id, task_id, raw_id, restart, state, exitcode,"
		 " start, end, t, vis, step_status, step_end) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, t->array_id);
	sqlite3_bind_int64(s, 2, t->task_id);
	sqlite3_bind_int64(s, 3, t->raw_id);
	sqlite3_bind_int(s, 4, t->restarts);
	bind_text(s, 5, state);
	bind_text(s, 6, exitcode ? exitcode : "0:0");
	sqlite3_bind_double(s, 7, t->start);
	sqlite3_bind_double(s, 8, t->end);
	sqlite3_bind_double(s, 9, now);
	sqlite3_bind_double(s, 10, now + lag);
	sqlite3_bind_int(s, 11, t->status);
	sqlite3_bind_double(s, 12, t->status >= 0 ? now : 0);
	return step_done(st, s);
}

int fake_acct_forget(struct fake_state *st, const struct fake_task *t)
{
	sqlite3_stmt *s = prep(st, "DELETE FROM acct WHERE array_id=? AND task_id=?");

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, t->array_id);
	sqlite3_bind_int64(s, 2, t->task_id);
	return step_done(st, s);
}

int fake_task_is_ended(const struct fake_task *t)
{
	return strcmp(t->state, "PENDING") != 0 && strcmp(t->state, "RUNNING") != 0 &&
	       strcmp(t->state, "REQUEUED") != 0;
}

int fake_task_is_active(const struct fake_task *t)
{
	return !strcmp(t->state, "RUNNING") || t->completing;
}

size_t fake_match_id(struct fake_state *st, const char *spec, char *marks)
{
	char *end;
	long a, task = -2;
	size_t i, n = 0;

	errno = 0;
	a = strtol(spec, &end, 10);
	if (errno || end == spec || a < 0)
		return 0;
	if (*end == '_') {
		char *e2;
		task = strtol(end + 1, &e2, 10);
		if (e2 == end + 1 || *e2 || task < 0)
			return 0;
	} else if (*end && *end != '.') {
		return 0;
	}
	for (i = 0; i < st->ntasks; i++) {
		struct fake_task *t = &st->tasks[i];
		int hit;
		if (task >= 0)
			hit = t->array_id == a && t->task_id == task;
		else
			hit = t->array_id == a || (t->raw_id == a && t->raw_id != 0);
		if (hit) {
			marks[i] = 1;
			n++;
		}
	}
	return n;
}

void fake_exitcode_of_status(int status, char *buf, size_t n)
{
	if (status < 0)
		snprintf(buf, n, "0:0");
	else if (WIFSIGNALED(status))
		snprintf(buf, n, "0:%d", WTERMSIG(status));
	else
		snprintf(buf, n, "%d:0", WEXITSTATUS(status) & 0x7f);
}
