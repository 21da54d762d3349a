/* libFuzzer target: the frame decoder and the log reader on arbitrary bytes.
 * Decoding (no key) is fuzzed apart from verification (a fixed key), and
 * every record found is rendered as JSON and as a human line, so the
 * msgpack-to-JSON view is covered too.  Seeds: tests/fuzz/corpus/record/. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "log/logview_private.h"
#include "proto/record.h"
#include "sbench/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;
static struct sb_log_verifier *ver;

static void render(const struct sb_log_result *r)
{
	size_t i, n = sb_log_result_count(r);
	struct sb_log_head head;
	struct sb_json j;

	for (i = 0; i < n; i++) {
		const struct sb_log_record *rec = sb_log_result_record(r, i);
		sb_json_init(&j, sink);
		sb_logview_json_record(&j, rec, NULL);
		sb_logview_human_record(sink, rec);
	}
	fputs(sb_log_result_detail(r), sink);
	if (sb_log_result_head(r, &head) == 0 && head.count != sb_log_result_verified(r))
		__builtin_trap();
	if (sb_log_result_verified(r) > n)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_log_result *r;
	struct sb_frame f;
	struct sb_log_head head = { .count = 2 };
	struct sb_log_expect expect = { .head = &head };

	if (sink == NULL) {
		struct sb_key key;
		uint8_t b[SB_KEY_LEN];
		for (size_t i = 0; i < SB_KEY_LEN; i++)
			b[i] = (uint8_t)i; /* the golden key: seeds verify */
		sb_key_from_bytes(&key, b);
		ver = sb_log_verifier_create(&key, NULL);
		sink = fopen("/dev/null", "w");
		if (ver == NULL || sink == NULL)
			__builtin_trap();
	}
	if (size > 0 && sb_frame_parse(data, size, &f) == SB_FRAME_OK &&
	    (f.size > size || f.body + f.body_len + SB_LOG_TAG_LEN != data + f.size))
		__builtin_trap();

	r = sb_log_decode_buffer(data, size, NULL);
	if (r != NULL) {
		render(r);
		if (sb_log_result_verified(r) != 0)
			__builtin_trap();
		sb_log_result_destroy(r);
	}
	r = sb_log_read_buffer(ver, data, size, size % 2 ? &expect : NULL, NULL);
	if (r != NULL) {
		render(r);
		sb_log_result_destroy(r);
	}
	return 0;
}
