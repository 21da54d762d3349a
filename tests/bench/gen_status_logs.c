/* gen_status_logs: writes the event logs of a submitted benchmark, as if
 * every child had run, for tests/bench/bench_status.sh.
 *
 *   gen_status_logs DIR BENCH-DIGEST < LINES
 *
 * DIR is a benchmark directory made by `sbctl submit` (its keys/hmac.key
 * signs the records).  Each line of stdin names one child:
 *
 *   INDEX CHILD-DIGEST JOB-ID ARRAY-JOB-ID TASK-ID
 *
 * and gets DIR/events/<INDEX/1000>/<INDEX>.a0.j<JOB-ID>.r0.log with the four
 * records an agent writes for a short command (start, heartbeat, heartbeat,
 * finish with exit 0), with payloads shaped like sbagent's.  A line may go
 * on with the attempt, the exit code and the metrics of the finish record
 * (tests/report/test_report_sizes.sh):
 *
 *   INDEX CHILD-DIGEST JOB-ID ARRAY-JOB-ID TASK-ID ATTEMPT EXIT [NAME=NUMBER...]
 *
 * (the names in bytewise order); the log is then <INDEX>.a<ATTEMPT>..., its
 * start record names metrics.json as the metrics file when there are
 * metrics, and its records begin ATTEMPT * 5 minutes later.  Records go
 * through the library's log writer (so they are exactly what sbagent
 * produces), into a memfd first: the writer fsyncs every record, which on a
 * disk would make generating 400,000 records take minutes; the bytes are
 * then copied to the real file in one write. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>

#include "sbench/key.h"
#include "sbench/log.h"

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "gen_status_logs: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(1);
}

static void str(msgpack_packer *pk, const char *s)
{
	msgpack_pack_str(pk, strlen(s));
	msgpack_pack_str_body(pk, s, strlen(s));
}

/* keys in canonical (bytewise sorted) order, as sbagent writes them */
static void start_payload(msgpack_sbuffer *sb, const char *cwd, const char *key_id, bool metrics)
{
	msgpack_packer pk;

	msgpack_sbuffer_clear(sb);
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 12);
	str(&pk, "command");
	msgpack_pack_array(&pk, 4);
	str(&pk, "python");
	str(&pk, "train.py");
	str(&pk, "--lr=0.001");
	str(&pk, "--epochs=10");
	str(&pk, "cores");
	msgpack_pack_int64(&pk, 2);
	str(&pk, "cpu_model");
	str(&pk, "AMD EPYC 7763 64-Core Processor");
	str(&pk, "cpus_allowed");
	msgpack_pack_int64(&pk, 2);
	str(&pk, "cwd");
	str(&pk, cwd);
	str(&pk, "heartbeat_s");
	msgpack_pack_double(&pk, 60.0);
	str(&pk, "kernel");
	str(&pk, "6.1.0-18-amd64");
	str(&pk, "key_id");
	str(&pk, key_id);
	str(&pk, "kill_wait_s");
	msgpack_pack_double(&pk, 30.0);
	str(&pk, "metrics_file");
	if (metrics)
		str(&pk, "metrics.json");
	else
		msgpack_pack_nil(&pk);
	str(&pk, "result_files");
	msgpack_pack_array(&pk, 0);
	str(&pk, "slurm_restart");
	msgpack_pack_nil(&pk);
}

static void heartbeat_payload(msgpack_sbuffer *sb, int i)
{
	msgpack_packer pk;

	msgpack_sbuffer_clear(sb);
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 4);
	str(&pk, "elapsed_s");
	msgpack_pack_double(&pk, 60.0 * i + 0.003);
	str(&pk, "max_rss_kb");
	msgpack_pack_int64(&pk, 181234 + i);
	str(&pk, "sys_s");
	msgpack_pack_double(&pk, 0.25 * i);
	str(&pk, "user_s");
	msgpack_pack_double(&pk, 59.5 * i);
}

/* The finish record: exit code ex, the n metrics "NAME=NUMBER" of m. */
static void finish_payload(msgpack_sbuffer *sb, int ex, char **m, int n)
{
	msgpack_packer pk;
	int k;

	msgpack_sbuffer_clear(sb);
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 11);
	str(&pk, "core_dumped");
	msgpack_pack_false(&pk);
	str(&pk, "error");
	msgpack_pack_nil(&pk);
	str(&pk, "exit_code");
	msgpack_pack_int64(&pk, ex);
	str(&pk, "max_rss_kb");
	msgpack_pack_int64(&pk, 182048);
	str(&pk, "metrics");
	msgpack_pack_map(&pk, (uint32_t)n);
	for (k = 0; k < n; k++) {
		char *eq = strchr(m[k], '=');
		msgpack_pack_str(&pk, (size_t)(eq - m[k]));
		msgpack_pack_str_body(&pk, m[k], (size_t)(eq - m[k]));
		msgpack_pack_double(&pk, strtod(eq + 1, NULL));
	}
	str(&pk, "records");
	msgpack_pack_int64(&pk, 4);
	str(&pk, "results");
	msgpack_pack_array(&pk, 0);
	str(&pk, "signal");
	msgpack_pack_nil(&pk);
	str(&pk, "sys_s");
	msgpack_pack_double(&pk, 0.5);
	str(&pk, "user_s");
	msgpack_pack_double(&pk, 120.25);
	str(&pk, "wall_s");
	msgpack_pack_double(&pk, 121.5);
}

static int64_t clock_now(void *arg)
{
	int64_t *t = arg;

	*t += 60000000000LL; /* a minute between records */
	return *t;
}

int main(int argc, char **argv)
{
	char path[4096], line[512], cwd[4200], *buf = NULL;
	char bench[80] = "", digest[80], job[40], array[40], task[40];
	struct sb_error err;
	struct sb_key key;
	msgpack_sbuffer pl;
	size_t cap = 0;
	long long index, made = 0;
	int64_t t;
	struct timespec ts;

	if (argc != 3)
		die("usage: gen_status_logs DIR BENCH-DIGEST < 'INDEX DIGEST JOB ARRAY TASK' lines", NULL);
	snprintf(path, sizeof(path), "%s/keys/hmac.key", argv[1]);
	if (sb_key_load(path, &key, &err) < 0)
		die("cannot load the key", err.msg);
	snprintf(bench, sizeof(bench), "%s", argv[2]);
	if (strlen(bench) != 64 || strspn(bench, "0123456789abcdef") != 64)
		die("not a benchmark digest", argv[2]);
	msgpack_sbuffer_init(&pl);
	clock_gettime(CLOCK_REALTIME, &ts);
	while (fgets(line, sizeof(line), stdin)) {
		struct sb_run_ident id = { .restart = -1, .pid = 4242 };
		struct sb_log_writer *w;
		struct stat sb;
		int mfd, out, i, attempt = 0, ex = 0, nm = 0, used = 0;
		char *metrics[64], *p;
		ssize_t n;

		if (sscanf(line, "%lld %64s %39s %39s %39s %n", &index, digest, job, array, task, &used) != 5)
			die("bad input line", line);
		p = line + used;
		if (*p && sscanf(p, "%d %d %n", &attempt, &ex, &used) == 2) {
			for (p = strtok(p + used, " \n"); p && nm < 64; p = strtok(NULL, " \n")) {
				if (strchr(p, '=') == NULL)
					die("not NAME=NUMBER", p);
				metrics[nm++] = p;
			}
		}
		id.bench = bench;
		id.child = index;
		id.child_digest = digest;
		id.attempt = attempt;
		id.cluster = "lab";
		id.job_id = job;
		id.array_job_id = array;
		id.array_task_id = task;
		id.host = "node0042";
		if (index % 1000 == 0) {
			snprintf(path, sizeof(path), "%s/events/%lld", argv[1], index / 1000);
			if (mkdir(path, 0755) < 0 && errno != EEXIST)
				die("cannot create", path);
		}
		snprintf(path, sizeof(path), "%s/events/%lld/%lld.a%d.j%s.r0.log", argv[1], index / 1000,
			 index, attempt, job);
		snprintf(cwd, sizeof(cwd), "%s/runs/%lld", argv[1], index);
		mfd = memfd_create("log", MFD_CLOEXEC);
		if (mfd < 0)
			die("memfd_create", strerror(errno));
		w = sb_log_writer_create_fd(mfd, path, &key, &id, &err);
		if (w == NULL)
			die("cannot create a writer", err.msg);
		t = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec - 300000000000LL + index * 1000 +
		    attempt * 300000000000LL;
		sb_log_writer_set_clock(w, clock_now, &t);
		for (i = 0; i < 4; i++) {
			if (i == 0)
				start_payload(&pl, cwd, key.id, nm > 0);
			else if (i < 3)
				heartbeat_payload(&pl, i);
			else
				finish_payload(&pl, ex, metrics, nm);
			if (sb_log_writer_append(w, i == 0 ? "start" : i < 3 ? "heartbeat" : "finish",
						 pl.data, pl.size, &err) < 0)
				die("cannot append", err.msg);
		}
		if (fstat(mfd, &sb) < 0)
			die("fstat", strerror(errno));
		if ((size_t)sb.st_size > cap) {
			cap = (size_t)sb.st_size * 2;
			buf = realloc(buf, cap);
			if (buf == NULL)
				die("out of memory", NULL);
		}
		n = pread(mfd, buf, (size_t)sb.st_size, 0);
		if (n != sb.st_size)
			die("cannot read the memfd back", NULL);
		out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
		if (out < 0 || write(out, buf, (size_t)n) != n || close(out) < 0)
			die("cannot write", path);
		/* the writer owns mfd: closing it closes the memfd */
		mfd = -1;
		if (sb_log_writer_close(w, &err) < 0)
			die("cannot close", err.msg);
		made++;
	}
	msgpack_sbuffer_destroy(&pl);
	free(buf);
	sb_key_cleanse(&key);
	printf("%lld logs\n", made);
	return 0;
}
