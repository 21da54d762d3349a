/* The lock of a benchmark directory across nodes (ctl/base/lock.h): the
 * fcntl lock between the processes of this node, the owner file between
 * nodes.  Another node's holder is simulated by writing its owner file as
 * that node would (another host name). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/lock.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sb-lock.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static char *join(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* The owner file of a holder on node "login2", renewed `age` seconds ago. */
static void foreign_owner(long age)
{
	FILE *f = fopen(join("lock.owner"), "w");
	long now = (long)time(NULL);

	assert_non_null(f);
	fprintf(f, "sbench-lock 1 host=login2 boot=b0b mntns=mnt:[1] pid=4242 since=%ld renewed=%ld\n",
		now - age - 5, now - age);
	fclose(f);
}

static int told;
static char told_holder[256];

static void on_wait(void *arg, const char *holder)
{
	(void)arg;
	told++;
	snprintf(told_holder, sizeof(told_holder), "%s", holder);
}

static void test_exclusive_on_this_node(void **state)
{
	struct sb_error err;
	struct sb_lock lk;
	char holder[256];
	int sync_pipe[2], status;
	pid_t child;
	char c;

	(void)state;
	assert_int_equal(pipe(sync_pipe), 0);
	child = fork();
	if (child == 0) {
		struct sb_lock mine;
		if (sb_lock_take(join("lock"), NULL, NULL, &mine, NULL) < 0 || write(sync_pipe[1], "x", 1) != 1)
			_exit(1);
		sleep(30); /* killed by the parent */
		_exit(0);
	}
	assert_int_equal(read(sync_pipe[0], &c, 1), 1);
	/* held: by the fcntl lock, and the owner file names the holder */
	assert_int_equal(sb_lock_held(join("lock"), holder, sizeof(holder)), 1);
	snprintf(told_holder, sizeof(told_holder), "pid %ld", (long)child);
	assert_string_equal(holder, told_holder);
	assert_int_equal(access(join("lock.owner"), F_OK), 0);
	/* the holder dies without releasing: its owner file stays, but no
	 * fcntl lock of this node backs it, so nobody holds the lock */
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	assert_int_equal(access(join("lock.owner"), F_OK), 0);
	assert_int_equal(sb_lock_held(join("lock"), NULL, 0), 0);
	told = 0;
	assert_int_equal(sb_lock_take(join("lock"), on_wait, NULL, &lk, &err), 0);
	assert_int_equal(told, 0);
	/* the owner file is ours now; released, it is gone */
	assert_int_equal(sb_lock_held(join("lock"), NULL, 0), 0); /* this process: F_GETLK sees no other */
	sb_lock_release(&lk);
	assert_int_equal(access(join("lock.owner"), F_OK), -1);
	sb_lock_release(&lk); /* twice: harmless */
}

static void test_waits_for_another_node(void **state)
{
	struct sb_error err;
	struct sb_lock lk;
	char holder[256];
	int out[2], status;
	pid_t child;
	char line[256] = "";

	(void)state;
	foreign_owner(1);
	assert_int_equal(sb_lock_held(join("lock"), holder, sizeof(holder)), 1);
	assert_non_null(strstr(holder, "pid 4242 on login2 since "));
	/* a taker waits (told once, whom), and takes it once the file is gone */
	assert_int_equal(pipe(out), 0);
	child = fork();
	if (child == 0) {
		struct sb_lock mine;
		told = 0;
		int rc = sb_lock_take(join("lock"), on_wait, NULL, &mine, NULL);
		dprintf(out[1], "%d %d %s\n", rc, told, told_holder);
		_exit(rc == 0 ? 0 : 1);
	}
	usleep(700000);
	assert_int_equal(waitpid(child, &status, WNOHANG), 0); /* still waiting */
	assert_int_equal(unlink(join("lock.owner")), 0);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(read(out[0], line, sizeof(line) - 1) > 0);
	assert_non_null(strstr(line, "0 1 pid 4242 on login2 since "));
	/* the child died holding it: this node's leftover, taken over */
	assert_int_equal(sb_lock_take(join("lock"), NULL, NULL, &lk, &err), 0);
	sb_lock_release(&lk);
}

static void test_abandoned_by_another_node(void **state)
{
	struct sb_error err;
	struct sb_lock lk;

	(void)state;
	foreign_owner(SB_LOCK_ABANDONED_S + SB_LOCK_RENEW_S + 10);
	/* not held any more, but never broken: the message says what to remove */
	assert_int_equal(sb_lock_held(join("lock"), NULL, 0), 0);
	assert_int_equal(sb_lock_take(join("lock"), NULL, NULL, &lk, &err), -1);
	assert_non_null(strstr(err.msg, "is held by pid 4242 on login2 since "));
	assert_non_null(strstr(err.msg, "was not renewed"));
	assert_non_null(strstr(err.msg, join("lock.owner")));
	assert_int_equal(access(join("lock.owner"), F_OK), 0);
	assert_int_equal(lk.fd, -1);
}

static void test_unreadable_owner_file(void **state)
{
	struct sb_error err;
	struct sb_lock lk;
	struct timespec old[2] = { { 0, 0 }, { 0, 0 } };
	char holder[256];
	FILE *f = fopen(join("lock.owner"), "w");

	(void)state;
	assert_non_null(f);
	fputs("garbage\n", f);
	fclose(f);
	/* fresh: someone holds it, who is not known */
	assert_int_equal(sb_lock_held(join("lock"), holder, sizeof(holder)), 1);
	assert_string_equal(holder, "an sbctl whose lock file cannot be read");
	/* old (its mtime): abandoned */
	old[0].tv_sec = old[1].tv_sec = time(NULL) - SB_LOCK_ABANDONED_S - SB_LOCK_RENEW_S - 10;
	assert_int_equal(utimensat(AT_FDCWD, join("lock.owner"), old, 0), 0);
	assert_int_equal(sb_lock_held(join("lock"), NULL, 0), 0);
	assert_int_equal(sb_lock_take(join("lock"), NULL, NULL, &lk, &err), -1);
	assert_non_null(strstr(err.msg, "an sbctl whose lock file cannot be read"));
}

static void test_renew(void **state)
{
	struct sb_error err;
	struct sb_lock lk;
	char line[512] = "";
	FILE *f;

	(void)state;
	assert_int_equal(sb_lock_take(join("lock"), NULL, NULL, &lk, &err), 0);
	sb_lock_renew(&lk); /* too early: nothing written */
	lk.renewed_s -= SB_LOCK_RENEW_S + 100;
	int64_t before = lk.renewed_s;
	sb_lock_renew(&lk);
	assert_true(lk.renewed_s > before + SB_LOCK_RENEW_S);
	f = fopen(join("lock.owner"), "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	snprintf(told_holder, sizeof(told_holder), " pid=%ld ", (long)getpid());
	assert_non_null(strstr(line, told_holder));
	snprintf(told_holder, sizeof(told_holder), " renewed=%lld", (long long)lk.renewed_s);
	assert_non_null(strstr(line, told_holder));
	sb_lock_renew(NULL);
	sb_lock_release(&lk);
	assert_int_equal(access(join("lock.owner"), F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exclusive_on_this_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waits_for_another_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abandoned_by_another_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_owner_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_renew, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
