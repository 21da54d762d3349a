/* Small helpers of the fake Slurm: time text, array specs, patterns. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fake/util.h"

static const char *prog_name = "sbfake";

const char *fake_prog(void) { return prog_name; }
void fake_set_prog(const char *p) { prog_name = p; }

static double now_override;

void fake_set_now(double t) { now_override = t; }

double fake_now(void)
{
	struct timespec ts;

	if (now_override > 0)
		return now_override;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double fake_env_double(const char *name, double def)
{
	const char *s = getenv(name);
	char *end;
	double v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || v < 0 || v > 1e9)
		return def;
	return v;
}

long fake_env_long(const char *name, long def)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0)
		return def;
	return v;
}

double fake_killwait(void) { return fake_env_double("SB_FAKE_KILLWAIT", 1.0); }

long fake_max_array_size(void)
{
	long v = fake_env_long("SB_FAKE_MAX_ARRAY_SIZE", 1001);

	if (v < 1 || v > FAKE_MAX_TASK)
		v = 1001;
	return v;
}

int fake_cpus(void)
{
	long v = fake_env_long("SB_FAKE_CPUS", 8);

	return (v < 1 || v > 100000) ? 8 : (int)v;
}

const char *fake_nodename(void)
{
	static char host[256];
	const char *s = getenv("SB_FAKE_NODENAME");
	char *dot;

	if (s && *s)
		return s;
	if (!host[0]) {
		if (gethostname(host, sizeof(host) - 1) != 0)
			snprintf(host, sizeof(host), "localhost");
		dot = strchr(host, '.');
		if (dot)
			*dot = '\0';
	}
	return host;
}

const char *fake_cluster(void)
{
	const char *s = getenv("SB_FAKE_CLUSTER");

	return (s && *s) ? s : "fake";
}

const char *fake_username(void)
{
	static char name[256];
	struct passwd *pw;

	if (!name[0]) {
		pw = getpwuid(getuid());
		if (pw)
			snprintf(name, sizeof(name), "%s", pw->pw_name);
		else
			snprintf(name, sizeof(name), "%u", (unsigned)getuid());
	}
	return name;
}

char *fake_fmt_time(double t, char *buf, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0) {
		snprintf(buf, n, "Unknown");
		return buf;
	}
	localtime_r(&tt, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
	return buf;
}

char *fake_fmt_elapsed(long s, char *buf, size_t n)
{
	if (s < 0)
		s = 0;
	if (s >= 86400)
		snprintf(buf, n, "%ld-%02ld:%02ld:%02ld", s / 86400, s % 86400 / 3600,
			 s % 3600 / 60, s % 60);
	else
		snprintf(buf, n, "%02ld:%02ld:%02ld", s / 3600, s % 3600 / 60, s % 60);
	return buf;
}

char *fake_fmt_squeue_time(long s, char *buf, size_t n)
{
	if (s >= 86400)
		return fake_fmt_elapsed(s, buf, n);
	if (s < 0)
		s = 0;
	if (s >= 3600)
		snprintf(buf, n, "%ld:%02ld:%02ld", s / 3600, s % 3600 / 60, s % 60);
	else
		snprintf(buf, n, "%ld:%02ld", s / 60, s % 60);
	return buf;
}

static int parse_uint_field(const char *s, size_t len, long *v)
{
	long r = 0;
	size_t i;

	if (len == 0 || len > 9)
		return -1;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		r = r * 10 + (s[i] - '0');
	}
	*v = r;
	return 0;
}

/* Slurm's time_str2mins: returns minutes (rounding seconds up), -1 for
 * unlimited, -2 for a bad text. */
static long time_str2mins(const char *s)
{
	long f[4] = {0, 0, 0, 0}, days = 0, secs;
	int nf = 0, has_days = 0;
	const char *p = s, *dash, *q;

	if (!*s)
		return -2;
	if (!strcasecmp(s, "infinite") || !strcasecmp(s, "unlimited") || !strcmp(s, "-1"))
		return -1;
	dash = strchr(s, '-');
	if (dash) {
		if (parse_uint_field(s, (size_t)(dash - s), &days) != 0)
			return -2;
		has_days = 1;
		p = dash + 1;
	}
	while (*p || nf == 0) {
		q = strchr(p, ':');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		if (nf >= 3 || parse_uint_field(p, len, &f[nf]) != 0)
			return -2;
		nf++;
		if (!q)
			break;
		p = q + 1;
	}
	if (has_days) {
		/* days-hours[:minutes[:seconds]] */
		secs = days * 86400 + f[0] * 3600 + (nf > 1 ? f[1] * 60 : 0) + (nf > 2 ? f[2] : 0);
	} else if (nf == 1) {
		secs = f[0] * 60;             /* minutes */
	} else if (nf == 2) {
		secs = f[0] * 60 + f[1];      /* minutes:seconds */
	} else {
		secs = f[0] * 3600 + f[1] * 60 + f[2];
	}
	return (secs + 59) / 60;
}

int fake_parse_time_limit(const char *s, long *secs)
{
	long mins = time_str2mins(s);
	const char *unit = getenv("SB_FAKE_TIME_UNIT");

	if (mins == -2)
		return -1;
	if (mins == -1 || mins == 0) {
		*secs = -1;
		return 0;
	}
	if (mins > 365L * 24 * 60 * 100)
		return -1;
	*secs = (unit && !strcmp(unit, "s")) ? mins : mins * 60;
	return 0;
}

int fake_parse_when(const char *s, double now, double *t)
{
	struct tm tm;
	time_t tt = (time_t)now;
	char *end;
	long v, mult = 1;
	int n;

	localtime_r(&tt, &tm);
	if (!strncasecmp(s, "now", 3)) {
		s += 3;
		if (!*s) {
			*t = now;
			return 0;
		}
		if (*s != '+' && *s != '-')
			return -1;
		v = strtol(s + 1, &end, 10);
		if (end == s + 1 || v < 0)
			return -1;
		if (!*end || !strncasecmp(end, "sec", 3) || !strcasecmp(end, "s"))
			mult = 1;
		else if (!strncasecmp(end, "min", 3))
			mult = 60;
		else if (!strncasecmp(end, "hour", 4))
			mult = 3600;
		else if (!strncasecmp(end, "day", 3))
			mult = 86400;
		else if (!strncasecmp(end, "week", 4))
			mult = 7 * 86400;
		else
			return -1;
		*t = now + (*s == '-' ? -1.0 : 1.0) * (double)(v * mult);
		return 0;
	}
	if (!strcasecmp(s, "today") || !strcasecmp(s, "midnight")) {
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		tm.tm_isdst = -1;
		*t = (double)mktime(&tm);
		return 0;
	}
	if (!strcasecmp(s, "noon")) {
		tm.tm_hour = 12;
		tm.tm_min = tm.tm_sec = 0;
		tm.tm_isdst = -1;
		*t = (double)mktime(&tm);
		return 0;
	}
	{
		int Y, M, D, h = 0, m = 0, sec = 0, c = 0;
		n = sscanf(s, "%4d-%2d-%2d%n", &Y, &M, &D, &c);
		if (n == 3 && c == 10) {
			if (s[10] == 'T' && sscanf(s + 11, "%d:%d%n", &h, &m, &c) == 2) {
				const char *r = s + 11 + c;
				if (*r == ':' && sscanf(r + 1, "%d", &sec) != 1)
					return -1;
			} else if (s[10]) {
				return -1;
			}
			memset(&tm, 0, sizeof(tm));
			tm.tm_year = Y - 1900;
			tm.tm_mon = M - 1;
			tm.tm_mday = D;
			tm.tm_hour = h;
			tm.tm_min = m;
			tm.tm_sec = sec;
			tm.tm_isdst = -1;
			*t = (double)mktime(&tm);
			return 0;
		}
		if (sscanf(s, "%d:%d%n", &h, &m, &c) == 2 && strlen(s) <= 8) {
			if (s[c] == ':' && sscanf(s + c + 1, "%d", &sec) != 1)
				return -1;
			tm.tm_hour = h;
			tm.tm_min = m;
			tm.tm_sec = sec;
			tm.tm_isdst = -1;
			*t = (double)mktime(&tm);
			return 0;
		}
		if (sscanf(s, "%d/%d%n", &M, &D, &c) == 2) {
			Y = tm.tm_year + 1900;
			if (s[c] == '/' && sscanf(s + c + 1, "%d", &Y) == 1 && Y < 100)
				Y += 2000;
			memset(&tm, 0, sizeof(tm));
			tm.tm_year = Y - 1900;
			tm.tm_mon = M - 1;
			tm.tm_mday = D;
			tm.tm_isdst = -1;
			*t = (double)mktime(&tm);
			return 0;
		}
		if ((strlen(s) == 4 || strlen(s) == 6) && strspn(s, "0123456789") == strlen(s)) {
			M = (s[0] - '0') * 10 + (s[1] - '0');
			D = (s[2] - '0') * 10 + (s[3] - '0');
			Y = tm.tm_year + 1900;
			if (s[4])
				Y = 2000 + (s[4] - '0') * 10 + (s[5] - '0');
			memset(&tm, 0, sizeof(tm));
			tm.tm_year = Y - 1900;
			tm.tm_mon = M - 1;
			tm.tm_mday = D;
			tm.tm_isdst = -1;
			*t = (double)mktime(&tm);
			return 0;
		}
	}
	return -1;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

int fake_parse_array(const char *s, long **ids_out, size_t *n_out, int *throttle)
{
	char buf[FAKE_TEXT_MAX], *pct, *tok, *save = NULL, *end;
	long *ids = NULL, a, b, step;
	size_t n = 0, cap = 0, i, k;

	*throttle = 0;
	if (strlen(s) >= sizeof(buf) || !*s)
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	pct = strchr(buf, '%');
	if (pct) {
		*pct = '\0';
		errno = 0;
		long th = strtol(pct + 1, &end, 10);
		if (errno || *end || end == pct + 1 || th < 0 || th > 1000000)
			return -1;
		*throttle = (int)th;
	}
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		errno = 0;
		if (!isdigit((unsigned char)*tok))
			goto bad;
		a = strtol(tok, &end, 10);
		b = a;
		step = 1;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				goto bad;
			b = strtol(end + 1, &end, 10);
			if (*end == ':') {
				if (!isdigit((unsigned char)end[1]))
					goto bad;
				step = strtol(end + 1, &end, 10);
			}
		}
		if (errno || *end || a > b || step < 1 || b >= FAKE_MAX_TASK)
			goto bad;
		for (k = (size_t)a; (long)k <= b; k += (size_t)step) {
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				long *nids = realloc(ids, cap * sizeof(*ids));
				if (!nids)
					goto bad;
				ids = nids;
			}
			ids[n++] = (long)k;
			if (n > FAKE_MAX_TASK)
				goto bad;
		}
	}
	if (n == 0)
		goto bad;
	qsort(ids, n, sizeof(*ids), cmp_long);
	for (i = 1, k = 1; i < n; i++)
		if (ids[i] != ids[k - 1])
			ids[k++] = ids[i];
	*ids_out = ids;
	*n_out = k;
	return 0;
bad:
	free(ids);
	return -1;
}

void fake_fmt_ranges(const long *ids, size_t n, char *buf, size_t len)
{
	size_t i = 0, j, used = 0;
	int w;

	buf[0] = '\0';
	while (i < n) {
		j = i;
		while (j + 1 < n && ids[j + 1] == ids[j] + 1)
			j++;
		if (j > i)
			w = snprintf(buf + used, len - used, "%s%ld-%ld", used ? "," : "", ids[i], ids[j]);
		else
			w = snprintf(buf + used, len - used, "%s%ld", used ? "," : "", ids[i]);
		if (w < 0 || (size_t)w >= len - used) {
			buf[len - 1] = '\0';
			return;
		}
		used += (size_t)w;
		i = j + 1;
	}
}

char *fake_ranges_text(const long *ids, size_t n, int throttle)
{
	size_t len = n * 24 + 32;
	char *buf = fake_xcalloc(len, 1);

	fake_fmt_ranges(ids, n, buf, len - 16);
	if (throttle > 0)
		snprintf(buf + strlen(buf), 16, "%%%d", throttle);
	return buf;
}

void fake_expand_pattern(const char *pat, const struct fake_job *j,
			 const struct fake_task *t, char *out, size_t len)
{
	size_t o = 0;
	const char *p = pat;
	char val[512];
	int width, numeric;
	long num = 0;

	if (len == 0)
		return;
	if (pat[0] == '\\') {  /* a leading backslash disables the patterns */
		for (p = pat + 1; *p && o + 1 < len; p++)
			if (*p != '\\')
				out[o++] = *p;
		out[o] = '\0';
		return;
	}
	while (*p && o + 1 < len) {
		if (*p != '%') {
			out[o++] = *p++;
			continue;
		}
		p++;
		width = 0;
		while (isdigit((unsigned char)*p)) {
			width = width * 10 + (*p - '0');
			if (width > 10)
				width = 10;
			p++;
		}
		numeric = 1;
		switch (*p) {
		case '%': val[0] = '%'; val[1] = '\0'; numeric = 0; break;
		case 'A': num = j->id; break;
		case 'a': num = t->task_id >= 0 ? t->task_id : 4294967294L; break;
		case 'j': num = t->raw_id; break;
		case 'J': num = t->raw_id; break;
		case 'n': case 't': num = 0; break;
		case 'b': num = t->task_id >= 0 ? t->task_id % 10 : 4294967294L % 10; break;
		case 's': snprintf(val, sizeof(val), "batch"); numeric = 0; break;
		case 'x': snprintf(val, sizeof(val), "%s", j->name); numeric = 0; break;
		case 'u': snprintf(val, sizeof(val), "%s", j->user); numeric = 0; break;
		case 'N': snprintf(val, sizeof(val), "%s", fake_nodename()); numeric = 0; break;
		case '\0':
			out[o] = '\0';
			return;
		default:
			/* unknown: kept as is */
			snprintf(val, sizeof(val), "%%%c", *p);
			numeric = 0;
			break;
		}
		if (numeric)
			snprintf(val, sizeof(val), "%0*ld", width, num);
		p++;
		for (const char *v = val; *v && o + 1 < len; v++)
			out[o++] = *v;
	}
	out[o] = '\0';
}

static const struct { const char *name; int num; } sigtab[] = {
	{"HUP", SIGHUP}, {"INT", SIGINT}, {"QUIT", SIGQUIT}, {"ABRT", SIGABRT},
	{"KILL", SIGKILL}, {"ALRM", SIGALRM}, {"TERM", SIGTERM}, {"USR1", SIGUSR1},
	{"USR2", SIGUSR2}, {"CONT", SIGCONT}, {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},
	{"URG", SIGURG}, {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ}, {"PIPE", SIGPIPE},
	{"SEGV", SIGSEGV}, {NULL, 0},
};

int fake_signal_number(const char *s)
{
	char *end;
	long v;
	int i;

	if (isdigit((unsigned char)*s)) {
		v = strtol(s, &end, 10);
		return (*end || v < 1 || v > 64) ? -1 : (int)v;
	}
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (i = 0; sigtab[i].name; i++)
		if (!strcasecmp(s, sigtab[i].name))
			return sigtab[i].num;
	return -1;
}

const char *fake_signal_name(int sig)
{
	int i;

	for (i = 0; sigtab[i].name; i++)
		if (sigtab[i].num == sig)
			return sigtab[i].name;
	return "?";
}

char *fake_xstrdup(const char *s)
{
	char *r = strdup(s ? s : "");

	if (!r) {
		fprintf(stderr, "%s: error: out of memory\n", fake_prog());
		exit(1);
	}
	return r;
}

char *fake_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *r = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&r, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fprintf(stderr, "%s: error: out of memory\n", fake_prog());
		exit(1);
	}
	return r;
}

void *fake_xcalloc(size_t n, size_t sz)
{
	void *r = calloc(n ? n : 1, sz ? sz : 1);

	if (!r) {
		fprintf(stderr, "%s: error: out of memory\n", fake_prog());
		exit(1);
	}
	return r;
}

void fake_trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[i]))
		i++;
	if (i)
		memmove(s, s + i, n - i + 1);
}

int fake_strcaseeq(const char *a, const char *b) { return strcasecmp(a, b) == 0; }

int fake_in_list(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',') {
		size_t len = strcspn(p, ",");
		if (len == n && strncmp(p, word, n) == 0)
			return 1;
	}
	return 0;
}

int fake_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int fake_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	char *p;

	if (strlen(path) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, mode) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	}
	if (mkdir(buf, mode) != 0 && errno != EEXIST)
		return -1;
	return 0;
}
