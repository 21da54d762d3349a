/* bench_plan: plans grids of 10,000 .. 1,000,000 children (DESIGN §10:
 * 1,000,000 in under 2 s, memory linear in children) and prints the time of
 * each step and the peak RSS.  usage: bench_plan [CHILDREN] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include "sbench/plan.h"
#include "sbench/spec.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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
	struct sb_error err = { { 0 } };
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

int main(int argc, char **argv)
{
	long target = argc > 1 ? atol(argv[1]) : 1000000;
	double t0 = now();

	if (argc > 1)
		return run(target);
	/* each size in its own process, so that peak RSS is per size */
	for (target = 10000; target <= 1000000; target *= 10) {
		pid_t pid = fork();
		int st;
		if (pid == 0)
			_exit(run(target));
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
	}
	printf("budget: 1,000,000 children in under 2 s (DESIGN §10); total %.3f s\n", now() - t0);
	return 0;
}
