/* scancel and scontrol. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "fake/commands.h"
#include "fake/replay.h"
#include "fake/sched.h"
#include "fake/store.h"
#include "fake/util.h"

/* Marks the tasks an id names, including "A_[1-3,5]".  Returns hits;
 * *whole is set when the id names a whole array by its own id. */
static size_t match_spec(struct fake_state *st, const char *spec, char *marks, int *whole)
{
	const char *br = strstr(spec, "_[");
	size_t n = 0, i;

	*whole = 0;
	if (br) {
		long a = atol(spec), *ids = NULL;
		size_t nids = 0, k;
		int th;
		char inner[FAKE_TEXT_MAX];
		size_t len = strlen(br + 2);
		if (len == 0 || br[2 + len - 1] != ']' || len >= sizeof(inner))
			return 0;
		snprintf(inner, sizeof(inner), "%.*s", (int)(len - 1), br + 2);
		if (fake_parse_array(inner, &ids, &nids, &th) != 0)
			return 0;
		for (i = 0; i < st->ntasks; i++)
			for (k = 0; k < nids; k++)
				if (st->tasks[i].array_id == a && st->tasks[i].task_id == ids[k]) {
					marks[i] = 1;
					n++;
				}
		free(ids);
		return n;
	}
	n = fake_match_id(st, spec, marks);
	if (n && !strchr(spec, '_')) {
		struct fake_job *j = fake_find_job(st, atol(spec));
		if (j && j->is_array)
			*whole = 1;
	}
	return n;
}

static int cancel_task(struct fake_state *st, struct fake_task *t, int whole, int sig, int batch_only)
{
	char state[64];
	double now = fake_now();

	snprintf(state, sizeof(state), "CANCELLED by %u", (unsigned)getuid());
	if (sig && sig != SIGKILL) {
		/* --signal: deliver, do not cancel */
		if (!strcmp(t->state, "RUNNING") && t->pgid > 0) {
			if (batch_only)
				kill((pid_t)t->pgid, sig);
			else
				kill(-(pid_t)t->pgid, sig);
		}
		return 0;
	}
	if (!strcmp(t->state, "PENDING")) {
		free(t->state);
		t->state = fake_xstrdup(state);
		t->start = now;
		t->end = now;
		if (t->job->is_array && !whole && t->raw_id == 0) {
			/* never split off the array record: Slurm keeps no row */
			t->cancelled_pending = 1;
			if (fake_acct_forget(st, t) != 0)
				return -1;
		} else if (!t->lost) {
			if (t->job->is_array && t->raw_id == 0)
				t->start = now;
			if (fake_acct_record(st, t, state, "0:0") != 0)
				return -1;
		}
		return fake_task_save(st, t);
	}
	if (!strcmp(t->state, "RUNNING"))
		return fake_request_kill(st, t, state, sig == SIGKILL ? SIGKILL : SIGTERM);
	return 0;
}

int fake_scancel_main(int argc, char **argv)
{
	struct fake_state st;
	const char *name = NULL, *user = NULL, *states = NULL;
	int sig = 0, batch = 0, quiet = 0, i, rc = 0, nids = 0;
	char *marks;
	size_t k;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq = NULL;
		char opt[64];
		if (a[0] != '-') {
			nids++;
			continue;
		}
#define TAKE() do { if (eq) val = eq + 1; else if (i + 1 < argc) val = argv[++i]; \
	else { fprintf(stderr, "scancel: option '%s' requires an argument\n", a); return 1; } } while (0)
		if (a[1] == '-') {
			eq = strchr(a, '=');
			snprintf(opt, sizeof(opt), "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
		} else if (a[1] && a[2] && strchr("sntuMpqw", a[1])) {
			snprintf(opt, sizeof(opt), "-%c", a[1]);
			eq = a + 1;
		} else {
			snprintf(opt, sizeof(opt), "%s", a);
		}
		if (!strcmp(opt, "-s") || !strcmp(opt, "--signal")) {
			TAKE();
			sig = fake_signal_number(val);
			if (sig < 0) {
				fprintf(stderr, "scancel: error: Invalid job signal: %s\n", val);
				return 1;
			}
		} else if (!strcmp(opt, "-b") || !strcmp(opt, "--batch")) batch = 1;
		else if (!strcmp(opt, "-f") || !strcmp(opt, "--full")) batch = 0;
		else if (!strcmp(opt, "-Q") || !strcmp(opt, "--quiet")) quiet = 1;
		else if (!strcmp(opt, "-n") || !strcmp(opt, "--name") || !strcmp(opt, "--jobname")) { TAKE(); name = val; }
		else if (!strcmp(opt, "-u") || !strcmp(opt, "--user")) { TAKE(); user = val; }
		else if (!strcmp(opt, "--me")) user = fake_username();
		else if (!strcmp(opt, "-t") || !strcmp(opt, "--state")) { TAKE(); states = val; }
		else if (!strcmp(opt, "-M") || !strcmp(opt, "--clusters") || !strcmp(opt, "-p") ||
			 !strcmp(opt, "--partition") || !strcmp(opt, "-q") || !strcmp(opt, "--qos") ||
			 !strcmp(opt, "-w") || !strcmp(opt, "--nodelist") || !strcmp(opt, "-A") ||
			 !strcmp(opt, "--account")) { TAKE(); }
		else if (!strcmp(opt, "-v") || !strcmp(opt, "--verbose") || !strcmp(opt, "-H") ||
			 !strcmp(opt, "--hurry") || !strcmp(opt, "-i") || !strcmp(opt, "--interactive")) ;
		else if (!strcmp(opt, "-V") || !strcmp(opt, "--version")) { printf("slurm 22.05.8\n"); return 0; }
		else {
			fprintf(stderr, "scancel: unrecognized option '%s'\n", a);
			fprintf(stderr, "Try \"scancel --help\" for more information\n");
			return 1;
		}
#undef TAKE
	}
	if (!nids && !name && !user && !states) {
		fprintf(stderr, "scancel: error: No job identification provided\n");
		return 1;
	}
	if (fake_open(&st) != 0 || fake_load(&st) != 0) {
		fake_close(&st);
		return 1;
	}
	if (fake_replaying(&st)) {
		fake_close(&st);
		fprintf(stderr, "scancel: error: the fake Slurm is replaying a recording (sbfake reset ends it)\n");
		return 1;
	}
	{
		char *down = fake_meta_get(&st, "ctld_down");
		if (down) {
			free(down);
			fake_close(&st);
			fprintf(stderr, "scancel: error: Kill job error on job id %s: Unable to contact slurm controller (connect failure)\n",
				nids ? argv[argc - 1] : "");
			return 1;
		}
	}
	marks = fake_xcalloc(st.ntasks + 1, 1);
	if (nids) {
		for (i = 1; i < argc; i++) {
			const char *a = argv[i];
			int whole = 0, live = 0, comp = 0;
			size_t n;
			if (a[0] == '-') {
				if (!strchr(a, '=') && a[1] && !a[2] && strchr("sntuMpqwA", a[1]))
					i++;
				else if (a[1] == '-' && !strchr(a, '=') &&
					 (!strcmp(a, "--signal") || !strcmp(a, "--name") || !strcmp(a, "--user") ||
					  !strcmp(a, "--state") || !strcmp(a, "--jobname") || !strcmp(a, "--clusters") ||
					  !strcmp(a, "--partition") || !strcmp(a, "--qos") || !strcmp(a, "--nodelist") ||
					  !strcmp(a, "--account")))
					i++;
				continue;
			}
			memset(marks, 0, st.ntasks + 1);
			n = match_spec(&st, a, marks, &whole);
			for (k = 0; k < st.ntasks && n; k++) {
				struct fake_task *t = &st.tasks[k];
				if (!marks[k])
					continue;
				if (name && strcmp(name, t->job->name))
					continue;
				if (!fake_task_is_ended(t) && !t->completing)
					live++;
				if (t->completing)
					comp++;
				if (cancel_task(&st, t, whole, sig, batch) != 0) {
					fake_close(&st);
					free(marks);
					return 1;
				}
			}
			/* Slurm 22.05: a plain cancel of an unknown or finished
			 * job says nothing and succeeds; with -s it is an error,
			 * "Invalid job id specified" for finished jobs too */
			if (sig == 0 && (n == 0 || !live))
				continue;
			if (n == 0 || (!live && !comp)) {
				if (!quiet)
					fprintf(stderr, "scancel: error: Kill job error on job id %s: Invalid job id specified\n", a);
				rc = 1;
			} else if (!live) {
				if (!quiet)
					fprintf(stderr, "scancel: error: Kill job error on job id %s: Job/step already completing or completed\n", a);
				rc = 1;
			}
		}
	} else {
		for (k = 0; k < st.ntasks; k++) {
			struct fake_task *t = &st.tasks[k];
			if (fake_task_is_ended(t) || t->completing)
				continue;
			if (name && strcmp(name, t->job->name))
				continue;
			if (user && strcmp(user, t->job->user) && atoi(user) != t->job->uid)
				continue;
			if (states) {
				int pend = !strcmp(t->state, "PENDING");
				if (!((pend && (strcasestr(states, "PD") || strcasestr(states, "PENDING"))) ||
				      (!pend && (strstr(states, "R") || strcasestr(states, "RUNNING")))))
					continue;
			}
			if (cancel_task(&st, t, 1, sig, batch) != 0) {
				fake_close(&st);
				free(marks);
				return 1;
			}
		}
	}
	free(marks);
	if (fake_load(&st) != 0 || fake_schedule(&st) != 0 || fake_commit(&st) != 0)
		rc = 1;
	fake_close(&st);
	return rc;
}

/* ---------------- scontrol ---------------- */

static void show_config(void)
{
	char tb[64], kw[32];
	double kwv = fake_killwait();

	fake_fmt_time(fake_now(), tb, sizeof(tb));
	snprintf(kw, sizeof(kw), "%ld sec", (long)(kwv + 0.999));
	printf("Configuration data as of %s\n", tb);
#define KV(k, v) printf("%-23s = %s\n", k, v)
	KV("AccountingStorageBackupHost", "(null)");
	KV("AccountingStorageEnforce", "none");
	KV("AccountingStorageHost", "localhost");
	KV("AccountingStorageType", "accounting_storage/slurmdbd");
	KV("AccountingStoreFlags", "job_comment");
	KV("AuthType", "auth/munge");
	KV("BatchStartTimeout", "10 sec");
	KV("ClusterName", fake_cluster());
	KV("CompleteWait", "0 sec");
	KV("DefMemPerNode", "UNLIMITED");
	KV("InactiveLimit", "0 sec");
	KV("JobAcctGatherFrequency", "30");
	KV("JobAcctGatherType", "jobacct_gather/linux");
	KV("JobCompType", "jobcomp/none");
	KV("JobRequeue", "1");
	KV("KillOnBadExit", "0");
	KV("KillWait", kw);
	{
		char v[32];
		snprintf(v, sizeof(v), "%ld", fake_max_array_size());
		KV("MaxArraySize", v);
	}
	KV("MaxJobCount", "10000");
	KV("MinJobAge", "300 sec");
	KV("MpiDefault", "none");
	KV("OverTimeLimit", "0 min");
	KV("PreemptMode", "OFF");
	KV("PreemptType", "preempt/none");
	KV("ProctrackType", "proctrack/cgroup");
	KV("ReturnToService", "2");
	KV("SchedulerType", "sched/backfill");
	KV("SelectType", "select/cons_tres");
	KV("SLURM_CONF", "/etc/slurm/slurm.conf");
	KV("SLURM_VERSION", "22.05.8");
	KV("SlurmctldHost[0]", fake_nodename());
	KV("SlurmctldPort", "6817");
	KV("SlurmdPort", "6818");
	KV("TaskPlugin", "task/cgroup");
#undef KV
	printf("\nCgroup Support Configuration:\n");
	printf("%-23s = %s\n", "CgroupPlugin", "autodetect");
	printf("\nSlurmctld(primary) at %s is UP\n", fake_nodename());
}

static void show_job(struct fake_state *st, const struct fake_task *t)
{
	const struct fake_job *j = t->job;
	char sub[64], start[64], end[64], lim[64];
	const char *state = t->completing ? "COMPLETING" : t->state;
	char base[64];

	snprintf(base, sizeof(base), "%s", state);
	if (strchr(base, ' '))
		*strchr(base, ' ') = '\0';
	fake_fmt_time(j->submit, sub, sizeof(sub));
	fake_fmt_time(t->start, start, sizeof(start));
	fake_fmt_time(t->end, end, sizeof(end));
	if (j->time_limit < 0)
		snprintf(lim, sizeof(lim), "UNLIMITED");
	else
		fake_fmt_elapsed(j->time_limit, lim, sizeof(lim));
	printf("JobId=%ld", t->raw_id ? t->raw_id : t->array_id);
	if (j->is_array)
		printf(" ArrayJobId=%ld ArrayTaskId=%ld", j->id, t->task_id);
	printf(" JobName=%s\n", j->name);
	printf("   UserId=%s(%d) GroupId=%s(%d)\n", j->user, j->uid, j->user, j->gid);
	printf("   JobState=%s Reason=%s Dependency=%s\n", base,
	       strcmp(base, "PENDING") ? "None" : t->reason, j->dep && *j->dep ? j->dep : "(null)");
	printf("   Requeue=%d Restarts=%d BatchFlag=1 Reboot=0 ExitCode=", j->requeue, t->restarts);
	{
		char ec[32];
		fake_exitcode_of_status(t->status, ec, sizeof(ec));
		printf("%s\n", ec);
	}
	printf("   TimeLimit=%s\n", lim);
	printf("   SubmitTime=%s\n   StartTime=%s EndTime=%s\n", sub, start, end);
	printf("   Partition=%s\n   NodeList=%s\n", j->partition,
	       strcmp(base, "PENDING") ? fake_nodename() : "(null)");
	printf("   NumCPUs=%d\n", j->cpus);
	printf("   WorkDir=%s\n", j->workdir);
	if (j->comment && *j->comment)
		printf("   Comment=%s \n", j->comment);
	printf("   StdOut=%s/%s\n\n", j->workdir, j->out);
	(void)st;
}

int fake_scontrol_main(int argc, char **argv)
{
	struct fake_state st;
	int rc = 0, i = 1;

	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			printf("slurm 22.05.8\n");
			return 0;
		}
		i++;  /* -o, -d, -a ... accepted */
	}
	if (i >= argc) {
		fprintf(stderr, "scontrol: error: no command given (the fake supports show, requeue, ping)\n");
		return 1;
	}
	if (!strcasecmp(argv[i], "ping")) {
		printf("Slurmctld(primary) at %s is UP\n", fake_nodename());
		return 0;
	}
	if (!strcasecmp(argv[i], "show") || !strcasecmp(argv[i], "sh")) {
		const char *what = i + 1 < argc ? argv[i + 1] : "";
		if (!strncasecmp(what, "config", 4) && strlen(what) >= 4) {
			show_config();
			return 0;
		}
		if (!strncasecmp(what, "job", 3)) {
			char *marks;
			size_t k, n = 0;
			if (fake_open_scheduled(&st) != 0)
				return 1;
			fake_load(&st);
			marks = fake_xcalloc(st.ntasks + 1, 1);
			if (i + 2 < argc)
				n = fake_match_id(&st, argv[i + 2], marks);
			else
				memset(marks, 1, st.ntasks), n = st.ntasks;
			if (i + 2 < argc && n == 0) {
				fprintf(stderr, "slurm_load_jobs error: Invalid job id specified\n");
				rc = 1;
			}
			for (k = 0; k < st.ntasks; k++)
				if (marks[k] && !st.tasks[k].cancelled_pending)
					show_job(&st, &st.tasks[k]);
			free(marks);
			fake_close(&st);
			return rc;
		}
		fprintf(stderr, "scontrol: error: the fake supports only 'show config' and 'show job'\n");
		return 1;
	}
	if (!strcasecmp(argv[i], "requeue")) {
		char buf[FAKE_TEXT_MAX], *tok, *save = NULL, *marks;
		if (i + 1 >= argc) {
			fprintf(stderr, "scontrol: error: too few arguments for keyword:requeue\n");
			return 1;
		}
		if (fake_open(&st) != 0 || fake_load(&st) != 0) {
			fake_close(&st);
			return 1;
		}
		marks = fake_xcalloc(st.ntasks + 1, 1);
		snprintf(buf, sizeof(buf), "%s", argv[argc - 1]);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			size_t k;
			memset(marks, 0, st.ntasks + 1);
			if (fake_match_id(&st, tok, marks) == 0) {
				fprintf(stderr, "Requeue of JobId=%s failed: Invalid job id specified\n", tok);
				rc = 1;
				continue;
			}
			for (k = 0; k < st.ntasks; k++) {
				if (marks[k] && fake_requeue_request(&st, &st.tasks[k], tok) != 0)
					rc = 1;
			}
		}
		free(marks);
		if (rc == 0 && (fake_load(&st) != 0 || fake_schedule(&st) != 0 || fake_commit(&st) != 0))
			rc = 1;
		else if (rc != 0)
			fake_commit(&st);
		fake_close(&st);
		return rc;
	}
	fprintf(stderr, "scontrol: error: invalid keyword: %s\n", argv[i]);
	return 1;
}
