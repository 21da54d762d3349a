/* A client of a watcher, for tests/watch: sends the frames of a log file to
 * the endpoint an endpoint file names, as an agent would, or as an attacker
 * would (another client key, frames with a flipped tag byte), or only its
 * frame number N (--only N: a frame whose records before it the watcher
 * has not seen).
 * usage: wclient ENDPOINT_FILE KEYFILE|random LOGFILE [--flip-tag] [--only N] [--wait MS]
 * Exits 0 when the frames were handed to libzmq, 1 on an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zmq.h>

#include "proto/watchfmt.h"
#include "sbench/log.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (buf = malloc((size_t)n + 1)) == NULL ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "wclient: cannot read '%s'\n", path);
		exit(1);
	}
	fclose(f);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

int main(int argc, char **argv)
{
	char pub[41], sec[41], *text, *log;
	struct sb_watch_endpoint ep;
	struct sb_error err;
	size_t tl, ll, off = 0;
	int flip = 0, wait_ms = 1000, zero = 0, i, sent = 0, only = -1, nth = 0;
	void *ctx, *s;

	if (argc < 4) {
		fputs("usage: wclient ENDPOINT_FILE KEYFILE|random LOGFILE [--flip-tag] [--only N] [--wait MS]\n",
			stderr);
		return 2;
	}
	for (i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--flip-tag"))
			flip = 1;
		else if (!strcmp(argv[i], "--wait") && i + 1 < argc)
			wait_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = atoi(argv[++i]);
	}
	text = slurp(argv[1], &tl);
	i = sb_watch_endpoint_parse(text, tl, &ep, &err);
	free(text);
	if (i < 0) {
		fprintf(stderr, "wclient: %s\n", err.msg);
		return 1;
	}
	if (!strcmp(argv[2], "random")) {
		zmq_curve_keypair(pub, sec);
	} else if (sb_watch_key_read(argv[2], sec, &err) < 0 || zmq_curve_public(pub, sec) != 0) {
		fprintf(stderr, "wclient: %s\n", err.msg);
		return 1;
	}
	log = slurp(argv[3], &ll);
	ctx = zmq_ctx_new();
	s = zmq_socket(ctx, ZMQ_PUSH);
	zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, ep.server_key, 40);
	zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, pub, 40);
	zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, sec, 40);
	if (zmq_connect(s, ep.addr) != 0) {
		fprintf(stderr, "wclient: cannot connect '%s': %s\n", ep.addr, zmq_strerror(zmq_errno()));
		return 1;
	}
	while (off + SB_LOG_HEADER_LEN <= ll && !memcmp(log + off, SB_LOG_MAGIC, 4)) {
		size_t body = ((size_t)(unsigned char)log[off + 4] << 24) |
			((size_t)(unsigned char)log[off + 5] << 16) |
			((size_t)(unsigned char)log[off + 6] << 8) | (unsigned char)log[off + 7];
		size_t n = SB_LOG_HEADER_LEN + body + SB_LOG_TAG_LEN;

		if (off + n > ll)
			break;
		if (flip)
			log[off + n - 1] ^= 1;
		if ((only < 0 || nth == only) && zmq_send(s, log + off, n, ZMQ_DONTWAIT) >= 0)
			sent++;
		nth++;
		off += n;
	}
	usleep((useconds_t)wait_ms * 1000);
	zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero));
	zmq_close(s);
	zmq_ctx_term(ctx);
	free(log);
	printf("%d\n", sent);
	return 0;
}
