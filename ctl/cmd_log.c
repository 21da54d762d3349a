/* sbctl log PATH [--key KEYFILE] [--head HEAD] [--json]: list and verify
 * event logs (DESIGN §4; docs/sbctl-log.md). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl/bench.h"
#include "ctl/commands.h"
#include "ctl/logview.h"
#include "proto/json.h"
#include "sbench/key.h"
#include "sbench/log.h"

#define MAX_DEPTH 16
#define MAX_FILES 10000000

static const char log_usage[] =
	"usage: sbctl log PATH [--key KEYFILE] [--head HEAD] [--json]\n"
	"\n"
	"Lists and verifies an event log file, or every log of a benchmark\n"
	"directory (PATH at or below it; the key is then read from its\n"
	"keys/hmac.key unless --key is given).\n"
	"\n"
	"  --key KEYFILE  the HMAC key file (32 bytes, mode 0600)\n"
	"  --head HEAD    COUNT:TAGHEX seen before; report rollback if the log\n"
	"                 ends before it or disagrees with it (one file only)\n"
	"  --json         one JSON object per record, then summary lines\n"
	"\n"
	"exit status: 0 all verified, 3 a problem found, 2 usage or input error,\n"
	"1 I/O error\n";

struct paths {
	char **v;
	size_t n, cap;
};

struct totals {
	size_t files, records, verified;
	enum sb_log_tail tail;
	int io_errors;
};

static int paths_add(struct paths *p, char *s)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		char **v = realloc(p->v, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = s;
	return 0;
}

static void paths_free(struct paths *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);

	if (s != NULL)
		snprintf(s, n, "%s%s%s", a, a[0] && a[strlen(a) - 1] == '/' ? "" : "/", b);
	return s;
}

/* Every regular file below dir (not following symlinks). */
static int list_files(const char *dir, struct paths *out, int depth)
{
	DIR *d;
	struct dirent *e;
	struct stat st;
	char *p;
	int rc = 0;

	if (depth > MAX_DEPTH) {
		fprintf(stderr, "sbctl log: '%s' is nested more than %d directories deep; not read\n",
			dir, MAX_DEPTH);
		return -1;
	}
	d = opendir(dir);
	if (d == NULL) {
		fprintf(stderr, "sbctl log: cannot read directory '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = join(dir, e->d_name);
		if (p == NULL || lstat(p, &st) < 0) {
			fprintf(stderr, "sbctl log: cannot stat '%s': %s\n", p ? p : e->d_name,
				p ? strerror(errno) : "out of memory");
			free(p);
			rc = -1;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (list_files(p, out, depth + 1) < 0)
				rc = -1;
			free(p);
		} else if (S_ISREG(st.st_mode) && out->n < MAX_FILES) {
			if (paths_add(out, p) < 0) {
				free(p);
				rc = -1;
			}
		} else {
			fprintf(stderr, "sbctl log: skipping '%s': not a regular file\n", p);
			free(p);
		}
	}
	closedir(d);
	return rc;
}

static bool exists(const char *dir, const char *name)
{
	char *p = join(dir, name);
	struct stat st;
	bool ok = p != NULL && stat(p, &st) == 0;

	free(p);
	return ok;
}

/* The benchmark directory at or above path (canonical), or NULL. */
static char *find_benchdir(const char *path)
{
	char *dir = realpath(path, NULL), *slash;
	struct stat st;

	if (dir == NULL)
		return NULL;
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		slash = strrchr(dir, '/');
		if (slash != NULL)
			*(slash == dir ? slash + 1 : slash) = '\0';
	}
	for (;;) {
		if (exists(dir, "benchmark.msgpack") || exists(dir, "keys"))
			return dir;
		slash = strrchr(dir, '/');
		if (slash == NULL || (slash == dir && dir[1] == '\0'))
			break;
		*(slash == dir ? slash + 1 : slash) = '\0';
	}
	free(dir);
	return NULL;
}

static int tail_rank(enum sb_log_tail t)
{
	return t == SB_LOG_TAIL_OK ? 0 : t == SB_LOG_TAIL_TORN ? 1 : 2;
}

static void print_summary_json(FILE *out, const char *path, size_t records,
	size_t verified, enum sb_log_tail tail, const char *detail,
	const struct sb_log_head *head, bool with_head, size_t files)
{
	struct sb_json j;
	char hbuf[SB_LOG_HEAD_TEXT_MAX];

	sb_json_init(&j, out);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "format");
	sb_json_int(&j, 1);
	sb_json_key(&j, "summary");
	sb_json_obj_begin(&j);
	if (path != NULL) {
		sb_json_key(&j, "path");
		sb_json_str(&j, path);
	} else {
		sb_json_key(&j, "files");
		sb_json_uint(&j, files);
	}
	sb_json_key(&j, "records");
	sb_json_uint(&j, records);
	sb_json_key(&j, "verified");
	sb_json_uint(&j, verified);
	sb_json_key(&j, "tail");
	sb_json_str(&j, sb_log_tail_name(tail));
	if (detail != NULL && detail[0] != '\0') {
		sb_json_key(&j, "detail");
		sb_json_str(&j, detail);
	}
	if (with_head) {
		sb_json_key(&j, "head");
		sb_json_str(&j, head ? sb_log_head_format(head, hbuf) : NULL);
	}
	sb_json_obj_end(&j);
	sb_json_obj_end(&j);
	fputc('\n', out);
}

/* Reads, prints and tallies one file. */
static void one_file(struct sb_log_verifier *v, const char *path,
	const struct sb_log_expect *expect, bool json, bool many, struct totals *t)
{
	struct sb_error err = { 0 };
	struct sb_log_result *r;
	struct sb_log_head head;
	enum sb_log_tail tail;
	char hbuf[SB_LOG_HEAD_TEXT_MAX];
	size_t i, n, nv;
	bool has_head;

	r = sb_log_read_file(v, path, expect, &err);
	if (r == NULL) {
		fprintf(stderr, "sbctl log: %s\n", err.msg);
		t->io_errors++;
		return;
	}
	n = sb_log_result_count(r);
	nv = sb_log_result_verified(r);
	tail = sb_log_result_tail(r);
	has_head = sb_log_result_head(r, &head) == 0;
	if (!json && many)
		printf("== %s\n", path);
	for (i = 0; i < n; i++) {
		const struct sb_log_record *rec = sb_log_result_record(r, i);
		if (json) {
			struct sb_json j;
			sb_json_init(&j, stdout);
			sb_logview_json_record(&j, rec, many ? path : NULL);
			fputc('\n', stdout);
		} else {
			sb_logview_human_record(stdout, rec);
		}
	}
	if (json) {
		if (many)
			print_summary_json(stdout, path, n, nv, tail,
				sb_log_result_detail(r), has_head ? &head : NULL, true, 0);
	} else if (tail == SB_LOG_TAIL_OK) {
		printf("summary: %s: %zu records, %zu verified, tail ok (%s)%s%s\n", path,
			n, nv, sb_log_tail_describe(tail), has_head ? "; head " : "",
			has_head ? sb_log_head_format(&head, hbuf) : "");
	} else {
		printf("summary: %s: %zu records, %zu verified, tail %s: %s\n", path,
			n, nv, sb_log_tail_name(tail), sb_log_result_detail(r));
	}
	if (tail != SB_LOG_TAIL_OK)
		fprintf(stderr, "sbctl log: %s: %s (%s)\n", path, sb_log_result_detail(r),
			sb_log_tail_name(tail));
	t->files++;
	t->records += n;
	t->verified += nv;
	if (tail_rank(tail) > tail_rank(t->tail))
		t->tail = tail; /* the first of the worst rank, in path order */
	if (!many && json)
		print_summary_json(stdout, NULL, n, nv, tail, sb_log_result_detail(r),
			has_head ? &head : NULL, true, 1);
	sb_log_result_destroy(r);
}

int cmd_log(int argc, char **argv)
{
	const char *path = NULL, *keyfile = NULL, *head_text = NULL;
	struct sb_error err = { 0 };
	struct sb_log_verifier *v = NULL;
	struct sb_log_head head;
	struct sb_log_expect expect = { 0 };
	struct sb_run_ident want = { .child = -1, .attempt = -1, .restart = -1, .pid = -1 };
	char bench_digest[65];
	struct totals t = { 0 };
	struct paths files = { 0 };
	struct sb_key key;
	struct stat st;
	char *benchdir = NULL, *keypath = NULL, *events = NULL;
	bool json = false, is_dir;
	int i, rc = SB_EXIT_USAGE;
	static char outbuf[1 << 16];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(log_usage, stdout);
			return SB_EXIT_OK;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--key") && i + 1 < argc) {
			keyfile = argv[++i];
		} else if (!strncmp(argv[i], "--key=", 6)) {
			keyfile = argv[i] + 6;
		} else if (!strcmp(argv[i], "--head") && i + 1 < argc) {
			head_text = argv[++i];
		} else if (!strncmp(argv[i], "--head=", 7)) {
			head_text = argv[i] + 7;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			fprintf(stderr, "sbctl log: unknown option or missing value: '%s'\n", argv[i]);
			fputs(log_usage, stderr);
			return SB_EXIT_USAGE;
		} else if (path == NULL) {
			path = argv[i];
		} else {
			fprintf(stderr, "sbctl log: more than one PATH given ('%s', '%s')\n", path, argv[i]);
			return SB_EXIT_USAGE;
		}
	}
	if (path == NULL) {
		fputs(log_usage, stderr);
		return SB_EXIT_USAGE;
	}
	if (stat(path, &st) < 0) {
		fprintf(stderr, "sbctl log: cannot read '%s': %s\n", path, strerror(errno));
		return SB_EXIT_USAGE;
	}
	is_dir = S_ISDIR(st.st_mode);
	if (head_text != NULL) {
		if (is_dir) {
			fprintf(stderr, "sbctl log: --head applies to one log file, and '%s' is a directory\n", path);
			return SB_EXIT_USAGE;
		}
		if (sb_log_head_parse(head_text, &head, &err) < 0) {
			fprintf(stderr, "sbctl log: %s\n", err.msg);
			return SB_EXIT_USAGE;
		}
		expect.head = &head;
	}
	benchdir = find_benchdir(path);
	if (benchdir != NULL && exists(benchdir, SB_BENCH_RECORD)) {
		/* every log of a benchmark must name it: a file spliced in from
		 * another benchmark is then foreign */
		struct sb_bench *b;
		if (sb_bench_check_dir(benchdir, &err) < 0) {
			fprintf(stderr, "sbctl log: %s\n", err.msg);
			rc = SB_EXIT_USAGE;
			goto out;
		}
		b = sb_bench_open(benchdir, &err);
		if (b == NULL) {
			fprintf(stderr, "sbctl log: warning: %s; logs are checked without "
				"the benchmark's digest\n", err.msg);
		} else {
			snprintf(bench_digest, sizeof(bench_digest), "%s", b->digest);
			want.bench = bench_digest;
			expect.id = &want;
			sb_bench_destroy(b);
		}
	}
	if (keyfile == NULL) {
		if (benchdir == NULL) {
			fprintf(stderr, "sbctl log: no key: '%s' is not in a benchmark directory "
				"(none of it or its parents has benchmark.msgpack or keys/); "
				"give --key KEYFILE\n", path);
			goto out;
		}
		keypath = join(benchdir, "keys/hmac.key");
		keyfile = keypath;
	}
	if (keyfile == NULL || sb_key_load(keyfile, &key, &err) < 0) {
		fprintf(stderr, "sbctl log: %s\n", keyfile ? err.msg : "out of memory");
		goto out;
	}
	v = sb_log_verifier_create(&key, &err);
	sb_key_cleanse(&key);
	if (v == NULL) {
		fprintf(stderr, "sbctl log: %s\n", err.msg);
		rc = SB_EXIT_RUNTIME;
		goto out;
	}
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (!is_dir) {
		one_file(v, path, &expect, json, false, &t);
	} else {
		/* Inside events/ or submissions/ read what is below PATH; elsewhere
		 * in a benchmark directory read both; outside one, every file below
		 * PATH.  Paths are printed as the user spelled them. */
		static const char *const logdirs[] = { "events", "submissions" };
		char *real = realpath(path, NULL), *base = NULL;
		bool inside = benchdir == NULL;

		for (size_t d = 0; !inside && d < 2; d++) {
			char *sub = join(benchdir, logdirs[d]);
			size_t n = sub ? strlen(sub) : 0;
			inside = sub && real && !strncmp(real, sub, n) && (real[n] == '/' || real[n] == '\0');
			free(sub);
		}
		if (inside) {
			if (list_files(path, &files, 0) < 0)
				t.io_errors++;
		} else {
			base = real && !strcmp(real, benchdir) ? strdup(path) : strdup(benchdir);
			for (size_t d = 0; d < 2; d++) {
				free(events);
				events = base ? join(base, logdirs[d]) : NULL;
				if (events != NULL && stat(events, &st) == 0 &&
				    list_files(events, &files, 0) < 0)
					t.io_errors++;
			}
			if (files.n == 0 && !json)
				printf("no logs yet: '%s' has no records in events/ or submissions/\n",
				       benchdir);
		}
		free(base);
		free(real);
		if (files.n > 0)
			qsort(files.v, files.n, sizeof(files.v[0]), cmp_path);
		for (size_t k = 0; k < files.n; k++)
			one_file(v, files.v[k], &expect, json, true, &t);
		if (json)
			print_summary_json(stdout, NULL, t.records, t.verified, t.tail,
				NULL, NULL, false, t.files);
		else
			printf("total: %zu files, %zu records, %zu verified, tail %s\n",
				t.files, t.records, t.verified, sb_log_tail_name(t.tail));
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "sbctl log: cannot write the output: %s\n", strerror(errno));
		rc = SB_EXIT_RUNTIME;
	} else if (t.io_errors > 0) {
		rc = SB_EXIT_RUNTIME;
	} else if (t.tail != SB_LOG_TAIL_OK || t.verified != t.records) {
		rc = SB_EXIT_PROBLEM;
	} else {
		rc = SB_EXIT_OK;
	}
out:
	sb_log_verifier_destroy(v);
	paths_free(&files);
	free(events);
	free(keypath);
	free(benchdir);
	return rc;
}
