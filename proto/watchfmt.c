/* The endpoint files and the watch key file (proto/watchfmt.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/watchfmt.h"

static const char z85_chars[] =
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

int sb_watch_is_z85(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '\0' || strchr(z85_chars, s[i]) == NULL)
			return 0;
	return 1;
}

int sb_watch_name_parse(const char *name, char *host, size_t size, int64_t *pid)
{
	size_t len = strlen(name), slen = strlen(SB_WATCH_SUFFIX), hl;
	const char *dash, *p;
	int64_t v = 0;

	if (name[0] == '.' || len <= slen || strcmp(name + len - slen, SB_WATCH_SUFFIX) != 0)
		return -1;
	dash = NULL;
	for (p = name; p < name + len - slen; p++)
		if (*p == '-')
			dash = p;
	if (dash == NULL || dash == name || dash + 1 == name + len - slen)
		return -1;
	for (p = dash + 1; p < name + len - slen; p++) {
		if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	hl = (size_t)(dash - name);
	if (hl >= size)
		return -1;
	memcpy(host, name, hl);
	host[hl] = '\0';
	*pid = v;
	return 0;
}

int sb_watch_pid_gone(int64_t pid)
{
	return pid <= 0 || pid > INT32_MAX || (kill((pid_t)pid, 0) < 0 && errno == ESRCH);
}

int sb_watch_name_usable(const char *name, const char *myhost)
{
	char host[256];
	int64_t pid;

	if (sb_watch_name_parse(name, host, sizeof(host), &pid) < 0)
		return 0;
	return strcmp(host, myhost) != 0 || !sb_watch_pid_gone(pid);
}

/* The value of the line "<word> VALUE" in text, its length in *n. */
static const char *line_value(const char *text, size_t len, const char *word, size_t *n)
{
	size_t wl = strlen(word), i = 0;

	while (i < len) {
		const char *line = text + i, *nl = memchr(line, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - line) : len - i;

		if (ll > wl && !memcmp(line, word, wl) && line[wl] == ' ') {
			*n = ll - wl - 1;
			return line + wl + 1;
		}
		i += ll + 1;
	}
	return NULL;
}

int sb_watch_endpoint_parse(const char *text, size_t len, struct sb_watch_endpoint *e,
	struct sb_error *err)
{
	const char *v;
	size_t n, i;

	memset(e, 0, sizeof(*e));
	v = line_value(text, len, "endpoint", &n);
	if (v == NULL || n == 0 || n >= sizeof(e->addr))
		return sb_errorf(err, "no endpoint line (or one longer than %zu bytes)",
			sizeof(e->addr) - 1);
	for (i = 0; i < n; i++)
		if ((unsigned char)v[i] <= ' ' || v[i] == 0x7f)
			return sb_errorf(err, "the endpoint has a space or a control character");
	memcpy(e->addr, v, n);
	v = line_value(text, len, "server_key", &n);
	if (v == NULL || n != SB_WATCH_Z85_LEN || !sb_watch_is_z85(v, n))
		return sb_errorf(err, "no server_key line of %d Z85 characters", SB_WATCH_Z85_LEN);
	memcpy(e->server_key, v, n);
	return 0;
}

int sb_watch_endpoint_format(const struct sb_watch_endpoint *e, char *buf, size_t size)
{
	int n = snprintf(buf, size, "endpoint %s\nserver_key %s\n", e->addr, e->server_key);

	return n < 0 || (size_t)n >= size ? -1 : n;
}

int sb_watch_read_private(const char *path, char *buf, size_t size, struct sb_error *err)
{
	struct stat st;
	size_t got = 0;
	int fd, e;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return sb_errorf(err, "cannot open '%s': %s", path,
			errno == ELOOP ? "a symbolic link, refused" : strerror(errno));
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		return sb_errorf(err, "cannot stat '%s': %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
		close(fd);
		return sb_errorf(err, "'%s' refused: not a regular file of yours without "
			"group or other permissions", path);
	}
	if ((uint64_t)st.st_size >= size || st.st_size > SB_WATCH_FILE_MAX) {
		close(fd);
		return sb_errorf(err, "'%s' is larger than %d bytes", path, SB_WATCH_FILE_MAX);
	}
	while (got + 1 < size) {
		ssize_t n = read(fd, buf + got, size - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			close(fd);
			return sb_errorf(err, "cannot read '%s': %s", path, strerror(e));
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (int)got;
}

int sb_watch_key_read(const char *path, char secret[SB_WATCH_Z85_LEN + 1],
	struct sb_error *err)
{
	char buf[SB_WATCH_FILE_MAX + 1];
	int n = sb_watch_read_private(path, buf, sizeof(buf), err);

	if (n < 0)
		return -1;
	if (n < SB_WATCH_Z85_LEN || !sb_watch_is_z85(buf, SB_WATCH_Z85_LEN) ||
	    (n > SB_WATCH_Z85_LEN && buf[SB_WATCH_Z85_LEN] != '\n')) {
		memset(buf, 0, sizeof(buf));
		return sb_errorf(err, "'%s' does not start with a Z85 key of %d characters",
			path, SB_WATCH_Z85_LEN);
	}
	memcpy(secret, buf, SB_WATCH_Z85_LEN);
	secret[SB_WATCH_Z85_LEN] = '\0';
	memset(buf, 0, sizeof(buf));
	return 0;
}
