/* sacct: the accounting view.  Rows come from the acct table (one version
 * per state change, visible once its time plus the accounting lag has
 * passed), never from the live queue. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake/commands.h"
#include "fake/sched.h"
#include "fake/store.h"
#include "fake/util.h"

struct arow {
	long array_id, task_id, raw_id;
	int restart;
	char state[160];
	char exitcode[160];
	double start, end;
	struct fake_job *job;
	struct fake_task *task;
	char *jobid;       /* set just before printing */
	char reason[64];
	int step_status;   /* wait status of the batch script, -1 unknown */
	double step_end;
	int is_step;       /* a .batch row */
};

enum fld {
	F_JOBID, F_JOBIDRAW, F_JOBNAME, F_STATE, F_EXITCODE, F_DERIVED, F_SUBMIT, F_START, F_END,
	F_ELIGIBLE, F_ELAPSED, F_ELAPSEDRAW, F_NODELIST, F_COMMENT, F_PARTITION, F_ACCOUNT,
	F_ALLOCCPUS, F_NCPUS, F_NNODES, F_ALLOCNODES, F_USER, F_UID, F_GROUP, F_GID, F_CLUSTER,
	F_TIMELIMIT, F_TIMELIMITRAW, F_REASON, F_WORKDIR, F_QOS, F_CPUTIME, F_CPUTIMERAW,
	F_ALLOCTRES, F_REQCPUS, F_SUSPENDED, F_PRIORITY, F_RESERVATION, F_MAXRSS, F_REQMEM,
	F_SUBMITLINE, F_CONSTRAINTS, F_FLAGS,
};

static const struct { const char *name; enum fld id; int width; } fields[] = {
	{"JobID", F_JOBID, 12}, {"JobIDRaw", F_JOBIDRAW, 12}, {"JobName", F_JOBNAME, 10},
	{"State", F_STATE, 10}, {"ExitCode", F_EXITCODE, 8}, {"DerivedExitCode", F_DERIVED, 10},
	{"Submit", F_SUBMIT, 19}, {"Start", F_START, 19}, {"End", F_END, 19},
	{"Eligible", F_ELIGIBLE, 19}, {"Elapsed", F_ELAPSED, 10}, {"ElapsedRaw", F_ELAPSEDRAW, 10},
	{"NodeList", F_NODELIST, 15}, {"Comment", F_COMMENT, 15}, {"Partition", F_PARTITION, 10},
	{"Account", F_ACCOUNT, 10}, {"AllocCPUS", F_ALLOCCPUS, 10}, {"NCPUS", F_NCPUS, 10},
	{"NNodes", F_NNODES, 8}, {"AllocNodes", F_ALLOCNODES, 10}, {"User", F_USER, 9},
	{"UID", F_UID, 6}, {"Group", F_GROUP, 9}, {"GID", F_GID, 6}, {"Cluster", F_CLUSTER, 10},
	{"Timelimit", F_TIMELIMIT, 10}, {"TimelimitRaw", F_TIMELIMITRAW, 12},
	{"Reason", F_REASON, 20}, {"WorkDir", F_WORKDIR, 15}, {"QOS", F_QOS, 10},
	{"CPUTime", F_CPUTIME, 10}, {"CPUTimeRAW", F_CPUTIMERAW, 10}, {"AllocTRES", F_ALLOCTRES, 10},
	{"ReqCPUS", F_REQCPUS, 8}, {"Suspended", F_SUSPENDED, 10}, {"Priority", F_PRIORITY, 10},
	{"Reservation", F_RESERVATION, 20}, {"MaxRSS", F_MAXRSS, 10}, {"ReqMem", F_REQMEM, 10},
	{"SubmitLine", F_SUBMITLINE, 20}, {"Constraints", F_CONSTRAINTS, 19}, {"Flags", F_FLAGS, 20},
	{NULL, 0, 0},
};

#define MAX_FIELDS 64

struct colspec {
	enum fld id;
	int width;
	int left;
	const char *name;
};

static void field_value(const struct arow *r, enum fld id, double now, char *out, size_t n)
{
	const struct fake_job *j = r->job;
	int pending = !strcmp(r->state, "PENDING");
	long el = 0;
	char tmp[64];

	if (r->start > 0)
		el = (long)((r->end > 0 ? r->end : now) - r->start);
	if (pending)
		el = 0;
	if (r->is_step) {
		switch (id) {
		case F_JOBNAME: snprintf(out, n, "batch"); return;
		case F_SUBMIT: case F_ELIGIBLE: fake_fmt_time(r->start, out, n); return;
		case F_COMMENT: case F_PARTITION: case F_USER: case F_UID: case F_GROUP:
		case F_GID: case F_TIMELIMIT: case F_TIMELIMITRAW: case F_REASON:
		case F_WORKDIR: case F_QOS: case F_PRIORITY: case F_SUBMITLINE:
			out[0] = '\0';
			return;
		case F_ALLOCTRES:
			snprintf(out, n, "cpu=%d,mem=0,node=1", j->cpus);
			return;
		default:
			break;
		}
	}
	switch (id) {
	case F_JOBID: snprintf(out, n, "%s", r->jobid); break;
	case F_JOBIDRAW: snprintf(out, n, "%ld", r->raw_id ? r->raw_id : r->array_id); break;
	case F_JOBNAME: snprintf(out, n, "%s", j->name); break;
	case F_STATE: snprintf(out, n, "%s", r->state); break;
	case F_EXITCODE: snprintf(out, n, "%s", r->exitcode); break;
	case F_DERIVED: snprintf(out, n, "0:0"); break;
	case F_SUBMIT: fake_fmt_time(j->submit, out, n); break;
	case F_ELIGIBLE:
		fake_fmt_time(r->task && r->task->begin > j->submit ? r->task->begin : j->submit, out, n);
		break;
	case F_START: fake_fmt_time(pending ? 0 : r->start, out, n); break;
	case F_END: fake_fmt_time(r->end, out, n); break;
	case F_ELAPSED: fake_fmt_elapsed(el, out, n); break;
	case F_ELAPSEDRAW: snprintf(out, n, "%ld", el); break;
	case F_NODELIST:
		snprintf(out, n, "%s", (pending || r->start <= 0) ? "None assigned" : fake_nodename());
		break;
	case F_COMMENT: snprintf(out, n, "%s", j->comment ? j->comment : ""); break;
	case F_PARTITION: snprintf(out, n, "%s", j->partition); break;
	case F_ACCOUNT: snprintf(out, n, "%s", j->account ? j->account : ""); break;
	case F_ALLOCCPUS: case F_NCPUS:
		/* Slurm 22.05 shows the requested CPUs while pending too
		 * (tests/cluster: `123_[3-7%8]|...|PENDING|...|1|`) */
		snprintf(out, n, "%d", j->cpus);
		break;
	case F_REQCPUS: snprintf(out, n, "%d", j->cpus); break;
	case F_NNODES: snprintf(out, n, "1"); break;
	case F_ALLOCNODES: snprintf(out, n, "%d", (pending || r->start <= 0) ? 0 : 1); break;
	case F_USER: snprintf(out, n, "%s", j->user); break;
	case F_UID: snprintf(out, n, "%d", j->uid); break;
	case F_GROUP: snprintf(out, n, "%s", j->user); break;
	case F_GID: snprintf(out, n, "%d", j->gid); break;
	case F_CLUSTER: snprintf(out, n, "%s", fake_cluster()); break;
	case F_TIMELIMIT:
		if (j->time_limit < 0)
			snprintf(out, n, "UNLIMITED");
		else
			fake_fmt_elapsed(j->time_limit, out, n);
		break;
	case F_TIMELIMITRAW:
		if (j->time_limit < 0)
			snprintf(out, n, "UNLIMITED");
		else
			snprintf(out, n, "%ld", (j->time_limit + 59) / 60);
		break;
	case F_REASON: snprintf(out, n, "%s", r->reason); break;
	case F_WORKDIR: snprintf(out, n, "%s", j->workdir); break;
	case F_QOS: snprintf(out, n, "normal"); break;
	case F_CPUTIME: fake_fmt_elapsed(el * j->cpus, out, n); break;
	case F_CPUTIMERAW: snprintf(out, n, "%ld", el * j->cpus); break;
	case F_ALLOCTRES:
		if (pending || r->start <= 0)
			out[0] = '\0';
		else
			snprintf(out, n, "billing=%d,cpu=%d,node=1", j->cpus, j->cpus);
		break;
	case F_SUSPENDED: snprintf(out, n, "00:00:00"); break;
	case F_PRIORITY: snprintf(out, n, "%d", pending ? 1 : 0); break;
	case F_SUBMITLINE: snprintf(out, n, "sbatch"); break;
	case F_RESERVATION: case F_MAXRSS: case F_REQMEM: case F_CONSTRAINTS: case F_FLAGS:
	default:
		(void)tmp;
		out[0] = '\0';
		break;
	}
}

static int parse_format(const char *fmt, struct colspec *cols, int *ncols)
{
	char buf[FAKE_TEXT_MAX], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", fmt);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *pct = strchr(tok, '%');
		int i, width = -1, left = 0;
		fake_trim(tok);
		if (!*tok)
			continue;
		if (pct) {
			*pct = '\0';
			if (pct[1] == '-') {
				left = 1;
				pct++;
			}
			width = atoi(pct + 1);
		}
		for (i = 0; fields[i].name; i++)
			if (!strcasecmp(fields[i].name, tok))
				break;
		if (!fields[i].name) {
			fprintf(stderr, "sacct: error: Invalid field requested: \"%s\"\n", tok);
			return -1;
		}
		if (*ncols >= MAX_FIELDS)
			break;
		cols[*ncols].id = fields[i].id;
		cols[*ncols].width = width >= 0 ? width : fields[i].width;
		cols[*ncols].left = left;
		cols[*ncols].name = fields[i].name;
		(*ncols)++;
	}
	return 0;
}

static const char *state_abbrev(const char *s)
{
	static const struct { const char *a, *full; } tab[] = {
		{"BF", "BOOT_FAIL"}, {"CA", "CANCELLED"}, {"CD", "COMPLETED"}, {"DL", "DEADLINE"},
		{"F", "FAILED"}, {"NF", "NODE_FAIL"}, {"OOM", "OUT_OF_MEMORY"}, {"PD", "PENDING"},
		{"PR", "PREEMPTED"}, {"R", "RUNNING"}, {"RQ", "REQUEUED"}, {"RS", "RESIZING"},
		{"RV", "REVOKED"}, {"S", "SUSPENDED"}, {"TO", "TIMEOUT"}, {NULL, NULL},
	};
	int i;

	for (i = 0; tab[i].a; i++)
		if (!strcasecmp(s, tab[i].a) || !strcasecmp(s, tab[i].full))
			return tab[i].full;
	return NULL;
}

static int cmp_row(const void *a, const void *b)
{
	const struct arow *x = a, *y = b;

	if (x->array_id != y->array_id)
		return x->array_id < y->array_id ? -1 : 1;
	if (x->task_id != y->task_id)
		return x->task_id < y->task_id ? -1 : 1;
	return (x->restart > y->restart) - (x->restart < y->restart);
}

static void print_cell(const char *v, const struct colspec *c, int parsable)
{
	if (parsable) {
		fputs(v, stdout);
		return;
	}
	{
		int len = (int)strlen(v);
		if (len > c->width && c->width > 0)
			printf("%.*s+", c->width - 1, v);
		else if (c->left)
			printf("%-*s", c->width, v);
		else
			printf("%*s", c->width, v);
	}
}

static void print_row(const struct arow *r, const struct colspec *cols, int ncols, int parsable,
		      const char *delim, double now)
{
	static char val[FAKE_ROW_MAX];
	int i;

	for (i = 0; i < ncols; i++) {
		if (i && parsable == 2)
			fputs(delim, stdout);
		if (r->is_step && cols[i].id == F_JOBIDRAW)
			snprintf(val, sizeof(val), "%ld.batch", r->raw_id ? r->raw_id : r->array_id);
		else
			field_value(r, cols[i].id, now, val, sizeof(val));
		print_cell(val, &cols[i], parsable);
		if (!parsable)
			putchar(' ');
		else if (parsable == 1)
			fputs(delim, stdout);
	}
	putchar('\n');
}

/* State and ExitCode of a .batch step from how the script ended. */
static void step_outcome(struct arow *s)
{
	int st = s->step_status;

	s->end = s->step_end;
	if (!strcmp(s->state, "RUNNING") || (st < 0 && s->end == 0)) {
		snprintf(s->state, sizeof(s->state), "RUNNING");
		snprintf(s->exitcode, sizeof(s->exitcode), "0:0");
		s->end = 0;
		return;
	}
	if (!strncmp(s->state, "OUT_OF_MEMORY", 13)) {
		snprintf(s->exitcode, sizeof(s->exitcode), "0:125");
		return;
	}
	fake_exitcode_of_status(st, s->exitcode, sizeof(s->exitcode));
	if (st < 0)
		snprintf(s->state, sizeof(s->state), "CANCELLED");
	else if (WIFSIGNALED(st))
		snprintf(s->state, sizeof(s->state), "CANCELLED");
	else if (WEXITSTATUS(st) == 0)
		snprintf(s->state, sizeof(s->state), "COMPLETED");
	else
		snprintf(s->state, sizeof(s->state), "FAILED");
}

int fake_sacct_main(int argc, char **argv)
{
	struct fake_state st;
	struct colspec cols[MAX_FIELDS];
	int ncols = 0, noheader = 0, parsable = 0, allocs = 0, dups = 0, i, rc = 1;
	const char *fmt = "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode";
	const char *jobs = NULL, *starts = NULL, *ends = NULL, *states = NULL, *names = NULL;
	const char *delim = "|";
	double tstart, tend, now;
	struct arow *rows = NULL;
	size_t nrows = 0, cap = 0, k;
	sqlite3_stmt *s = NULL;
	char *marks = NULL;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		char opt[64];
		const char *eq;
#define TAKE() do { if (eq) val = eq + 1; else if (i + 1 < argc) val = argv[++i]; \
	else { fprintf(stderr, "sacct: option '%s' requires an argument\n", a); return 1; } } while (0)
		eq = NULL;
		if (a[0] == '-' && a[1] == '-') {
			eq = strchr(a, '=');
			snprintf(opt, sizeof(opt), "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
		} else if (a[0] == '-' && a[1] && a[2]) {
			/* -jLIST style */
			snprintf(opt, sizeof(opt), "-%c", a[1]);
			eq = a + 1;
		} else {
			snprintf(opt, sizeof(opt), "%s", a);
		}
		if (!strcmp(opt, "-n") || !strcmp(opt, "--noheader")) {
			noheader = 1;
			if (eq && a[1] != '-') { fprintf(stderr, "sacct: invalid option\n"); return 1; }
		} else if (!strcmp(opt, "-P") || !strcmp(opt, "--parsable2")) {
			parsable = 2;
		} else if (!strcmp(opt, "-p") || !strcmp(opt, "--parsable")) {
			parsable = 1;
		} else if (!strcmp(opt, "-X") || !strcmp(opt, "--allocations")) {
			allocs = 1;
		} else if (!strcmp(opt, "-D") || !strcmp(opt, "--duplicates")) {
			dups = 1;
		} else if (!strcmp(opt, "-j") || !strcmp(opt, "--jobs")) {
			TAKE(); jobs = val;
		} else if (!strcmp(opt, "-S") || !strcmp(opt, "--starttime")) {
			TAKE(); starts = val;
		} else if (!strcmp(opt, "-E") || !strcmp(opt, "--endtime")) {
			TAKE(); ends = val;
		} else if (!strcmp(opt, "-o") || !strcmp(opt, "--format")) {
			TAKE(); fmt = val;
		} else if (!strcmp(opt, "-s") || !strcmp(opt, "--state")) {
			TAKE(); states = val;
		} else if (!strcmp(opt, "--name")) {
			TAKE(); names = val;
		} else if (!strcmp(opt, "--delimiter")) {
			TAKE(); delim = val;
		} else if (!strcmp(opt, "-b") || !strcmp(opt, "--brief")) {
			fmt = "JobID,State,ExitCode";
		} else if (!strcmp(opt, "-u") || !strcmp(opt, "--user") || !strcmp(opt, "--uid") ||
			   !strcmp(opt, "-M") || !strcmp(opt, "--clusters") || !strcmp(opt, "-A") ||
			   !strcmp(opt, "--accounts") || !strcmp(opt, "-r") || !strcmp(opt, "--partition")) {
			TAKE();
		} else if (!strcmp(opt, "-a") || !strcmp(opt, "--allusers") || !strcmp(opt, "-L") ||
			   !strcmp(opt, "--allclusters") || !strcmp(opt, "--noconvert") ||
			   !strcmp(opt, "-c") || !strcmp(opt, "--completion") || !strcmp(opt, "-l") ||
			   !strcmp(opt, "--long") || !strcmp(opt, "-T") || !strcmp(opt, "--truncate")) {
			/* accepted, no effect in the fake */
		} else if (!strcmp(opt, "-e") || !strcmp(opt, "--helpformat")) {
			for (k = 0; fields[k].name; k++)
				printf("%-20s%s", fields[k].name, (k % 4 == 3) ? "\n" : "");
			printf("\n");
			return 0;
		} else if (!strcmp(opt, "-V") || !strcmp(opt, "--version")) {
			printf("slurm 22.05.8\n");
			return 0;
		} else {
			fprintf(stderr, "sacct: unrecognized option '%s'\n", a);
			fprintf(stderr, "Try \"sacct --help\" for more information\n");
			return 1;
		}
#undef TAKE
	}
	if (parse_format(fmt, cols, &ncols) != 0)
		return 1;
	if (fake_open_scheduled(&st) != 0)
		return 1;
	{
		char *down = fake_meta_get(&st, "dbd_down");
		if (down) {
			free(down);
			fake_close(&st);
			fprintf(stderr, "sacct: error: slurm_persist_conn_open_without_init: failed to open persistent connection to host:localhost:6819: Connection refused\n"
				"sacct: error: Sending PersistInit msg: Connection refused\n"
				"sacct: error: Problem talking to the database: Connection refused\n");
			return 1;
		}
	}
	now = fake_now();
	if (starts) {
		if (fake_parse_when(starts, now, &tstart) != 0) {
			fprintf(stderr, "sacct: error: Invalid time specification: %s\n", starts);
			goto out;
		}
	} else if (jobs || states) {
		tstart = 0;
	} else {
		fake_parse_when("midnight", now, &tstart);
	}
	tend = now + 1;
	if (ends && fake_parse_when(ends, now, &tend) != 0) {
		fprintf(stderr, "sacct: error: Invalid time specification: %s\n", ends);
		goto out;
	}
	marks = fake_xcalloc(st.ntasks + 1, 1);
	if (jobs) {
		char buf[FAKE_TEXT_MAX * 4], *tok, *save = NULL;
		if (strlen(jobs) >= sizeof(buf)) {
			fprintf(stderr, "sacct: error: job list too long\n");
			goto out;
		}
		snprintf(buf, sizeof(buf), "%s", jobs);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			char *e;
			errno = 0;
			strtol(tok, &e, 10);
			if (e == tok || (*e && *e != '_' && *e != '.')) {
				fprintf(stderr, "sacct: fatal: Bad job/step specified: %s\n", tok);
				goto out;
			}
			fake_match_id(&st, tok, marks);
		}
	} else {
		memset(marks, 1, st.ntasks);
	}

	if (sqlite3_prepare_v2(st.db, "SELECT array_id, task_id, raw_id, restart, state, exitcode,"
			       " start, end, step_status, step_end FROM acct WHERE vis <= ?"
			       " ORDER BY array_id, task_id, restart, seq",
			       -1, &s, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_double(s, 1, now);
	while (sqlite3_step(s) == SQLITE_ROW) {
		long a = sqlite3_column_int64(s, 0), t = sqlite3_column_int64(s, 1);
		int restart = sqlite3_column_int(s, 3);
		struct arow *r;
		if (nrows && rows[nrows - 1].array_id == a && rows[nrows - 1].task_id == t &&
		    rows[nrows - 1].restart == restart) {
			r = &rows[nrows - 1];  /* a newer version of the same run */
		} else {
			if (nrows == cap) {
				cap = cap ? cap * 2 : 256;
				struct arow *nr = realloc(rows, cap * sizeof(*nr));
				if (!nr)
					goto out;
				rows = nr;
			}
			r = &rows[nrows++];
			memset(r, 0, sizeof(*r));
		}
		r->array_id = a;
		r->task_id = t;
		r->restart = restart;
		r->raw_id = sqlite3_column_int64(s, 2);
		snprintf(r->state, sizeof(r->state), "%s", (const char *)sqlite3_column_text(s, 4));
		snprintf(r->exitcode, sizeof(r->exitcode), "%s", (const char *)sqlite3_column_text(s, 5));
		r->start = sqlite3_column_double(s, 6);
		r->end = sqlite3_column_double(s, 7);
		r->step_status = sqlite3_column_int(s, 8);
		r->step_end = sqlite3_column_double(s, 9);
	}
	sqlite3_finalize(s);
	s = NULL;

	/* attach, filter, apply lies, keep only the latest run unless -D */
	{
		size_t o = 0;
		for (k = 0; k < nrows; k++) {
			struct arow *r = &rows[k];
			struct fake_task *t = fake_find_task(&st, r->array_id, r->task_id);
			int latest = k + 1 >= nrows || rows[k + 1].array_id != r->array_id ||
				     rows[k + 1].task_id != r->task_id;
			if (!t || t->lost || !marks[t - st.tasks])
				continue;
			if (!latest && !dups)
				continue;
			r->task = t;
			r->job = t->job;
			snprintf(r->reason, sizeof(r->reason), "%s",
				 !strcmp(r->state, "PENDING") ? t->reason : "None");
			if (latest && t->lie && strcmp(r->state, "PENDING") && strcmp(r->state, "RUNNING")) {
				char lie[128], *bar;
				snprintf(lie, sizeof(lie), "%s", t->lie);
				bar = strchr(lie, '|');
				if (bar) {
					*bar = '\0';
					snprintf(r->exitcode, sizeof(r->exitcode), "%s", bar + 1);
				}
				snprintf(r->state, sizeof(r->state), "%s", lie);
			}
			if (!(r->end == 0 || r->end >= tstart) || r->job->submit > tend)
				continue;
			if (names && !fake_in_list(names, r->job->name))
				continue;
			if (states) {
				char sb[256], *tok, *sv = NULL, base[64];
				int hit = 0;
				snprintf(base, sizeof(base), "%.63s", r->state);
				if (strchr(base, ' '))
					*strchr(base, ' ') = '\0';
				snprintf(sb, sizeof(sb), "%s", states);
				for (tok = strtok_r(sb, ",", &sv); tok; tok = strtok_r(NULL, ",", &sv)) {
					const char *full = state_abbrev(tok);
					if (!full) {
						fprintf(stderr, "sacct: error: Invalid state: %s\n", tok);
						goto out;
					}
					if (!strcmp(full, base))
						hit = 1;
				}
				if (!hit)
					continue;
			}
			rows[o++] = *r;
		}
		nrows = o;
	}
	qsort(rows, nrows, sizeof(*rows), cmp_row);

	if (!noheader) {
		for (i = 0; i < ncols; i++) {
			if (i && parsable == 2)
				fputs(delim, stdout);
			if (parsable)
				fputs(cols[i].name, stdout);
			else if (cols[i].left)  /* headers are cut, not marked with '+' */
				printf("%-*.*s", cols[i].width, cols[i].width, cols[i].name);
			else
				printf("%*.*s", cols[i].width, cols[i].width, cols[i].name);
			if (!parsable)
				putchar(' ');
			else if (parsable == 1)
				fputs(delim, stdout);
		}
		putchar('\n');
		if (!parsable) {
			for (i = 0; i < ncols; i++) {
				for (int w = 0; w < cols[i].width; w++)
					putchar('-');
				putchar(' ');
			}
			putchar('\n');
		}
	}
	for (k = 0; k < nrows; k++) {
		struct arow *r = &rows[k];
		/* pending array elements not yet split off: one row per array */
		if (r->raw_id == 0 && r->job->is_array) {
			size_t n = 0, m = k;
			long *ids;
			char *ranges;
			while (m < nrows && rows[m].array_id == r->array_id && rows[m].raw_id == 0 &&
			       !strcmp(rows[m].state, r->state))
				m++;
			ids = fake_xcalloc(m - k, sizeof(*ids));
			for (n = 0; n < m - k; n++)
				ids[n] = rows[k + n].task_id;
			ranges = fake_ranges_text(ids, n, r->job->throttle);
			if (n == 1)
				r->jobid = fake_xasprintf("%ld_%ld", r->array_id, r->task_id);
			else
				r->jobid = fake_xasprintf("%ld_[%s]", r->array_id, ranges);
			free(ranges);
			free(ids);
			k = m - 1;
		} else if (r->job->is_array) {
			r->jobid = fake_xasprintf("%ld_%ld", r->array_id, r->task_id);
		} else {
			r->jobid = fake_xasprintf("%ld", r->array_id);
		}
		print_row(r, cols, ncols, parsable, delim, now);
		/* without -X: the batch step of every run that started */
		if (!allocs && r->start > 0 && strcmp(r->state, "PENDING") != 0 &&
		    !(r->raw_id == 0 && r->job->is_array)) {
			struct arow step = *r;
			step.is_step = 1;
			step.jobid = fake_xasprintf("%s.batch", r->jobid);
			step_outcome(&step);
			print_row(&step, cols, ncols, parsable, delim, now);
			free(step.jobid);
		}
		free(r->jobid);
		r->jobid = NULL;
	}
	rc = 0;
out:
	if (s)
		sqlite3_finalize(s);
	free(rows);
	free(marks);
	fake_close(&st);
	return rc;
}
