/* floor_read: the tight floor of the read-side benchmarks (status, analyze,
 * `log DIR`; tests/bench/bench_status.sh, docs/performance.md "The tight
 * floor"): the least work reading a benchmark's logs can be.
 *
 *   floor_read DIR KEY-FILE [THREADS]
 *
 * Lists DIR/events recursively (readdir; a file's type from its directory
 * entry, a stat only where the file system does not give it), as
 * `find DIR/events -type f` does, then on THREADS threads opens each
 * regular file, reads it to its end into the thread's buffer (one read
 * loop, no stat) and computes the HMAC-SHA256 of its bytes with the key
 * file's 32 bytes (the key the records are verified with: keys/hmac.key
 * holds them raw).  One HMAC per file, from keyed states computed once, as
 * sbench's verifier does.  Prints
 *
 *   <files> files, <bytes> bytes, <threads> threads, xor <hex>
 *
 * where xor is the XOR of every file's HMAC (independent of the order and
 * of the number of threads; it keeps the work from being optimized away).
 *
 * THREADS (absent or 0: the default) is the number `sbctl status` reads on:
 * SB_THREADS when set (1 to 64), else one per core online but at least 8
 * (readers wait on the file system as much as they compute), at most 64,
 * and fewer for a small benchmark (one per 256 logs), at least one; never
 * more than the files.  The threads take the files 64 at a time from a shared
 * counter, so none waits on another's share.
 *
 * Links only libcrypto and pthreads: no sbench code is in the floor. */
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#define KEY_LEN 32         /* keys/hmac.key: 32 random bytes (include/sbench/key.h) */
#define BLOCK 64           /* SHA-256's block: the HMAC pads are one block */
#define THREADS_MAX 64     /* SB_PARALLEL_MAX, SB_CTX_THREADS_MAX */
#define LOGS_PER_THREAD 256 /* status: a thread is worth it from 256 logs */
#define IO_MIN 8            /* status: at least 8 readers, whatever the cores */
#define CHUNK 64           /* files a thread takes at a time */
#define BUF_SIZE (64 * 1024)

/* the listing: every file's path relative to DIR/events, in one buffer */
struct list {
	char *names;
	size_t len, cap;
	size_t *off;
	size_t n, ncap;
};

struct shared {
	int eventsfd;
	const struct list *files;
	SHA256_CTX inner, outer; /* after absorbing key ^ ipad, key ^ opad */
	atomic_size_t next;
};

struct worker {
	pthread_t tid;
	struct shared *sh;
	unsigned char xor[SHA256_DIGEST_LENGTH];
	unsigned long long bytes;
	size_t files;
	int err;              /* errno of the first failure, 0 */
	const char *err_path; /* its file */
};

static const char *prog = "floor_read";

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "%s: %s%s%s\n", prog, what, detail ? ": " : "", detail ? detail : "");
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (p == NULL)
		die("out of memory", NULL);
	return p;
}

static void list_add(struct list *l, const char *prefix, size_t plen, const char *name)
{
	size_t nlen = strlen(name), need = plen + (plen ? 1 : 0) + nlen + 1;

	while (l->len + need > l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1 << 20;
		l->names = xrealloc(l->names, l->cap);
	}
	if (l->n == l->ncap) {
		l->ncap = l->ncap ? l->ncap * 2 : 4096;
		l->off = xrealloc(l->off, l->ncap * sizeof(*l->off));
	}
	l->off[l->n++] = l->len;
	if (plen) {
		memcpy(l->names + l->len, prefix, plen);
		l->names[l->len + plen] = '/';
		l->len += plen + 1;
	}
	memcpy(l->names + l->len, name, nlen + 1);
	l->len += nlen + 1;
}

/* Lists the regular files under the directory dfd (path rel, relative to
 * DIR/events; "" for it) into l, as `find -type f`: no symbolic link is
 * followed or listed.  Takes dfd over. */
static void walk(int dfd, const char *rel, struct list *l)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	size_t rlen = strlen(rel);

	if (d == NULL) {
		close(dfd);
		die("cannot read a directory", strerror(errno));
	}
	while ((errno = 0, e = readdir(d)) != NULL) {
		unsigned char type = e->d_type;
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (type == DT_UNKNOWN) { /* the file system does not say: ask */
			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				die(e->d_name, strerror(errno));
			type = S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR : DT_LNK;
		}
		if (type == DT_REG) {
			list_add(l, rel, rlen, e->d_name);
		} else if (type == DT_DIR) {
			int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			char *subrel;

			if (sub < 0)
				die(e->d_name, strerror(errno));
			subrel = xrealloc(NULL, rlen + strlen(e->d_name) + 2);
			if (rlen)
				sprintf(subrel, "%s/%s", rel, e->d_name);
			else
				strcpy(subrel, e->d_name);
			walk(sub, subrel, l);
			free(subrel);
		}
	}
	if (errno)
		die("cannot list a directory", strerror(errno));
	closedir(d);
}

/* One file: opened, read to its end, its HMAC XORed into w->xor.  0, or
 * -1 with w->err set. */
static int one_file(struct worker *w, const char *path, unsigned char *buf)
{
	unsigned char inner[SHA256_DIGEST_LENGTH], tag[SHA256_DIGEST_LENGTH];
	SHA256_CTX c = w->sh->inner;
	ssize_t n;
	size_t i;
	int fd = openat(w->sh->eventsfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);

	if (fd < 0)
		goto fail;
	for (;;) {
		n = read(fd, buf, BUF_SIZE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		SHA256_Update(&c, buf, (size_t)n);
		w->bytes += (unsigned long long)n;
	}
	close(fd);
	SHA256_Final(inner, &c);
	c = w->sh->outer;
	SHA256_Update(&c, inner, sizeof(inner));
	SHA256_Final(tag, &c);
	for (i = 0; i < sizeof(tag); i++)
		w->xor[i] ^= tag[i];
	w->files++;
	return 0;
fail:
	w->err = errno;
	w->err_path = path;
	if (fd >= 0)
		close(fd);
	return -1;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	const struct list *l = w->sh->files;
	unsigned char *buf = malloc(BUF_SIZE);
	size_t lo, i;

	if (buf == NULL) {
		w->err = ENOMEM;
		w->err_path = "(a read buffer)";
		return NULL;
	}
	while ((lo = atomic_fetch_add(&w->sh->next, CHUNK)) < l->n) {
		size_t hi = lo + CHUNK < l->n ? lo + CHUNK : l->n;

		for (i = lo; i < hi; i++)
			if (one_file(w, l->names + l->off[i], buf) < 0)
				goto out;
	}
out:
	free(buf);
	return NULL;
}

/* A whole number from 1 to THREADS_MAX, or 0 when text is not one. */
static unsigned parse_threads(const char *text)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(text, &end, 10);
	if (errno || *end || end == text || text[0] == '-' || n < 1 || n > THREADS_MAX)
		return 0;
	return (unsigned)n;
}

/* The number of threads `sbctl status` reads this many logs on. */
static unsigned status_threads(size_t logs)
{
	const char *env = getenv("SB_THREADS");
	long ncpu;
	size_t n;

	if (env && *env) {
		n = parse_threads(env);
		if (n == 0)
			die("SB_THREADS is not a number of threads from 1 to 64", env);
	} else {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		n = ncpu > 1 ? (size_t)ncpu : 1;
		if (n < IO_MIN)
			n = IO_MIN;
		if (n > THREADS_MAX)
			n = THREADS_MAX;
		if (logs / LOGS_PER_THREAD < n)
			n = logs / LOGS_PER_THREAD;
	}
	if (n > logs)
		n = logs;
	return n > 0 ? (unsigned)n : 1;
}

/* The keyed states of HMAC-SHA256 (RFC 2104) with the key file's bytes. */
static void load_key(const char *path, struct shared *sh)
{
	unsigned char key[KEY_LEN + 1], pad[BLOCK];
	size_t got = 0, i;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);

	if (fd < 0)
		die(path, strerror(errno));
	while (got < sizeof(key)) { /* one byte more than a key: a longer file is refused */
		n = read(fd, key + got, sizeof(key) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die(path, strerror(errno));
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got != KEY_LEN)
		die(path, "not a key file (32 bytes, as keys/hmac.key)");
	memset(pad, 0x36, sizeof(pad));
	for (i = 0; i < KEY_LEN; i++)
		pad[i] ^= key[i];
	SHA256_Init(&sh->inner);
	SHA256_Update(&sh->inner, pad, sizeof(pad));
	memset(pad, 0x5c, sizeof(pad));
	for (i = 0; i < KEY_LEN; i++)
		pad[i] ^= key[i];
	SHA256_Init(&sh->outer);
	SHA256_Update(&sh->outer, pad, sizeof(pad));
	OPENSSL_cleanse(key, sizeof(key));
	OPENSSL_cleanse(pad, sizeof(pad));
}

int main(int argc, char **argv)
{
	struct shared sh;
	struct list files = { 0 };
	struct worker w[THREADS_MAX];
	unsigned char xor[SHA256_DIGEST_LENGTH] = { 0 };
	unsigned long long bytes = 0;
	size_t nfiles = 0, i, k;
	unsigned nthreads = 0;
	int dfd, rc = 0;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: %s DIR KEY-FILE [THREADS]\n", prog);
		return 2;
	}
	if (argc == 4 && strcmp(argv[3], "0") != 0 && (nthreads = parse_threads(argv[3])) == 0) {
		fprintf(stderr, "%s: '%s' is not a number of threads from 1 to %d (0: as status)\n",
			prog, argv[3], THREADS_MAX);
		return 2;
	}
	memset(&sh, 0, sizeof(sh));
	load_key(argv[2], &sh);
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		die(argv[1], strerror(errno));
	sh.eventsfd = openat(dfd, "events", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sh.eventsfd < 0)
		die("events", strerror(errno));
	close(dfd);
	dfd = dup(sh.eventsfd);
	if (dfd < 0)
		die("dup", strerror(errno));
	walk(dfd, "", &files);

	if (nthreads == 0)
		nthreads = status_threads(files.n);
	else if (nthreads > files.n)
		nthreads = files.n > 0 ? (unsigned)files.n : 1;
	sh.files = &files;
	atomic_init(&sh.next, 0);
	memset(w, 0, sizeof(w));
	for (k = 0; k < nthreads; k++)
		w[k].sh = &sh;
	/* worker 0 in this thread, as status's readers; one that cannot be
	 * started runs here after it */
	for (k = 1; k < nthreads; k++)
		if (pthread_create(&w[k].tid, NULL, work, &w[k]) != 0)
			w[k].err = -1;
	work(&w[0]);
	for (k = 1; k < nthreads; k++) {
		if (w[k].err == -1) {
			w[k].err = 0;
			work(&w[k]);
		} else {
			pthread_join(w[k].tid, NULL);
		}
	}
	for (k = 0; k < nthreads; k++) {
		if (w[k].err && rc == 0) {
			fprintf(stderr, "%s: events/%s: %s\n", prog, w[k].err_path, strerror(w[k].err));
			rc = 1;
		}
		nfiles += w[k].files;
		bytes += w[k].bytes;
		for (i = 0; i < sizeof(xor); i++)
			xor[i] ^= w[k].xor[i];
	}
	close(sh.eventsfd);
	OPENSSL_cleanse(&sh.inner, sizeof(sh.inner));
	OPENSSL_cleanse(&sh.outer, sizeof(sh.outer));
	free(files.names);
	free(files.off);
	if (rc)
		return rc;
	printf("%zu files, %llu bytes, %u threads, xor ", nfiles, bytes, nthreads);
	for (i = 0; i < sizeof(xor); i++)
		printf("%02x", xor[i]);
	putchar('\n');
	return 0;
}
