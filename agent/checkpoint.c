/* Checkpoint files, their records and the job's own requeue
 * (agent/checkpoint.h). */
/* the low-level SHA-256 calls: SHA256() would pull EVP and its providers
 * into the static sbagent (agent/CMakeLists.txt) */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/sha.h>

#include "agent/agent.h"
#include "agent/checkpoint.h"
#include "proto/util.h"

void sb_agent_checkpoint_hash(const struct sb_checkpoint_cfg *c, struct sb_agent_ckpt *out)
{
	struct sb_agent_result *r;
	uint8_t md[SHA256_DIGEST_LENGTH];
	size_t i, len = 0, cap = 0;
	char *text = NULL;
	bool any = false;

	memset(out, 0, sizeof(*out));
	if (c == NULL || !c->present)
		return;
	r = calloc(c->nfiles, sizeof(*r));
	for (i = 0; r && i < c->nfiles; i++)
		cap += strlen(c->files[i]) + 64 + 4;
	text = r ? malloc(cap + 1) : NULL;
	if (text == NULL) {
		snprintf(out->error, sizeof(out->error), "out of memory hashing the checkpoint");
		free(r);
		return;
	}
	sb_agent_results_collect((const char *const *)c->files, c->nfiles, NULL, NULL, r);
	for (i = 0; i < c->nfiles; i++) {
		if (r[i].state == SB_RESULT_HASHED)
			any = true;
		else if (r[i].state != SB_RESULT_MISSING && !out->error[0])
			snprintf(out->error, sizeof(out->error), "checkpoint file %zu of %zu: %s", i + 1,
				 c->nfiles, r[i].state == SB_RESULT_ERROR ? r[i].error : "not hashed");
		len += (size_t)sprintf(text + len, "%s  %s\n",
				       r[i].state == SB_RESULT_HASHED ? r[i].sha256 : "-", c->files[i]);
	}
	if (any && !out->error[0]) {
		SHA256_CTX ctx;

		if (SHA256_Init(&ctx) == 1 && SHA256_Update(&ctx, text, len) == 1 &&
		    SHA256_Final(md, &ctx) == 1) {
			sb_hex_encode(md, sizeof(md), out->digest);
			out->have = true;
		} else {
			snprintf(out->error, sizeof(out->error), "SHA-256 failed");
		}
	}
	free(text);
	free(r);
}

int sb_agent_requeue(const char *job_id, double timeout_s, char *msg, size_t size)
{
	double end = sb_agent_now() + timeout_s;
	sigset_t none;
	int status;
	pid_t pid, w;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(msg, size, "cannot run scontrol: fork failed: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY);

		if (fd >= 0 && fd != STDIN_FILENO) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		dup2(STDERR_FILENO, STDOUT_FILENO);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execlp("scontrol", "scontrol", "requeue", job_id, (char *)NULL);
		fprintf(stderr, "sbagent: cannot run scontrol: %s\n", strerror(errno));
		_exit(127);
	}
	for (;;) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			snprintf(msg, size, "cannot wait for scontrol: %s", strerror(errno));
			return -1;
		}
		if (sb_agent_now() >= end) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			snprintf(msg, size, "scontrol requeue %s did not answer within %.0f s", job_id,
				 timeout_s);
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		snprintf(msg, size, "scontrol requeue %s exited %d", job_id, WEXITSTATUS(status));
	else
		snprintf(msg, size, "scontrol requeue %s was killed by signal %d", job_id,
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return -1;
}
