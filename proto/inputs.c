/* Input files: finding "{spec_dir}/PATH" in a command, cleaning the path,
 * hashing the file (proto/inputs.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/filehash.h"
#include "proto/inputs.h"

static int ends_path(unsigned char c)
{
	return c <= ' ' || c == 0x7f || strchr("'\"`$;&|<>(),:=", c) != NULL;
}

int sb_inputs_next(const char *s, size_t len, size_t *pos, const char **path, size_t *plen)
{
	const size_t rn = sizeof(SB_INPUTS_REF) - 1;
	size_t i, j;

	for (i = *pos; i + rn <= len; i++) {
		if (s[i] != '{' || memcmp(s + i, SB_INPUTS_REF, rn) != 0)
			continue;
		for (j = i + rn; j < len && !ends_path((unsigned char)s[j]); j++)
			;
		*path = s + i + rn;
		*plen = j - (i + rn);
		*pos = j;
		return 1;
	}
	*pos = len;
	return 0;
}

int sb_inputs_norm(const char *path, size_t len, int allow_up, char *out, size_t size)
{
	size_t i = 0, o = 0, ups = 0;

	if (size == 0)
		return -1;
	while (i < len) {
		size_t j = i, n;

		while (j < len && path[j] != '/')
			j++;
		n = j - i;
		if (n == 0 || (n == 1 && path[i] == '.')) {
			/* "//" or "." */
		} else if (n == 2 && path[i] == '.' && path[i + 1] == '.') {
			if (o > (ups ? ups * 3 - 1 : 0)) { /* take back the last real component */
				while (o > 0 && out[o - 1] != '/')
					o--;
				if (o > 0)
					o--;
			} else if (!allow_up) {
				return -1;
			} else {
				if (o + 3 >= size)
					return -1;
				if (o > 0)
					out[o++] = '/';
				memcpy(out + o, "..", 2);
				o += 2;
				ups++;
			}
		} else {
			for (size_t k = i; k < j; k++)
				if ((unsigned char)path[k] < 0x20 || path[k] == 0x7f)
					return -1;
			if (o + n + 1 >= size)
				return -1;
			if (o > 0)
				out[o++] = '/';
			memcpy(out + o, path + i, n);
			o += n;
		}
		i = j + 1;
	}
	if (o == (ups ? ups * 3 - 1 : 0))
		return -1;  /* empty, or only ".." */
	out[o] = '\0';
	return 0;
}

int sb_inputs_hash(const char *dir, const char *rel, uint64_t max, uint8_t out[32],
		   uint64_t *size, struct sb_error *err)
{
	char full[PATH_MAX];
	struct stat st;
	int fd, rc;

	if (snprintf(full, sizeof(full), "%s/%s", dir, rel) >= (int)sizeof(full))
		return sb_errorf(err, "its path is longer than %d bytes", PATH_MAX - 1);
	fd = open(full, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			sb_errorf(err, "missing");
			return 1;
		}
		return sb_errorf(err, "cannot open: %s", strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		rc = sb_errorf(err, "cannot stat: %s", strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		sb_errorf(err, "not a regular file");
		rc = 1;
	} else if ((uint64_t)st.st_size > max) {
		rc = sb_errorf(err, "%lld bytes, over the bound of %llu bytes of input",
			       (long long)st.st_size, (unsigned long long)max);
	} else {
		rc = sb_filehash_fd(fd, &st, NULL, NULL, out, err) < 0 ? -1 : 0;
		*size = (uint64_t)st.st_size;
	}
	close(fd);
	return rc;
}
