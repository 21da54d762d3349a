/* Host facts for the start record.  Cheap on purpose: one uname, one
 * affinity call, and only the first block of /proc/cpuinfo. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent/agent.h"

static void cpu_model(char *out, size_t size)
{
	static const char *const fields[] = { "model name", "Model", "cpu model", "cpu" };
	char buf[4096];
	ssize_t n;
	size_t f;
	int fd;

	out[0] = '\0';
	fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
		size_t len = strlen(fields[f]);
		char *line = buf;

		while (line && *line) {
			char *end = strchr(line, '\n');

			if (strncmp(line, fields[f], len) == 0) {
				char *v = line + len;

				while (*v == ' ' || *v == '\t')
					v++;
				if (*v == ':') {
					size_t vlen;

					v++;
					while (*v == ' ' || *v == '\t')
						v++;
					vlen = end ? (size_t)(end - v) : strlen(v);
					while (vlen > 0 && isspace((unsigned char)v[vlen - 1]))
						vlen--;
					if (vlen >= size)
						vlen = size - 1;
					memcpy(out, v, vlen);
					out[vlen] = '\0';
					if (vlen > 0)
						return;
				}
			}
			line = end ? end + 1 : NULL;
		}
	}
}

void sb_agent_host_facts(struct sb_agent_host *h)
{
	struct utsname u;
	cpu_set_t set;
	long n;

	cpu_model(h->cpu_model, sizeof(h->cpu_model));
	n = sysconf(_SC_NPROCESSORS_ONLN);
	h->cores = n > 0 ? n : -1;
	CPU_ZERO(&set);
	h->cpus_allowed = sched_getaffinity(0, sizeof(set), &set) == 0 ?
		CPU_COUNT(&set) : -1;
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
	else
		h->kernel[0] = '\0';
}

void sb_agent_short_hostname(char *buf, size_t size)
{
	char *dot;

	if (gethostname(buf, size) != 0)
		buf[0] = '\0';
	buf[size - 1] = '\0';
	dot = strchr(buf, '.');
	if (dot)
		*dot = '\0';
}
