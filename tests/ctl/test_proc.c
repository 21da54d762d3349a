/* sb_proc_run: external programs run directly, output captured and bounded. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/proc.h"

static void test_captures_stdout_and_exit_code(void **state)
{
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	struct sb_proc_result r;
	struct sb_error err;

	(void)state;
	assert_int_equal(sb_proc_run(argv, 4096, 0, &r, &err), 0);
	assert_int_equal(r.exit_code, 3);
	assert_int_equal(r.term_signal, 0);
	assert_string_equal(r.out, "out\n");
	assert_string_equal(r.err, "err\n");
	assert_int_equal(r.truncated, 0);
	sb_proc_result_release(&r);
}

/* A program's answer is taken as soon as it has exited: sbctl submit runs
 * sbatch once per chunk, and each call used to wait up to 50 ms more (the
 * pipes closed a moment before the exit was seen, and the next look was
 * 50 ms away).  20 runs of `true` took about 770 ms then, 20 ms now; a
 * bound of 20 x 20 ms leaves a loaded machine room. */
static void test_exit_is_noticed_at_once(void **state)
{
	char *argv[] = { "true", NULL };
	struct sb_proc_result r;
	struct timespec t0, t1;
	double ms;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 20; i++) {
		assert_int_equal(sb_proc_run(argv, 4096, 10000, &r, NULL), 0);
		assert_int_equal(r.exit_code, 0);
		sb_proc_result_release(&r);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	if (ms >= 20 * 20)
		fail_msg("20 runs of true took %.0f ms", ms);
}

static void test_arguments_reach_program_unchanged(void **state)
{
	char *argv[] = { "printf", "%s|", "a b", "$(id)", "'q'", NULL };
	struct sb_proc_result r;

	(void)state;
	assert_int_equal(sb_proc_run(argv, 4096, 0, &r, NULL), 0);
	assert_string_equal(r.out, "a b|$(id)|'q'|");
	sb_proc_result_release(&r);
}

static void test_missing_program_is_an_error(void **state)
{
	char *argv[] = { "sb-no-such-program-xyz", NULL };
	struct sb_proc_result r;
	struct sb_error err;

	(void)state;
	assert_int_equal(sb_proc_run(argv, 4096, 0, &r, &err), -1);
	assert_string_equal(err.msg, "'sb-no-such-program-xyz' not found in PATH");
}

static void test_output_is_bounded(void **state)
{
	char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 1000 ]; do echo 0123456789; i=$((i+1)); done", NULL };
	struct sb_proc_result r;

	(void)state;
	assert_int_equal(sb_proc_run(argv, 100, 0, &r, NULL), 0);
	assert_int_equal(r.out_len, 100);
	assert_int_equal(r.truncated, 1);
	assert_int_equal(r.exit_code, 0);
	sb_proc_result_release(&r);
}

static void test_timeout_kills(void **state)
{
	char *argv[] = { "sleep", "10", NULL };
	struct sb_proc_result r;

	(void)state;
	assert_int_equal(sb_proc_run(argv, 100, 200, &r, NULL), 0);
	assert_int_equal(r.timed_out, 1);
	assert_int_equal(r.term_signal, 15);
	assert_int_equal(r.exit_code, -1);
	sb_proc_result_release(&r);
}

static void test_killed_by_signal(void **state)
{
	char *argv[] = { "sh", "-c", "kill -9 $$", NULL };
	struct sb_proc_result r;

	(void)state;
	assert_int_equal(sb_proc_run(argv, 100, 0, &r, NULL), 0);
	assert_int_equal(r.term_signal, 9);
	assert_int_equal(r.timed_out, 0);
	sb_proc_result_release(&r);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 1 when pid is gone (or a zombie nobody reaps yet: it runs no more) */
static int dead(pid_t pid)
{
	char path[64], buf[512];
	FILE *f;
	char *p;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return p && (p[2] == 'Z' || p[2] == 'X');
}

/* polls (at most 5 s) until pid is dead */
static int dies(pid_t pid)
{
	double until = now_s() + 5;

	while (!dead(pid) && now_s() < until)
		usleep(20000);
	return dead(pid);
}

/* A program that backgrounds a sleeper holding its stdout and exits: the
 * call returns soon after the exit (not when the sleeper ends), with the
 * exit status, and the sleeper is killed with the process group. */
static void test_grandchild_holding_stdout_does_not_hang(void **state)
{
	char *argv[] = { "sh", "-c", "sleep 1000 & echo $!; exit 4", NULL };
	struct sb_proc_result r;
	double t0 = now_s();

	(void)state;
	alarm(60); /* before the fix this call never returned */
	assert_int_equal(sb_proc_run(argv, 4096, 20000, &r, NULL), 0);
	alarm(0);
	assert_true(now_s() - t0 < 10); /* far below the 20 s timeout */
	assert_int_equal(r.exit_code, 4);
	assert_int_equal(r.timed_out, 0);
	assert_true(atoi(r.out) > 0);
	assert_true(dies((pid_t)atoi(r.out)));
	sb_proc_result_release(&r);
}

/* The same with a program that hangs too: the timeout covers the whole
 * call. */
static void test_grandchild_and_hung_program_time_out(void **state)
{
	char *argv[] = { "sh", "-c", "sleep 1000 & echo $!; exec sleep 1000", NULL };
	struct sb_proc_result r;
	double t0 = now_s();

	(void)state;
	alarm(60);
	assert_int_equal(sb_proc_run(argv, 4096, 300, &r, NULL), 0);
	alarm(0);
	assert_true(now_s() - t0 < 10);
	assert_int_equal(r.timed_out, 1);
	assert_int_equal(r.term_signal, 15);
	assert_true(dies((pid_t)atoi(r.out)));
	sb_proc_result_release(&r);
}

/* A program (and its background sleeper) ignoring SIGTERM: SIGKILL to the
 * process group a second later. */
static void test_program_ignoring_sigterm_is_killed(void **state)
{
	char *argv[] = { "sh", "-c", "trap '' TERM; sleep 1000 & echo $!; while :; do sleep 0.05; done",
			 NULL };
	struct sb_proc_result r;
	double t0 = now_s();

	(void)state;
	alarm(60);
	assert_int_equal(sb_proc_run(argv, 4096, 300, &r, NULL), 0);
	alarm(0);
	assert_true(now_s() - t0 < 10);
	assert_true(now_s() - t0 >= 1.2); /* SIGTERM at 0.3 s was ignored, SIGKILL 1 s later */
	assert_int_equal(r.timed_out, 1);
	assert_int_equal(r.term_signal, 9);
	assert_true(dies((pid_t)atoi(r.out)));
	sb_proc_result_release(&r);
}

/* The program runs in its own process group: a Ctrl-C (SIGINT to sbctl's
 * group) does not reach it. */
static void test_program_has_its_own_process_group(void **state)
{
	char *argv[] = { "sh", "-c", "cut -d' ' -f5 /proc/$$/stat", NULL };
	struct sb_proc_result r;

	(void)state;
	assert_int_equal(sb_proc_run(argv, 4096, 10000, &r, NULL), 0);
	assert_int_not_equal(atoi(r.out), (int)getpgrp());
	sb_proc_result_release(&r);
}

/* sbctl killed by SIGKILL takes its program with it (PR_SET_PDEATHSIG):
 * an sbatch cannot go on and submit after sbctl died. */
static void test_program_dies_with_its_parent(void **state)
{
	char file[] = "/tmp/sb-test-proc-XXXXXX";
	int fd = mkstemp(file);
	pid_t mid, prog = 0;
	double until;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		char script[256];
		struct sb_proc_result r;
		snprintf(script, sizeof(script), "echo $$ > %s; sleep 1000", file);
		char *argv[] = { "sh", "-c", script, NULL };
		sb_proc_run(argv, 4096, 60000, &r, NULL);
		_exit(0);
	}
	for (until = now_s() + 10; prog <= 0 && now_s() < until; usleep(20000)) {
		FILE *f = fopen(file, "r");
		if (f) {
			if (fscanf(f, "%d", &prog) != 1)
				prog = 0;
			fclose(f);
		}
	}
	assert_true(prog > 0);
	kill(mid, SIGKILL);
	waitpid(mid, NULL, 0);
	assert_true(dies(prog));
	unlink(file);
}

/* With the interrupt signals deferred, a SIGINT during the call does not
 * stop the program: it ends and its output is kept, the signal is
 * reported; a second one kills it at once. */
static void test_interrupt_waits_then_second_kills(void **state)
{
	char *once[] = { "sh", "-c", "kill -INT $PPID; sleep 0.3; echo done", NULL };
	char *twice[] = { "sh", "-c", "kill -INT $PPID; sleep 0.2; kill -TERM $PPID; exec sleep 1000", NULL };
	struct sb_proc_opts o = { .max_output = 4096, .timeout_ms = 60000, .interrupt_wait_ms = 30000 };
	struct sb_proc_result r;
	sigset_t saved;
	double t0;

	(void)state;
	sb_proc_defer_interrupts(&saved);
	assert_int_equal(sb_proc_run_opts(once, &o, &r, NULL), 0);
	assert_int_equal(r.interrupted, SIGINT);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(r.out, "done\n");
	sb_proc_result_release(&r);
	assert_int_equal(sb_proc_resume_interrupts(&saved), 0); /* already taken */

	sb_proc_defer_interrupts(&saved);
	t0 = now_s();
	alarm(60);
	assert_int_equal(sb_proc_run_opts(twice, &o, &r, NULL), 0);
	alarm(0);
	assert_true(now_s() - t0 < 10);
	assert_int_equal(r.interrupted, SIGINT);
	assert_int_equal(r.term_signal, 9);
	sb_proc_result_release(&r);
	assert_int_equal(sb_proc_resume_interrupts(&saved), 0);

	/* one that arrives outside a call is taken by the resume */
	sb_proc_defer_interrupts(&saved);
	raise(SIGTERM);
	assert_int_equal(sb_proc_resume_interrupts(&saved), SIGTERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captures_stdout_and_exit_code),
		cmocka_unit_test(test_exit_is_noticed_at_once),
		cmocka_unit_test(test_arguments_reach_program_unchanged),
		cmocka_unit_test(test_missing_program_is_an_error),
		cmocka_unit_test(test_output_is_bounded),
		cmocka_unit_test(test_timeout_kills),
		cmocka_unit_test(test_killed_by_signal),
		cmocka_unit_test(test_grandchild_holding_stdout_does_not_hang),
		cmocka_unit_test(test_grandchild_and_hung_program_time_out),
		cmocka_unit_test(test_program_ignoring_sigterm_is_killed),
		cmocka_unit_test(test_program_has_its_own_process_group),
		cmocka_unit_test(test_program_dies_with_its_parent),
		cmocka_unit_test(test_interrupt_waits_then_second_kills),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
