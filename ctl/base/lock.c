#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/lock.h"
#include "proto/util.h"

/* The owner file: one line of words, "sbench-lock 1 host=H boot=B mntns=M
 * pid=P since=S renewed=R" (S, R: Unix seconds); docs/benchmark-dir.md. */
#define OWNER_MAX 1024
#define POLL_US 200000

struct owner {
	char host[256], boot[64], mntns[64];
	long pid;
	int64_t since, renewed;
};

/* open(2), EINTR retried */
static int open_retry(const char *path, int flags, mode_t mode)
{
	int fd, tries = 0;

	while ((fd = open(path, flags, mode)) < 0 && errno == EINTR && ++tries < SB_EINTR_MAX)
		;
	return fd;
}

static int64_t now_s(void)
{
	return (int64_t)time(NULL);
}

/* The first line of a small file into buf (blank when unreadable). */
static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f == NULL)
		return;
	if (fgets(buf, (int)size, f) == NULL)
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* This process's node: host, boot and mount namespace ("-" when unknown). */
static void self_node(struct owner *o)
{
	ssize_t n;

	memset(o, 0, sizeof(*o));
	if (gethostname(o->host, sizeof(o->host) - 1) < 0 || !o->host[0])
		snprintf(o->host, sizeof(o->host), "-");
	read_line("/proc/sys/kernel/random/boot_id", o->boot, sizeof(o->boot));
	n = readlink("/proc/self/ns/mnt", o->mntns, sizeof(o->mntns) - 1);
	o->mntns[n > 0 ? n : 0] = '\0';
	/* words of the owner line: no blank may split one */
	for (char *s = o->host; *s; s++)
		if (*s <= ' ')
			*s = '_';
	if (!o->boot[0] || strpbrk(o->boot, " \t"))
		snprintf(o->boot, sizeof(o->boot), "-");
	if (!o->mntns[0] || strpbrk(o->mntns, " \t"))
		snprintf(o->mntns, sizeof(o->mntns), "-");
	o->pid = (long)getpid();
}

static bool same_node(const struct owner *a, const struct owner *b)
{
	return !strcmp(a->host, b->host) && !strcmp(a->boot, b->boot) && !strcmp(a->mntns, b->mntns);
}

/* Copies the value of word "key=" of line into dst. */
static bool word(const char *line, const char *key, char *dst, size_t size)
{
	size_t klen = strlen(key);

	for (const char *p = line; (p = strstr(p, key)) != NULL; p += klen) {
		if (p != line && p[-1] != ' ')
			continue;
		p += klen;
		size_t n = strcspn(p, " ");
		if (n == 0 || n >= size)
			return false;
		memcpy(dst, p, n);
		dst[n] = '\0';
		return true;
	}
	return false;
}

static bool number(const char *line, const char *key, int64_t *v)
{
	char buf[32], *end;

	if (!word(line, key, buf, sizeof(buf)))
		return false;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	return errno == 0 && *end == '\0' && *v >= 0;
}

/* Reads the owner file: 1 (o filled), 0 when there is none, 2 when it
 * cannot be read or understood (o->renewed: its mtime, the rest blank). */
static int read_owner(const char *path, struct owner *o)
{
	char line[OWNER_MAX];
	struct stat st;
	int64_t pid;
	int fd;
	ssize_t n;

	memset(o, 0, sizeof(*o));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : 2;
	n = read(fd, line, sizeof(line) - 1);
	if (fstat(fd, &st) == 0)
		o->renewed = (int64_t)st.st_mtim.tv_sec;
	close(fd);
	line[n > 0 ? n : 0] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (strncmp(line, "sbench-lock 1 ", 14) != 0 || !word(line, "host=", o->host, sizeof(o->host)) ||
	    !word(line, "boot=", o->boot, sizeof(o->boot)) ||
	    !word(line, "mntns=", o->mntns, sizeof(o->mntns)) || !number(line, "pid=", &pid) ||
	    !number(line, "since=", &o->since) || !number(line, "renewed=", &o->renewed)) {
		o->host[0] = '\0';
		return 2;
	}
	o->pid = (long)pid;
	return 1;
}

/* "pid 4242 on login2 since 2026-12-05T21:52:07Z" (or what is known). */
static void holder_text(const struct owner *o, bool here, char *buf, size_t size)
{
	char when[32] = "";
	struct tm tm;
	time_t t = (time_t)o->since;

	if (!o->host[0]) {
		snprintf(buf, size, "an sbctl whose lock file cannot be read");
		return;
	}
	if (o->since > 0 && gmtime_r(&t, &tm))
		strftime(when, sizeof(when), " since %Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(buf, size, "pid %ld%s%s%s", o->pid, here ? "" : " on ", here ? "" : o->host, when);
	sb_blank_controls(buf);
}

/* Writes the owner line of me into fd. */
static int write_owner(int fd, const struct owner *me)
{
	char line[OWNER_MAX];
	int n = snprintf(line, sizeof(line),
			 "sbench-lock 1 host=%s boot=%s mntns=%s pid=%ld since=%" PRId64 " renewed=%" PRId64 "\n",
			 me->host, me->boot, me->mntns, me->pid, me->since, me->renewed);

	if (n < 0 || (size_t)n >= sizeof(line) || sb_write_all(NULL, fd, line, (size_t)n) < 0 || fsync(fd) < 0)
		return -1;
	return 0;
}

/* The fcntl lock, waiting for a holder of this node (told to wait). */
static int lock_fd(const char *path, sb_lock_wait_fn wait, void *arg, bool *told, struct sb_error *err)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd, cmd = F_SETLK;

	fd = open_retry(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return sb_errorf(err, "cannot open lock file '%s': %s", path, strerror(errno));
	while (fcntl(fd, cmd, &fl) < 0) {
		int e = errno;
		if (e == EINTR)
			continue;
		if ((e == EAGAIN || e == EACCES) && cmd == F_SETLK) {
			struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
			char who[64];
			if (fcntl(fd, F_GETLK, &q) == 0 && q.l_type != F_UNLCK && q.l_pid > 0)
				snprintf(who, sizeof(who), "pid %ld", (long)q.l_pid);
			else
				snprintf(who, sizeof(who), "another sbctl");
			if (wait && !*told)
				wait(arg, who);
			*told = true;
			cmd = F_SETLKW;
			fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET };
			continue;
		}
		close(fd);
		if (e == ENOLCK || e == ENOSYS)
			return sb_errorf(err, "cannot lock '%s': %s: this file system does not support "
					 "fcntl locks (mount NFS with lock support, or Lustre with -o flock)",
					 path, strerror(e));
		return sb_errorf(err, "cannot lock '%s': %s", path, strerror(e));
	}
	return fd;
}

int sb_lock_take(const char *path, sb_lock_wait_fn wait, void *arg, struct sb_lock *lk,
		 struct sb_error *err)
{
	struct owner me, o, seen;
	int64_t changed = now_s();
	bool told = false;
	int fd, ofd;

	lk->fd = -1;
	lk->owner = NULL;
	if (asprintf(&lk->owner, "%s.owner", path) < 0) {
		lk->owner = NULL;
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	if ((fd = lock_fd(path, wait, arg, &told, err)) < 0)
		goto fail;
	self_node(&me);
	memset(&seen, 0, sizeof(seen));
	for (;;) {
		me.since = me.renewed = now_s();
		ofd = open_retry(lk->owner, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (ofd >= 0) {
			int rc = write_owner(ofd, &me);
			int e = errno;
			close(ofd);
			if (rc < 0) {
				unlink(lk->owner);
				sb_errorf(err, "cannot write the lock's owner file '%s': %s", lk->owner,
					  strerror(e));
				goto fail;
			}
			lk->fd = fd;
			lk->renewed_s = me.renewed;
			return 0;
		}
		if (errno != EEXIST) {
			sb_errorf(err, "cannot create the lock's owner file '%s': %s", lk->owner, strerror(errno));
			goto fail;
		}
		int r = read_owner(lk->owner, &o);
		if (r == 0) { /* released between the two calls, or a stale cached name */
			usleep(POLL_US);
			continue;
		}
		if (r == 1 && same_node(&o, &me)) {
			/* this node's holder held the fcntl lock too: it is gone (or
			 * it is this process, whose create was interrupted) */
			if (unlink(lk->owner) < 0 && errno != ENOENT) {
				sb_errorf(err, "cannot remove the owner file '%s' that a process of this "
					  "node left: %s", lk->owner, strerror(errno));
				goto fail;
			}
			continue;
		}
		/* a holder on another node: wait while it renews its file */
		char who[512];
		holder_text(&o, false, who, sizeof(who));
		if (!told && wait)
			wait(arg, who);
		told = true;
		if (o.renewed != seen.renewed || o.pid != seen.pid || strcmp(o.host, seen.host) != 0) {
			seen = o;
			changed = now_s();
		}
		if (now_s() - changed >= SB_LOCK_ABANDONED_S ||
		    (o.renewed > 0 && now_s() - o.renewed >= SB_LOCK_ABANDONED_S + SB_LOCK_RENEW_S)) {
			sb_errorf(err, "the lock of '%s' is held by %s and was not renewed for %d s or "
				  "more: if no sbctl runs there any more, remove '%s'", path, who,
				  SB_LOCK_ABANDONED_S, lk->owner);
			goto fail;
		}
		usleep(POLL_US);
	}
fail:
	if (fd >= 0)
		close(fd);
	free(lk->owner);
	lk->owner = NULL;
	return -1;
}

void sb_lock_renew(struct sb_lock *lk)
{
	struct owner me, o;
	char *tmp = NULL;
	int fd;

	if (!lk || lk->fd < 0 || !lk->owner || now_s() - lk->renewed_s < SB_LOCK_RENEW_S)
		return;
	if (read_owner(lk->owner, &o) != 1)
		return;
	self_node(&me);
	me.since = o.since;
	me.renewed = now_s();
	/* a whole new file renamed over the old one: a reader never sees half */
	if (asprintf(&tmp, "%s.%ld.tmp", lk->owner, me.pid) < 0)
		return;
	fd = open_retry(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		int rc = write_owner(fd, &me);
		close(fd);
		if (rc == 0 && rename(tmp, lk->owner) == 0)
			lk->renewed_s = me.renewed;
		else
			unlink(tmp);
	}
	free(tmp);
}

void sb_lock_release(struct sb_lock *lk)
{
	if (lk->owner) {
		if (lk->fd >= 0)
			unlink(lk->owner);
		free(lk->owner);
		lk->owner = NULL;
	}
	if (lk->fd >= 0)
		close(lk->fd);
	lk->fd = -1;
}

int sb_lock_held(const char *path, char *holder, size_t size)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct owner me, o;
	char *owner, buf[512];
	int fd, r;

	if (!holder) {
		holder = buf;
		size = sizeof(buf);
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd >= 0) {
		bool held = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
		close(fd);
		if (held) {
			snprintf(holder, size, "pid %ld", (long)fl.l_pid);
			return 1;
		}
	}
	if (asprintf(&owner, "%s.owner", path) < 0)
		return 0;
	r = read_owner(owner, &o);
	free(owner);
	if (r == 0)
		return 0;
	self_node(&me);
	if (r == 1 && same_node(&o, &me))
		return 0; /* its holder would hold the fcntl lock here too */
	if (o.renewed > 0 && now_s() - o.renewed >= SB_LOCK_ABANDONED_S + SB_LOCK_RENEW_S)
		return 0;
	holder_text(&o, false, holder, size);
	return 1;
}
