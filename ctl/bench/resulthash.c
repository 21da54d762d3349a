#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/index_private.h"
#include "bench/resulthash.h"
#include "proto/filehash.h"
#include "proto/util.h"

int sb_result_hash(const char *path, struct sb_index *idx, bool rehash, char hex[65],
		   struct sb_error *err)
{
	uint8_t sha[SB_FILEHASH_LEN];
	struct sb_index_file_stamp stamp;
	struct sb_error why = { 0 };
	struct stat st;
	int fd, tries = 0, rc;

	while ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)) < 0 && errno == EINTR &&
	       ++tries < SB_EINTR_MAX)
		;
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			return 1;
		return sb_errorf(err, "cannot read result '%s': %s", path, strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		rc = sb_errorf(err, "cannot stat result '%s': %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return 1;
	}
	stamp = (struct sb_index_file_stamp){
		st.st_size, (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
		(int64_t)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec, (uint64_t)st.st_ino,
	};
	/* rehash reads the bytes again, not this client's cached pages of them:
	 * a network file system's client may keep the pages of a file that
	 * another node rewrote (docs/shared-storage.md) */
	if (rehash)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (!rehash && idx && sb_index_get_hash(idx, path, &stamp, sha, NULL) == 1) {
		rc = 0;
	} else if (sb_filehash_fd(fd, &st, NULL, NULL, sha, &why) == 0) {
		rc = 0;
		if (idx)
			sb_index_put_hash(idx, path, &stamp, sha, NULL);
	} else if (!strncmp(why.msg, "changed while", 13)) {
		rc = 1;
	} else {
		rc = sb_errorf(err, "cannot read result '%s': %s", path, why.msg);
	}
	close(fd);
	if (rc == 0)
		sb_hex_encode(sha, sizeof(sha), hex);
	return rc;
}
