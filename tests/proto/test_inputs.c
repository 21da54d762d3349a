/* Input files (proto/inputs.c): "{spec_dir}/PATH" found in command text
 * with its ends, paths cleaned or refused, files hashed without hanging on
 * a FIFO, and what is no input said as such. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/inputs.h"

/* Every path of s, joined by '|'. */
static void paths(const char *s, char *out, size_t size)
{
	const char *p;
	size_t pos = 0, plen, o = 0;

	out[0] = '\0';
	while (sb_inputs_next(s, strlen(s), &pos, &p, &plen))
		o += (size_t)snprintf(out + o, size - o, "%s%.*s", o ? "|" : "", (int)plen, p);
}

static void test_next(void **state)
{
	char got[256];

	(void)state;
	paths("{spec_dir}/train.py", got, sizeof(got));
	assert_string_equal(got, "train.py");
	paths("--config={spec_dir}/c.yaml", got, sizeof(got));
	assert_string_equal(got, "c.yaml");
	paths("python3 {spec_dir}/a.py --x 1 && bash {spec_dir}/b/c.sh;echo", got, sizeof(got));
	assert_string_equal(got, "a.py|b/c.sh");
	paths("P={spec_dir}/lib:{spec_dir}/other,{spec_dir}/'q'", got, sizeof(got));
	assert_string_equal(got, "lib|other|");
	paths("{spec_dir}", got, sizeof(got));        /* no slash: the directory itself */
	assert_string_equal(got, "");
	paths("{spec_dir/x {spec_dir}/", got, sizeof(got));
	assert_string_equal(got, "");
	paths("x{spec_dir}/a\tb", got, sizeof(got));
	assert_string_equal(got, "a");
}

static void norm_is(const char *in, int up, const char *want)
{
	char out[64];
	int rc = sb_inputs_norm(in, strlen(in), up, out, sizeof(out));

	if (want == NULL) {
		assert_int_equal(rc, -1);
	} else {
		assert_int_equal(rc, 0);
		assert_string_equal(out, want);
	}
}

static void test_norm(void **state)
{
	(void)state;
	norm_is("train.py", 0, "train.py");
	norm_is("./a//b/./c.py", 0, "a/b/c.py");
	norm_is("a/../b.py", 0, "b.py");
	norm_is("a/b/../../c", 0, "c");
	norm_is("../x.py", 0, NULL);              /* leaves the directory */
	norm_is("a/../../x.py", 0, NULL);
	norm_is("../x.py", 1, "../x.py");         /* the inputs key may */
	norm_is("../../c/x.py", 1, "../../c/x.py");
	norm_is("../a/../b", 1, "../b");
	norm_is("..", 1, NULL);                   /* a directory, no file */
	norm_is("", 0, NULL);
	norm_is(".", 0, NULL);
	norm_is("a/..", 0, NULL);
	norm_is("a\nb", 0, NULL);                 /* a control character */
	norm_is("0123456789012345678901234567890123456789012345678901234567890123", 0, NULL);
	assert_int_equal(sb_inputs_norm("a\0b", 3, 0, (char[8]){ 0 }, 8), -1);
}

static void test_hash(void **state)
{
	char dir[] = "/tmp/sbinputs.XXXXXX", path[300];
	uint8_t sha[32];
	uint64_t size = 0;
	struct sb_error err = { 0 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/abc", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("abc", f);
	fclose(f);
	assert_int_equal(sb_inputs_hash(dir, "abc", 100, sha, &size, &err), 0);
	assert_int_equal(size, 3);
	assert_int_equal(sha[0], 0xba);   /* SHA-256("abc") = ba7816bf... */
	assert_int_equal(sha[31], 0xad);
	assert_int_equal(sb_inputs_hash(dir, "abc", 2, sha, &size, &err), -1);
	assert_non_null(strstr(err.msg, "over the bound"));
	assert_int_equal(sb_inputs_hash(dir, "nope", 100, sha, &size, &err), 1);
	assert_string_equal(err.msg, "missing");
	assert_int_equal(sb_inputs_hash(dir, "abc/x", 100, sha, &size, &err), 1);
	assert_int_equal(sb_inputs_hash(dir, ".", 100, sha, &size, &err), 1);
	assert_string_equal(err.msg, "not a regular file");
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	/* no writer: an open without O_NONBLOCK would wait forever */
	assert_int_equal(sb_inputs_hash(dir, "fifo", 100, sha, &size, &err), 1);
	assert_string_equal(err.msg, "not a regular file");
	unlink(path);
	snprintf(path, sizeof(path), "%s/abc", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next),
		cmocka_unit_test(test_norm),
		cmocka_unit_test(test_hash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
