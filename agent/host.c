/* Host facts for the start record.  Cheap on purpose: one uname, one
 * affinity call, CPUID (or only the first block of /proc/cpuinfo). */
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
						return; /* unknown rather than cut */
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

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* The brand string, as the kernel shows it as "model name", without a
 * trip through /proc (about 0.1 ms of the start-up budget). */
static int cpu_brand(char *out, size_t size)
{
	unsigned int r[12], max = __get_cpuid_max(0x80000000, NULL);
	char brand[sizeof(r) + 1], *b = brand;
	size_t len;
	int i;

	if (max < 0x80000004)
		return -1;
	for (i = 0; i < 3; i++)
		__cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
	memcpy(brand, r, sizeof(r));
	brand[sizeof(r)] = '\0';
	while (*b == ' ')
		b++;
	len = strlen(b);
	while (len > 0 && b[len - 1] == ' ')
		len--;
	if (len == 0 || len >= size)
		return -1;
	memcpy(out, b, len);
	out[len] = '\0';
	return 0;
}
#else
static int cpu_brand(char *out, size_t size)
{
	(void)out;
	(void)size;
	return -1;
}
#endif

void sb_agent_host_facts(struct sb_agent_host *h)
{
	struct utsname u;
	cpu_set_t set;
	long n;

	if (cpu_brand(h->cpu_model, sizeof(h->cpu_model)) != 0)
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
