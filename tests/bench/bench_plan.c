/* bench_plan: plans grids of 10,000 .. 1,000,000 children (docs/performance.md:
 * 1,000,000 in under 2 s, memory linear in children) and prints the time of
 * each step and the peak RSS.  usage: bench_plan [CHILDREN] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include <msgpack.h>

#include "base/canon.h"
#include "sbench/plan.h"
#include "sbench/spec.h"
#include "tests/bench/bench_clock.h"

static long peak_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* A realistic sweep: a x b x c x repeats = children (a=100 ints, b floats,
 * c strings), an argv command with 5 substitutions and an env value. */
static char *make_spec(long children)
{
	long a = 100, b = 100, c = children / 10000 > 0 ? children / 10000 : 1, i;
	size_t cap = 1 << 20, n = 0;
	char *s = malloc(cap);

	if (s == NULL)
		return NULL;
	if (children < 10000) {
		a = 10;
		b = 10;
		c = children / 100 > 0 ? children / 100 : 1;
	}
	n += (size_t)snprintf(s + n, cap - n,
			      "name: bench-plan\n"
			      "command: [python, train.py, --a, \"{a}\", --b, \"{b}\", --c, \"{c}\", --seed, \"{repeat}\", --child, \"{child}\"]\n"
			      "env: {RUN: \"{c}-{a}\"}\n"
			      "results: [metrics.json]\nmetrics: metrics.json\n"
			      "slurm: {partition: gpu, mem: 16G, cpus_per_task: 4}\n"
			      "parameters:\n  a: [");
	for (i = 0; i < a; i++)
		n += (size_t)snprintf(s + n, cap - n, "%s%ld", i ? ", " : "", i);
	n += (size_t)snprintf(s + n, cap - n, "]\n  b: [");
	for (i = 0; i < b; i++)
		n += (size_t)snprintf(s + n, cap - n, "%s%g", i ? ", " : "", 0.0001 + (double)i / 1000);
	n += (size_t)snprintf(s + n, cap - n, "]\n  c: [");
	for (i = 0; i < c; i++)
		n += (size_t)snprintf(s + n, cap - n, "%smodel%ld", i ? ", " : "", i);
	snprintf(s + n, cap - n, "]\n");
	return s;
}

static int run(long children)
{
	struct sb_error err = { 0 };
	struct sb_spec *spec;
	struct sb_plan *plan;
	struct sb_child *ch;
	double t0, t1, t2, t3;
	size_t i, bytes = 0;
	char *text = make_spec(children);

	if (text == NULL)
		return 1;
	fflush(stdout);
	t0 = now();
	spec = sb_spec_load_buffer(text, strlen(text), "bench.yaml", &err);
	if (spec == NULL) {
		fprintf(stderr, "bench_plan: %s\n", err.msg);
		free(text);
		return 1;
	}
	t1 = now();
	plan = sb_plan_create(spec, &err);
	if (plan == NULL) {
		fprintf(stderr, "bench_plan: %s\n", err.msg);
		sb_spec_destroy(spec);
		free(text);
		return 1;
	}
	t2 = now();
	ch = sb_child_create();
	for (i = 0; ch != NULL && i < sb_plan_count(plan); i++) {
		if (sb_plan_child(plan, i, ch, &err) < 0)
			break;
		bytes += strlen(sb_child_argv(ch)[4]);
	}
	t3 = now();
	printf("plan %8zu children: load %.3f s, plan+digests %.3f s (%.0f ns/child), "
	       "resolve all %.3f s; peak RSS %ld KiB (%s...)\n",
	       sb_plan_count(plan), t1 - t0, t2 - t1, (t2 - t1) * 1e9 / (double)sb_plan_count(plan),
	       t3 - t2, peak_kb(), sb_plan_benchmark_digest_hex(plan) + 52);
	(void)bytes;
	fflush(stdout);
	sb_child_destroy(ch);
	sb_plan_destroy(plan);
	sb_spec_destroy(spec);
	free(text);
	return 0;
}

/* The canonical writer of ctl/base/canon.c against msgpack-c's packer over an
 * sbuffer, for the map of a typical child (the bytes are equal:
 * tests/spec/test_spec.c).  This is why plan.c uses its own writer. */
static void writer_vs_msgpack(void)
{
	static const char *const argv[] = { "python", "train.py", "--lr", "0.001", "--model", "resnet18" };
	const long rounds = 1000000;
	struct sb_canon c;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	double t0, t1, t2;
	size_t sum = 0, k;
	long r;

	sb_canon_init(&c, 1 << 20);
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	t0 = now();
	for (r = 0; r < rounds; r++) {
		sb_canon_reset(&c);
		sb_canon_map(&c, 4);
		sb_canon_str(&c, "command", 7);
		sb_canon_array(&c, 6);
		for (k = 0; k < 6; k++)
			sb_canon_cstr(&c, argv[k]);
		sb_canon_str(&c, "params", 6);
		sb_canon_map(&c, 2);
		sb_canon_str(&c, "lr", 2);
		sb_canon_double(&c, 0.001);
		sb_canon_str(&c, "model", 5);
		sb_canon_str(&c, "resnet18", 8);
		sb_canon_str(&c, "repeat", 6);
		sb_canon_int(&c, r & 7);
		sb_canon_str(&c, "results", 7);
		sb_canon_array(&c, 0);
		sum += c.len;
	}
	t1 = now();
	for (r = 0; r < rounds; r++) {
		msgpack_sbuffer_clear(&sb);
		msgpack_pack_map(&pk, 4);
		msgpack_pack_str_with_body(&pk, "command", 7);
		msgpack_pack_array(&pk, 6);
		for (k = 0; k < 6; k++)
			msgpack_pack_str_with_body(&pk, argv[k], strlen(argv[k]));
		msgpack_pack_str_with_body(&pk, "params", 6);
		msgpack_pack_map(&pk, 2);
		msgpack_pack_str_with_body(&pk, "lr", 2);
		msgpack_pack_double(&pk, 0.001);
		msgpack_pack_str_with_body(&pk, "model", 5);
		msgpack_pack_str_with_body(&pk, "resnet18", 8);
		msgpack_pack_str_with_body(&pk, "repeat", 6);
		msgpack_pack_int64(&pk, r & 7);
		msgpack_pack_str_with_body(&pk, "results", 7);
		msgpack_pack_array(&pk, 0);
		sum -= sb.size;
	}
	t2 = now();
	printf("canonical map of a child x %ld: ctl/base/canon.c %.0f ns, msgpack-c sbuffer %.0f ns%s\n",
	       rounds, (t1 - t0) * 1e9 / (double)rounds, (t2 - t1) * 1e9 / (double)rounds,
	       sum == 0 ? "" : " (BYTE COUNTS DIFFER)");
	fflush(stdout);
	sb_canon_release(&c);
	msgpack_sbuffer_destroy(&sb);
}

int main(int argc, char **argv)
{
	long target = argc > 1 ? atol(argv[1]) : 1000000;
	double t0 = now();

	if (argc > 1)
		return run(target);
	writer_vs_msgpack();
	/* each size in its own process, so that peak RSS is per size */
	for (target = 10000; target <= 1000000; target *= 10) {
		pid_t pid = fork();
		int st;
		if (pid == 0)
			_exit(run(target));
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
	}
	printf("budget: 1,000,000 children in under 2 s (docs/performance.md); total %.3f s\n", now() - t0);
	return 0;
}
