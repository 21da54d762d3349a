/* The files of live watch (docs/watch.md), read by sbagent and written by
 * sbctl watch: the endpoint files in <bench>/watch/ and the agents' CurveZMQ
 * key in <bench>/keys/watch.key.  No libzmq here: keys are Z85 text. */
#ifndef SB_PROTO_WATCHFMT_H
#define SB_PROTO_WATCHFMT_H

#include <stddef.h>
#include <stdint.h>

#include "sbench/error.h"

/* Relative to the benchmark directory. */
#define SB_WATCH_DIR "watch"
#define SB_WATCH_KEY "keys/watch.key"
#define SB_WATCH_SUFFIX ".endpoint"

#define SB_WATCH_Z85_LEN 40          /* a Curve25519 key in Z85 */
#define SB_WATCH_ADDR_MAX 256        /* longest endpoint address, NUL included */
#define SB_WATCH_FILE_MAX 1024       /* largest endpoint or key file */

/* What an endpoint file says: where a watcher listens and its public key. */
struct sb_watch_endpoint {
	char addr[SB_WATCH_ADDR_MAX];            /* "tcp://10.0.0.5:40123" */
	char server_key[SB_WATCH_Z85_LEN + 1];   /* Z85 */
};

/* Parses a file name "<host>-<pid>.endpoint" (no directory): the host into
 * host[size] and the pid.  -1 when name is not one (a temporary file, or a
 * host that does not fit). */
int sb_watch_name_parse(const char *name, char *host, size_t size, int64_t *pid);

/* Whether the process pid of this host is known to be gone (kill(pid, 0)
 * says ESRCH, or pid cannot be one): its endpoint file is stale. */
int sb_watch_pid_gone(int64_t pid);

/* Whether name is an endpoint file's name whose watcher may be alive: not
 * one of this host (myhost) whose process is gone. */
int sb_watch_name_usable(const char *name, const char *myhost);

/* Parses the text of an endpoint file ("endpoint ADDR\nserver_key Z85\n",
 * lines in any order, other lines ignored).  -1 with err when a line is
 * missing or bad. */
int sb_watch_endpoint_parse(const char *text, size_t len, struct sb_watch_endpoint *e,
	struct sb_error *err);

/* The text of an endpoint file into buf; its length, -1 when it does not fit. */
int sb_watch_endpoint_format(const struct sb_watch_endpoint *e, char *buf, size_t size);

/* Reads a small private file whole: opened with O_NOFOLLOW, a regular file
 * owned by the caller without group or other bits, at most
 * SB_WATCH_FILE_MAX bytes, into buf (NUL-terminated); its length, or -1
 * with err. */
int sb_watch_read_private(const char *path, char *buf, size_t size, struct sb_error *err);

/* Reads keys/watch.key: a Z85 secret key on its first line, into
 * secret[41].  -1 with err. */
int sb_watch_key_read(const char *path, char secret[SB_WATCH_Z85_LEN + 1],
	struct sb_error *err);

/* Whether s is n characters of the Z85 alphabet. */
int sb_watch_is_z85(const char *s, size_t n);

#endif
