/* squeue: the live queue (pending, running, completing; ended jobs for
 * MinJobAge seconds when asked for with -t). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "fake/commands.h"
#include "fake/sched.h"
#include "fake/store.h"
#include "fake/util.h"

struct qrow {
	struct fake_task *t;
	struct fake_job *j;
	char *jobid;      /* set just before printing */
	char *taskstr;
	const char *state;     /* long name */
	int collapsed;
};

static const struct { const char *a, *full; } qstates[] = {
	{"PD", "PENDING"}, {"R", "RUNNING"}, {"CG", "COMPLETING"}, {"CD", "COMPLETED"},
	{"CA", "CANCELLED"}, {"F", "FAILED"}, {"TO", "TIMEOUT"}, {"NF", "NODE_FAIL"},
	{"OOM", "OUT_OF_MEMORY"}, {"PR", "PREEMPTED"}, {"S", "SUSPENDED"}, {"CF", "CONFIGURING"},
	{"BF", "BOOT_FAIL"}, {"DL", "DEADLINE"}, {"RQ", "REQUEUED"}, {"RH", "REQUEUE_HOLD"},
	{"SE", "SPECIAL_EXIT"}, {"ST", "STOPPED"}, {"RD", "RESV_DEL_HOLD"}, {"RF", "REQUEUE_FED"},
	{"RS", "RESIZING"}, {"RV", "REVOKED"}, {"SI", "SIGNALING"}, {"SO", "STAGE_OUT"},
	{NULL, NULL},
};

static const char *abbrev_of(const char *full)
{
	int i;

	for (i = 0; qstates[i].a; i++)
		if (!strcmp(qstates[i].full, full))
			return qstates[i].a;
	return "?";
}

static const char *full_of(const char *s)
{
	int i;

	for (i = 0; qstates[i].a; i++)
		if (!strcasecmp(qstates[i].a, s) || !strcasecmp(qstates[i].full, s))
			return qstates[i].full;
	return NULL;
}

static const char *queue_state(const struct fake_task *t)
{
	int i;

	if (t->completing)
		return "COMPLETING";
	if (!strcmp(t->state, "REQUEUED"))
		return "PENDING";
	for (i = 0; qstates[i].a; i++) {
		size_t l = strlen(qstates[i].full);
		if (!strncmp(t->state, qstates[i].full, l) && (t->state[l] == '\0' || t->state[l] == ' '))
			return qstates[i].full;  /* "CANCELLED by 0" -> "CANCELLED" */
	}
	return "PENDING";
}

static int state_rank(const char *s)
{
	if (!strcmp(s, "PENDING"))
		return 0;
	if (!strcmp(s, "RUNNING"))
		return 1;
	return 2;
}

static const char *header_of(char c)
{
	switch (c) {
	case 'i': case 'A': return "JOBID";
	case 'F': return "ARRAY_JOB_ID";
	case 'K': return "ARRAY_TASK_ID";
	case 'j': return "NAME";
	case 'u': return "USER";
	case 'U': return "UID";
	case 'g': return "GROUP";
	case 'G': return "GID";
	case 't': return "ST";
	case 'T': return "STATE";
	case 'M': return "TIME";
	case 'l': return "TIME_LIMIT";
	case 'L': return "TIME_LEFT";
	case 'D': return "NODES";
	case 'C': return "CPUS";
	case 'c': return "MIN_CPUS";
	case 'N': return "NODELIST";
	case 'R': return "NODELIST(REASON)";
	case 'r': return "REASON";
	case 'P': return "PARTITION";
	case 'a': return "ACCOUNT";
	case 'q': return "QOS";
	case 'V': return "SUBMIT_TIME";
	case 'S': return "START_TIME";
	case 'e': return "END_TIME";
	case 'k': return "COMMENT";
	case 'Z': return "WORK_DIR";
	case 'o': return "COMMAND";
	case 'Q': return "PRIORITY";
	case 'y': return "NICE";
	case 'E': return "DEPENDENCY";
	case 'B': return "EXEC_HOST";
	case 'p': return "PRIORITY";
	case 'Y': return "SCHEDNODES";
	default: return NULL;
	}
}

static void value_of(const struct qrow *r, char c, double now, char *out, size_t n)
{
	const struct fake_task *t = r->t;
	const struct fake_job *j = r->j;
	int pending = !strcmp(r->state, "PENDING");
	long used = 0;

	if (t->start > 0 && !pending)
		used = (long)((t->end > 0 && !t->completing ? t->end : now) - t->start);
	if (t->completing && t->end > 0)
		used = (long)(t->end - t->start);
	switch (c) {
	case 'i': snprintf(out, n, "%s", r->jobid); break;
	case 'A': snprintf(out, n, "%ld", t->raw_id ? t->raw_id : t->array_id); break;
	case 'F': snprintf(out, n, "%ld", j->is_array ? j->id : (t->raw_id ? t->raw_id : j->id)); break;
	case 'K': snprintf(out, n, "%s", r->taskstr); break;
	case 'j': snprintf(out, n, "%s", j->name); break;
	case 'u': case 'g': snprintf(out, n, "%s", j->user); break;
	case 'U': snprintf(out, n, "%d", j->uid); break;
	case 'G': snprintf(out, n, "%d", j->gid); break;
	case 't': snprintf(out, n, "%s", abbrev_of(r->state)); break;
	case 'T': snprintf(out, n, "%s", r->state); break;
	case 'M': fake_fmt_squeue_time(used, out, n); break;
	case 'l':
		if (j->time_limit < 0)
			snprintf(out, n, "UNLIMITED");
		else
			fake_fmt_squeue_time(j->time_limit, out, n);
		break;
	case 'L':
		if (j->time_limit < 0)
			snprintf(out, n, "UNLIMITED");
		else
			fake_fmt_squeue_time(j->time_limit - used, out, n);
		break;
	case 'D': snprintf(out, n, "1"); break;
	case 'C': case 'c': snprintf(out, n, "%d", j->cpus); break;
	case 'N': case 'B': snprintf(out, n, "%s", pending ? "" : fake_nodename()); break;
	case 'R':
		if (pending)
			snprintf(out, n, "(%s)", t->reason);
		else
			snprintf(out, n, "%s", fake_nodename());
		break;
	case 'r': snprintf(out, n, "%s", pending ? t->reason : "None"); break;
	case 'P': snprintf(out, n, "%s", j->partition); break;
	case 'a': snprintf(out, n, "%s", j->account && *j->account ? j->account : "(null)"); break;
	case 'q': snprintf(out, n, "normal"); break;
	case 'V': fake_fmt_time(j->submit, out, n); break;
	case 'S':
		if (pending)
			snprintf(out, n, "N/A");
		else
			fake_fmt_time(t->start, out, n);
		break;
	case 'e':
		if (pending)
			snprintf(out, n, "N/A");
		else if (t->end > 0)
			fake_fmt_time(t->end, out, n);
		else if (j->time_limit < 0)
			snprintf(out, n, "Unknown");
		else
			fake_fmt_time(t->start + (double)j->time_limit, out, n);
		break;
	case 'k': snprintf(out, n, "%s", j->comment && *j->comment ? j->comment : "(null)"); break;
	case 'Z': snprintf(out, n, "%s", j->workdir); break;
	case 'o': snprintf(out, n, "%s/%s", j->submit_dir, j->name); break;
	case 'Q': case 'p': snprintf(out, n, "%ld", 4294901759L - (j->id % 100000)); break;
	case 'y': snprintf(out, n, "0"); break;
	case 'E': snprintf(out, n, "%s", j->dep && *j->dep ? j->dep : "(null)"); break;
	case 'Y': snprintf(out, n, "(null)"); break;
	default: out[0] = '\0'; break;
	}
}

struct qcol {
	char c;
	int width;     /* -1 none */
	int right;
	char lit[256]; /* literal text before this field */
	int is_field;
};

/* Parses "%.18i %9P text %j"; returns -1 on an unknown field letter. */
static int parse_qformat(const char *fmt, struct qcol *cols, int max, int *n)
{
	const char *p = fmt;
	struct qcol *c;

	*n = 0;
	while (*p && *n < max) {
		c = &cols[(*n)++];
		memset(c, 0, sizeof(*c));
		c->width = -1;
		{
			size_t l = 0;
			while (*p && *p != '%' && l + 1 < sizeof(c->lit))
				c->lit[l++] = *p++;
			c->lit[l] = '\0';
			while (*p && *p != '%')
				p++;
		}
		if (!*p)
			break;
		p++;
		if (*p == '%') {
			strncat(c->lit, "%", sizeof(c->lit) - strlen(c->lit) - 1);
			p++;
			continue;
		}
		if (*p == '.') {
			c->right = 1;
			p++;
		}
		if (isdigit((unsigned char)*p)) {
			c->width = atoi(p);
			if (c->width > 1000)
				c->width = 1000;
			while (isdigit((unsigned char)*p))
				p++;
		}
		if (!*p || !header_of(*p)) {
			fprintf(stderr, "Invalid job format specification: %c\n", *p ? *p : ' ');
			return -1;
		}
		c->c = *p++;
		c->is_field = 1;
	}
	return 0;
}

static void put_cell(const char *v, const struct qcol *c)
{
	if (c->width < 0)
		fputs(v, stdout);
	else if (c->right)
		printf("%*.*s", c->width, c->width, v);
	else
		printf("%-*.*s", c->width, c->width, v);
}

static const struct { const char *name; char c; } onames[] = {
	{"JobID", 'A'}, {"JobArrayID", 'i'}, {"ArrayJobID", 'F'}, {"ArrayTaskID", 'K'},
	{"Name", 'j'}, {"State", 'T'}, {"StateCompact", 't'}, {"Reason", 'r'},
	{"TimeUsed", 'M'}, {"TimeLimit", 'l'}, {"TimeLeft", 'L'}, {"NodeList", 'N'},
	{"UserName", 'u'}, {"UID", 'U'}, {"Partition", 'P'}, {"Comment", 'k'},
	{"SubmitTime", 'V'}, {"StartTime", 'S'}, {"EndTime", 'e'}, {"WorkDir", 'Z'},
	{"NumCPUs", 'C'}, {"NumNodes", 'D'}, {"Account", 'a'}, {"QOS", 'q'},
	{"Dependency", 'E'}, {"Command", 'o'}, {"ReasonList", 'R'}, {"Priority", 'Q'},
	{NULL, 0},
};

/* -O "Name[:[.]width],..." becomes %-format columns (default width 20). */
static int parse_oformat(const char *fmt, struct qcol *cols, int max, int *n)
{
	char buf[FAKE_TEXT_MAX], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", fmt);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok && *n < max; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		struct qcol *c = &cols[(*n)++];
		int i;
		memset(c, 0, sizeof(*c));
		c->width = 20;
		if (colon) {
			*colon = '\0';
			if (colon[1] == '.') {
				c->right = 1;
				colon++;
			}
			if (colon[1])
				c->width = atoi(colon + 1);
		}
		for (i = 0; onames[i].name; i++)
			if (!strcasecmp(onames[i].name, tok))
				break;
		if (!onames[i].name) {
			fprintf(stderr, "Invalid job format specification: %s\n", tok);
			return -1;
		}
		c->c = onames[i].c;
		c->is_field = 1;
	}
	return 0;
}

static int cmp_qrow(const void *a, const void *b)
{
	const struct qrow *x = a, *y = b;
	int rx = state_rank(x->state), ry = state_rank(y->state);

	if (rx != ry)
		return rx - ry;
	if (x->t->array_id != y->t->array_id)
		return x->t->array_id < y->t->array_id ? -1 : 1;
	return (x->t->task_id > y->t->task_id) - (x->t->task_id < y->t->task_id);
}

int fake_squeue_main(int argc, char **argv)
{
	struct fake_state st;
	const char *fmt = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
	const char *ofmt = NULL, *jobs = NULL, *states = NULL, *names = NULL, *users = NULL;
	int noheader = 0, expand = 0, longfmt = 0, i, ncols = 0, rc = 1, oform = 0;
	struct qcol cols[64];
	struct qrow *rows = NULL;
	size_t nrows = 0, k;
	char *marks = NULL;
	double now, minage = fake_env_double("SB_FAKE_MIN_JOB_AGE", 300);
	char want[32][32];
	int nwant = 0, all_states = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq = NULL;
		char opt[64];
#define TAKE() do { if (eq) val = eq + 1; else if (i + 1 < argc) val = argv[++i]; \
	else { fprintf(stderr, "squeue: option '%s' requires an argument\n", a); return 1; } } while (0)
		if (a[0] == '-' && a[1] == '-') {
			eq = strchr(a, '=');
			snprintf(opt, sizeof(opt), "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
		} else if (a[0] == '-' && a[1] && a[2] && strchr("ojtnuOpSMiA", a[1])) {
			snprintf(opt, sizeof(opt), "-%c", a[1]);
			eq = a + 1;
		} else if (a[0] == '-' && a[1] && a[2]) {
			/* combined flags such as -hr */
			int ok = 1;
			for (const char *p = a + 1; *p; p++)
				if (*p == 'h') noheader = 1;
				else if (*p == 'r') expand = 1;
				else if (*p == 'l') longfmt = 1;
				else if (*p == 'a') ;
				else ok = 0;
			if (ok)
				continue;
			snprintf(opt, sizeof(opt), "%s", a);
		} else {
			snprintf(opt, sizeof(opt), "%s", a);
		}
		if (!strcmp(opt, "-h") || !strcmp(opt, "--noheader")) noheader = 1;
		else if (!strcmp(opt, "-r") || !strcmp(opt, "--array")) expand = 1;
		else if (!strcmp(opt, "-l") || !strcmp(opt, "--long")) longfmt = 1;
		else if (!strcmp(opt, "-o") || !strcmp(opt, "--format")) { TAKE(); fmt = val; }
		else if (!strcmp(opt, "-O") || !strcmp(opt, "--Format")) { TAKE(); ofmt = val; }
		else if (!strcmp(opt, "-j") || !strcmp(opt, "--jobs")) { TAKE(); jobs = val; }
		else if (!strcmp(opt, "-t") || !strcmp(opt, "--states")) { TAKE(); states = val; }
		else if (!strcmp(opt, "-n") || !strcmp(opt, "--name")) { TAKE(); names = val; }
		else if (!strcmp(opt, "-u") || !strcmp(opt, "--user")) { TAKE(); users = val; }
		else if (!strcmp(opt, "--me")) users = fake_username();
		else if (!strcmp(opt, "-p") || !strcmp(opt, "--partition") || !strcmp(opt, "-S") ||
			 !strcmp(opt, "--sort") || !strcmp(opt, "-M") || !strcmp(opt, "--clusters") ||
			 !strcmp(opt, "-A") || !strcmp(opt, "--account") || !strcmp(opt, "-q") ||
			 !strcmp(opt, "--qos")) { TAKE(); }
		else if (!strcmp(opt, "-a") || !strcmp(opt, "--all") || !strcmp(opt, "--noconvert") ||
			 !strcmp(opt, "--array-unique") || !strcmp(opt, "--hide") || !strcmp(opt, "--local")) ;
		else if (!strcmp(opt, "-V") || !strcmp(opt, "--version")) { printf("slurm 22.05.8\n"); return 0; }
		else {
			fprintf(stderr, "squeue: unrecognized option '%s'\n", a);
			fprintf(stderr, "Try \"squeue --help\" for more information\n");
			return 1;
		}
#undef TAKE
	}
	if (longfmt && fmt && !strcmp(fmt, "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"))
		fmt = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
	if (ofmt) {
		oform = 1;
		if (parse_oformat(ofmt, cols, 64, &ncols) != 0)
			return 1;
	} else if (parse_qformat(fmt, cols, 64, &ncols) != 0) {
		return 1;
	}
	if (states) {
		char sb[512], *tok, *sv = NULL;
		snprintf(sb, sizeof(sb), "%s", states);
		for (tok = strtok_r(sb, ",", &sv); tok && nwant < 32; tok = strtok_r(NULL, ",", &sv)) {
			const char *full;
			if (!strcasecmp(tok, "all")) {
				all_states = 1;
				continue;
			}
			full = full_of(tok);
			if (!full) {
				fprintf(stderr, "squeue: error: Invalid job state specified: %s\n", tok);
				return 1;
			}
			snprintf(want[nwant++], sizeof(want[0]), "%s", full);
		}
	}
	if (fake_open_scheduled(&st) != 0)
		return 1;
	{
		char *down = fake_meta_get(&st, "ctld_down");
		if (down) {
			free(down);
			fake_close(&st);
			fprintf(stderr, "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n");
			return 1;
		}
	}
	fake_load(&st);  /* the pass may have changed states */
	now = fake_now();
	marks = fake_xcalloc(st.ntasks + 1, 1);
	if (jobs) {
		char buf[FAKE_TEXT_MAX * 4], *tok, *save = NULL;
		size_t hits = 0;
		snprintf(buf, sizeof(buf), "%s", jobs);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			hits += fake_match_id(&st, tok, marks);
		/* only jobs still known to the controller count */
		for (k = 0, hits = 0; k < st.ntasks; k++)
			if (marks[k] && (!fake_task_is_ended(&st.tasks[k]) || st.tasks[k].completing ||
					 now - st.tasks[k].end < minage))
				hits++;
		if (hits == 0) {
			fprintf(stderr, "slurm_load_jobs error: Invalid job id specified\n");
			goto out;
		}
	} else {
		memset(marks, 1, st.ntasks);
	}
	rows = fake_xcalloc(st.ntasks + 1, sizeof(*rows));
	for (k = 0; k < st.ntasks; k++) {
		struct fake_task *t = &st.tasks[k];
		const char *qs;
		int show;
		if (!marks[k] || t->cancelled_pending)
			continue;
		if (users && strcmp(users, t->job->user) != 0 && atoi(users) != t->job->uid)
			continue;
		if (names && !fake_in_list(names, t->job->name))
			continue;
		qs = queue_state(t);
		if (fake_task_is_ended(t) && !t->completing && now - t->end >= minage)
			continue;  /* purged from the controller */
		if (all_states) {
			show = 1;
		} else if (nwant) {
			show = 0;
			for (i = 0; i < nwant; i++)
				if (!strcmp(want[i], qs))
					show = 1;
		} else {
			show = !strcmp(qs, "PENDING") || !strcmp(qs, "RUNNING") ||
			       !strcmp(qs, "COMPLETING") || !strcmp(qs, "SUSPENDED");
		}
		if (!show)
			continue;
		rows[nrows].t = t;
		rows[nrows].j = t->job;
		rows[nrows].state = qs;
		nrows++;
	}
	qsort(rows, nrows, sizeof(*rows), cmp_qrow);

	if (!noheader) {
		if (longfmt) {
			time_t tt = (time_t)now;
			char tb[64];
			struct tm tm;
			localtime_r(&tt, &tm);
			strftime(tb, sizeof(tb), "%a %b %d %H:%M:%S %Y", &tm);
			printf("%s\n", tb);
		}
		for (i = 0; i < ncols; i++) {
			fputs(cols[i].lit, stdout);
			if (cols[i].is_field)
				put_cell(header_of(cols[i].c), &cols[i]);
			if (oform && i + 1 < ncols)
				putchar(' ');
		}
		putchar('\n');
	}
	for (k = 0; k < nrows; k++) {
		struct qrow *r = &rows[k];
		struct fake_task *t = r->t;
		static char val[FAKE_ROW_MAX];
		if (!expand && r->j->is_array && t->raw_id == 0 && !strcmp(r->state, "PENDING")) {
			size_t n = 0, m = k;
			long *ids;
			while (m < nrows && rows[m].t->array_id == t->array_id && rows[m].t->raw_id == 0 &&
			       !strcmp(rows[m].state, "PENDING"))
				m++;
			ids = fake_xcalloc(m - k, sizeof(*ids));
			for (n = 0; n < m - k; n++)
				ids[n] = rows[k + n].t->task_id;
			r->taskstr = fake_ranges_text(ids, n, r->j->throttle);
			free(ids);
			if (n == 1)
				r->jobid = fake_xasprintf("%ld_%ld", t->array_id, t->task_id);
			else
				r->jobid = fake_xasprintf("%ld_[%s]", t->array_id, r->taskstr);
			k = m - 1;
		} else if (r->j->is_array) {
			r->jobid = fake_xasprintf("%ld_%ld", t->array_id, t->task_id);
			r->taskstr = fake_xasprintf("%ld", t->task_id);
		} else {
			r->jobid = fake_xasprintf("%ld", t->array_id);
			r->taskstr = fake_xstrdup("N/A");
		}
		for (i = 0; i < ncols; i++) {
			fputs(cols[i].lit, stdout);
			if (cols[i].is_field) {
				value_of(r, cols[i].c, now, val, sizeof(val));
				put_cell(val, &cols[i]);
			}
			if (oform && i + 1 < ncols)
				putchar(' ');
		}
		putchar('\n');
		free(r->jobid);
		free(r->taskstr);
		r->jobid = r->taskstr = NULL;
	}
	rc = 0;
out:
	free(rows);
	free(marks);
	fake_close(&st);
	return rc;
}
