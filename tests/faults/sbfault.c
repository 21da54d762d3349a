/* sbfault: an LD_PRELOAD shim that fails the Nth matching file-system call
 * of a process, for the fault-injection suite (tests/faults/README.md).
 *
 * Driven by the environment, read once when the shim is loaded:
 *   SB_FAULT_EXE=SUBSTR    act only in processes whose executable path
 *                          contains SUBSTR (others pass every call through,
 *                          count and trace nothing)
 *   SB_FAULT_CALL=A,B      the counted calls: write pwrite fsync fdatasync
 *                          rename link open openat ftruncate mkdir symlink
 *                          (open64, pwrite64 ... count as their base name)
 *   SB_FAULT_N=N           fail the Nth counted call (1-based; 0 or unset:
 *                          count only)
 *   SB_FAULT_ERRNO=E       EIO, ENOSPC, EINTR, or SHORT (write/pwrite write
 *                          half of what was asked; other calls fail EIO)
 *   SB_FAULT_PATH=SUBSTR   only calls on paths containing SUBSTR are
 *                          counted, traced and failed (fds are resolved
 *                          through /proc/self/fd)
 *   SB_FAULT_TRACE=FILE    append one line per interposed call that passes
 *                          the filters: "PID CALL INDEX RESULT PATH", INDEX
 *                          the call's number among the counted calls (0 when
 *                          its kind is not counted), RESULT "ok", "e<errno>"
 *                          (a real failure) or "INJ-<E>" (the injected
 *                          fault; INJ-SHORT: a short write)
 *
 * Only the process that loaded the shim acts: a child it forks (until it
 * execs) passes everything through.  A process that acts removes LD_PRELOAD
 * and SB_FAULT_* from its own environment when it loads the shim, so the
 * commands it runs (sbagent's command, sbctl's sbatch) run without the shim.
 * Processes that do not act (SB_FAULT_EXE) keep it, so that sbctl can hand
 * it on through sbatch to the sbagent of a batch job.
 *
 * The interposed calls use only async-signal-safe functions (no malloc, no
 * stdio); the real functions are resolved once, at load time. */
#undef _FORTIFY_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define PATH_CAP 4096

enum kind { K_WRITE, K_PWRITE, K_FSYNC, K_FDATASYNC, K_RENAME, K_LINK, K_OPEN,
	K_OPENAT, K_FTRUNCATE, K_MKDIR, K_SYMLINK, K_N };

static const char *const kind_name[K_N] = { "write", "pwrite", "fsync",
	"fdatasync", "rename", "link", "open", "openat", "ftruncate", "mkdir",
	"symlink" };

static struct {
	bool active;           /* this process acts */
	pid_t pid;             /* the process that loaded the shim */
	bool counted[K_N];
	long fail_at;          /* 0: count only */
	int err;               /* errno to inject; 0 = SHORT */
	char err_name[16];
	char path[PATH_CAP];   /* substring filter, "" = every path */
	char trace[PATH_CAP];  /* trace file, "" = none */
	long count;            /* counted calls so far */
} S;

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_link)(const char *, const char *);
static int (*real_linkat)(int, const char *, int, const char *, int);
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_ftruncate)(int, off_t);
static int (*real_ftruncate64)(int, off_t);
static int (*real_mkdir)(const char *, mode_t);
static int (*real_symlink)(const char *, const char *);

#define RESOLVE(name) (real_##name = (__typeof__(real_##name))dlsym(RTLD_NEXT, #name))

static void copy(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void strip_env(void)
{
	static const char *const names[] = { "LD_PRELOAD", "SB_FAULT_EXE",
		"SB_FAULT_CALL", "SB_FAULT_N", "SB_FAULT_ERRNO", "SB_FAULT_PATH",
		"SB_FAULT_TRACE" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unsetenv(names[i]);
}

static void parse_calls(const char *list)
{
	char buf[256];
	char *tok, *save = NULL;
	int k;

	copy(buf, sizeof(buf), list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		for (k = 0; k < K_N; k++)
			if (!strcmp(tok, kind_name[k]))
				S.counted[k] = true;
}

__attribute__((constructor)) static void sbfault_init(void)
{
	const char *exe_filter = getenv("SB_FAULT_EXE"), *v;
	char exe[PATH_CAP];
	ssize_t n;

	RESOLVE(write); RESOLVE(pwrite); RESOLVE(pwrite64); RESOLVE(fsync);
	RESOLVE(fdatasync); RESOLVE(rename); RESOLVE(renameat); RESOLVE(link);
	RESOLVE(linkat); RESOLVE(open); RESOLVE(open64); RESOLVE(openat);
	RESOLVE(openat64); RESOLVE(ftruncate); RESOLVE(ftruncate64);
	RESOLVE(mkdir); RESOLVE(symlink);

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (exe_filter && *exe_filter && !strstr(exe, exe_filter))
		return;
	S.active = true;
	S.pid = getpid();
	if ((v = getenv("SB_FAULT_CALL")))
		parse_calls(v);
	if ((v = getenv("SB_FAULT_N")))
		S.fail_at = strtol(v, NULL, 10);
	v = getenv("SB_FAULT_ERRNO");
	copy(S.err_name, sizeof(S.err_name), v ? v : "EIO");
	S.err = !strcmp(S.err_name, "ENOSPC") ? ENOSPC : !strcmp(S.err_name, "EINTR") ? EINTR
		: !strcmp(S.err_name, "SHORT") ? 0 : EIO;
	if ((v = getenv("SB_FAULT_PATH")))
		copy(S.path, sizeof(S.path), v);
	if ((v = getenv("SB_FAULT_TRACE")))
		copy(S.trace, sizeof(S.trace), v);
	strip_env();
}

/* ---- async-signal-safe helpers ------------------------------------------ */

struct line { char b[PATH_CAP + 128]; size_t n; };

static void put(struct line *l, const char *s)
{
	while (*s && l->n < sizeof(l->b) - 1)
		l->b[l->n++] = *s++;
}

static void put_num(struct line *l, long v)
{
	char d[24];
	int i = 0;

	if (v < 0) {
		put(l, "-");
		v = -v;
	}
	do
		d[i++] = (char)('0' + v % 10);
	while ((v /= 10) && i < 23);
	while (i > 0 && l->n < sizeof(l->b) - 1)
		l->b[l->n++] = d[--i];
}

/* The absolute form of PATH relative to DIRFD, in out. */
static void resolve_at(int dirfd, const char *path, char *out, size_t cap)
{
	struct line l = { .n = 0 };
	ssize_t n = -1;

	out[0] = '\0';
	if (path == NULL)
		return;
	if (path[0] == '/') {
		copy(out, cap, path);
		return;
	}
	if (dirfd == AT_FDCWD) {
		if (getcwd(out, cap) == NULL)
			out[0] = '\0';
		n = (ssize_t)strlen(out);
	} else {
		put(&l, "/proc/self/fd/");
		put_num(&l, dirfd);
		l.b[l.n] = '\0';
		n = readlink(l.b, out, cap - 1);
		out[n > 0 ? n : 0] = '\0';
		n = n > 0 ? n : 0;
	}
	if ((size_t)n + strlen(path) + 2 < cap) {
		out[n] = '/';
		copy(out + n + 1, cap - (size_t)n - 1, path);
	}
}

static void resolve_fd(int fd, char *out, size_t cap)
{
	struct line l = { .n = 0 };
	ssize_t n;

	put(&l, "/proc/self/fd/");
	put_num(&l, fd);
	l.b[l.n] = '\0';
	n = readlink(l.b, out, cap - 1);
	out[n > 0 ? n : 0] = '\0';
}

/* A call in progress: decided before the real call, traced after it. */
struct call {
	enum kind k;
	bool traced;
	long index;      /* among counted calls, 0 = not counted */
	bool inject;
	char path[PATH_CAP];
};

static bool acting(void)
{
	return S.active && getpid() == S.pid;
}

static void begin(struct call *c, enum kind k)
{
	c->k = k;
	c->index = 0;
	c->inject = false;
	c->traced = S.path[0] == '\0' || strstr(c->path, S.path) != NULL;
	if (!c->traced || !S.counted[k])
		return;
	c->index = __atomic_add_fetch(&S.count, 1, __ATOMIC_SEQ_CST);
	c->inject = c->index == S.fail_at;
}

static void trace(const struct call *c, long rc, int err)
{
	struct line l = { .n = 0 };
	int fd, saved = errno;

	if (!c->traced || S.trace[0] == '\0')
		return;
	put_num(&l, (long)S.pid);
	put(&l, " ");
	put(&l, kind_name[c->k]);
	put(&l, " ");
	put_num(&l, c->index);
	put(&l, " ");
	if (c->inject) {
		put(&l, "INJ-");
		put(&l, S.err_name);
	} else if (rc < 0) {
		put(&l, "e");
		put_num(&l, err);
	} else {
		put(&l, "ok");
	}
	put(&l, " ");
	put(&l, c->path[0] ? c->path : "?");
	put(&l, "\n");
	fd = real_open(S.trace, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0) {
		(void)real_write(fd, l.b, l.n);
		close(fd);
	}
	errno = saved;
}

/* The errno to fail with; SHORT fails calls that cannot be short with EIO. */
static int fail_errno(void)
{
	return S.err ? S.err : EIO;
}

/* ---- the interposed calls ----------------------------------------------- */

static ssize_t do_write(enum kind k, int fd, const void *buf, size_t n, off_t off, bool positional)
{
	struct call c;
	ssize_t rc;

	if (!acting())
		return positional ? real_pwrite(fd, buf, n, off) : real_write(fd, buf, n);
	resolve_fd(fd, c.path, sizeof(c.path));
	begin(&c, k);
	if (c.inject && (S.err != 0 || n < 2)) {
		trace(&c, -1, fail_errno());
		errno = fail_errno();
		return -1;
	}
	if (c.inject)
		n /= 2;
	rc = positional ? real_pwrite(fd, buf, n, off) : real_write(fd, buf, n);
	trace(&c, rc, errno);
	return rc;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	return do_write(K_WRITE, fd, buf, n, 0, false);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return do_write(K_PWRITE, fd, buf, n, off, true);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return do_write(K_PWRITE, fd, buf, n, off, true);
}

/* The shape every other call shares: decide, fail or call, trace. */
#define INTERPOSE(kind, resolve_path, real_call)                              \
	do {                                                                  \
		struct call c;                                                \
		long rc;                                                      \
		if (!acting())                                                \
			return real_call;                                     \
		resolve_path;                                                 \
		begin(&c, kind);                                              \
		if (c.inject) {                                               \
			trace(&c, -1, fail_errno());                   \
			errno = fail_errno();                                 \
			return -1;                                            \
		}                                                             \
		rc = real_call;                                               \
		trace(&c, rc, errno);                                         \
		return rc;                                                    \
	} while (0)

int fsync(int fd)
{
	INTERPOSE(K_FSYNC, resolve_fd(fd, c.path, sizeof(c.path)), real_fsync(fd));
}

int fdatasync(int fd)
{
	INTERPOSE(K_FDATASYNC, resolve_fd(fd, c.path, sizeof(c.path)), real_fdatasync(fd));
}

int ftruncate(int fd, off_t len)
{
	INTERPOSE(K_FTRUNCATE, resolve_fd(fd, c.path, sizeof(c.path)), real_ftruncate(fd, len));
}

int ftruncate64(int fd, off_t len)
{
	INTERPOSE(K_FTRUNCATE, resolve_fd(fd, c.path, sizeof(c.path)), real_ftruncate64(fd, len));
}

/* rename and link match when either path does; the trace names the new one */
static void resolve_pair(int d1, const char *a, int d2, const char *b, char *out, size_t cap)
{
	resolve_at(d1, a, out, cap);
	if (S.path[0] && strstr(out, S.path))
		return;
	resolve_at(d2, b, out, cap);
}

int rename(const char *from, const char *to)
{
	INTERPOSE(K_RENAME, resolve_pair(AT_FDCWD, from, AT_FDCWD, to, c.path, sizeof(c.path)),
		  real_rename(from, to));
}

int renameat(int d1, const char *from, int d2, const char *to)
{
	INTERPOSE(K_RENAME, resolve_pair(d1, from, d2, to, c.path, sizeof(c.path)),
		  real_renameat(d1, from, d2, to));
}

int link(const char *from, const char *to)
{
	INTERPOSE(K_LINK, resolve_pair(AT_FDCWD, from, AT_FDCWD, to, c.path, sizeof(c.path)),
		  real_link(from, to));
}

int linkat(int d1, const char *from, int d2, const char *to, int flags)
{
	INTERPOSE(K_LINK, resolve_pair(d1, from, d2, to, c.path, sizeof(c.path)),
		  real_linkat(d1, from, d2, to, flags));
}

int mkdir(const char *path, mode_t mode)
{
	INTERPOSE(K_MKDIR, resolve_at(AT_FDCWD, path, c.path, sizeof(c.path)), real_mkdir(path, mode));
}

int symlink(const char *target, const char *path)
{
	INTERPOSE(K_SYMLINK, resolve_at(AT_FDCWD, path, c.path, sizeof(c.path)),
		  real_symlink(target, path));
}

static mode_t open_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	INTERPOSE(K_OPEN, resolve_at(AT_FDCWD, path, c.path, sizeof(c.path)),
		  real_open(path, flags, mode));
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	INTERPOSE(K_OPEN, resolve_at(AT_FDCWD, path, c.path, sizeof(c.path)),
		  real_open64(path, flags, mode));
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	INTERPOSE(K_OPENAT, resolve_at(dirfd, path, c.path, sizeof(c.path)),
		  real_openat(dirfd, path, flags, mode));
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	INTERPOSE(K_OPENAT, resolve_at(dirfd, path, c.path, sizeof(c.path)),
		  real_openat64(dirfd, path, flags, mode));
}
