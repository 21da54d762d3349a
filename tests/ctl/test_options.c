/* sbctl's one option parser (ctl/cli/options.c): both forms of a value,
 * flags, optional values, short names, operands, "--", negative numbers,
 * and each usage error with its message (stderr captured in a file). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/options.h"

enum { O_JSON = 1, O_SETTLE, O_CHECK, O_OUTPUT, O_ROOT };

static const struct sb_opt opts[] = {
	{ "json", 0, O_JSON, SB_OPT_FLAG, NULL, "JSON" },
	{ "settle", 0, O_SETTLE, SB_OPT_VALUE, "SECONDS", "settle time" },
	{ "check", 0, O_CHECK, SB_OPT_OPTIONAL, "SECONDS", "check" },
	{ "output", 'o', O_OUTPUT, SB_OPT_VALUE, "FILE", "output file" },
	{ "root", 0, O_ROOT, SB_OPT_VALUE, "DIR", "root" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"demo", "demo BENCH [--json] [--settle SECONDS]\n     [-o FILE]", "Does a demo.\n", opts,
	"exit status: 0\n",
};

/* The walk of args as "key=value" words ("op=X" for an operand), the last
 * return in *last; stderr into err (its text, or ""). */
static char words[4096], errtext[4096];

/* stderr into a file from capture_begin to capture_end, its text in errtext */
static FILE *capture_file;
static int capture_saved;

static void capture_begin(void)
{
	capture_file = tmpfile();
	capture_saved = dup(2);
	fflush(stderr);
	dup2(fileno(capture_file), 2);
}

static void capture_end(void)
{
	size_t n;

	fflush(stderr);
	dup2(capture_saved, 2);
	close(capture_saved);
	rewind(capture_file);
	n = fread(errtext, 1, sizeof(errtext) - 1, capture_file);
	errtext[n] = '\0';
	fclose(capture_file);
}

static int walk(const char *const *args, int *last)
{
	char *argv[32];
	int argc = 0, k;
	struct sb_opt_iter it = { 0 };
	const char *v;

	argv[argc++] = "demo";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	capture_begin();
	words[0] = '\0';
	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) > 0 || k == SB_OPT_OPERAND) {
		size_t len = strlen(words);
		snprintf(words + len, sizeof(words) - len, "%s%d=%s", len ? " " : "", k, v ? v : "(null)");
	}
	capture_end();
	*last = k;
	return k;
}

#define WALK(...) (walk((const char *const[]){ __VA_ARGS__, NULL }, &last))

static void test_both_forms(void **state)
{
	int last;

	(void)state;
	assert_int_equal(WALK("--settle", "5", "b"), SB_OPT_END);
	assert_string_equal(words, "2=5 -1=b");
	assert_int_equal(WALK("--settle=5", "b"), SB_OPT_END);
	assert_string_equal(words, "2=5 -1=b");
	assert_int_equal(WALK("--settle=", "b"), SB_OPT_END); /* an empty value is the command's to refuse */
	assert_string_equal(words, "2= -1=b");
	assert_int_equal(WALK("-o", "f.html", "--output=g.html", "--output", "h"), SB_OPT_END);
	assert_string_equal(words, "4=f.html 4=g.html 4=h");
	assert_string_equal(errtext, "");
}

static void test_flags_optional_operands(void **state)
{
	int last;

	(void)state;
	assert_int_equal(WALK("b", "--json", "--check", "--check=30", "c"), SB_OPT_END);
	assert_string_equal(words, "-1=b 1=(null) 3=(null) 3=30 -1=c");
	/* a value is the next argument whatever it starts with */
	assert_int_equal(WALK("--root", "--json"), SB_OPT_END);
	assert_string_equal(words, "5=--json");
	assert_int_equal(WALK("--settle", "-1"), SB_OPT_END);
	assert_string_equal(words, "2=-1");
	/* "-", a negative number and everything after "--" are operands */
	assert_int_equal(WALK("-", "-3", "--", "--json", "-o"), SB_OPT_END);
	assert_string_equal(words, "-1=- -1=-3 -1=--json -1=-o");
	/* the same option twice: both given, the command keeps the last */
	assert_int_equal(WALK("--root=a", "--root=b"), SB_OPT_END);
	assert_string_equal(words, "5=a 5=b");
}

static void test_errors(void **state)
{
	int last;

	(void)state;
	assert_int_equal(WALK("b", "--setle=5"), SB_OPT_ERROR);
	assert_string_equal(errtext, "sbctl demo: unknown option '--setle' (did you mean '--settle'?)\n"
				     "usage: sbctl demo BENCH [--json] [--settle SECONDS]\n     [-o FILE]\n");
	assert_int_equal(WALK("--jsno"), SB_OPT_ERROR);
	assert_non_null(strstr(errtext, "unknown option '--jsno' (did you mean '--json'?)"));
	assert_int_equal(WALK("--frobnicate"), SB_OPT_ERROR);
	assert_non_null(strstr(errtext, "unknown option '--frobnicate'\n"));
	assert_int_equal(WALK("-x"), SB_OPT_ERROR);
	assert_non_null(strstr(errtext, "unknown option '-x'"));
	assert_int_equal(WALK("--json=yes"), SB_OPT_ERROR);
	assert_non_null(strstr(errtext, "sbctl demo: --json takes no value (given 'yes')"));
	assert_int_equal(WALK("--settle"), SB_OPT_ERROR);
	assert_non_null(strstr(errtext, "sbctl demo: --settle needs a number of seconds: none given"));
	assert_int_equal(WALK("--root"), SB_OPT_ERROR);
	assert_non_null(strstr(errtext, "sbctl demo: --root needs a value (DIR): none given"));
	assert_int_equal(WALK("-o"), SB_OPT_ERROR);
	assert_non_null(strstr(errtext, "sbctl demo: -o needs a value (FILE): none given"));
	assert_string_equal(words, "");
}

static void test_long_unknown_whole(void **state)
{
	char big[3000];
	int last;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[0] = big[1] = '-';
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(WALK(big), SB_OPT_ERROR);
	/* the whole option in the message, not cut short */
	assert_non_null(strstr(errtext, big));
}

static void test_one_operand(void **state)
{
	const char *slot = NULL;

	(void)state;
	capture_begin();
	assert_int_equal(sb_opt_operand(&cmd, &slot, "a", "BENCH"), 0);
	assert_string_equal(slot, "a");
	assert_int_equal(sb_opt_operand(&cmd, &slot, "b", "BENCH"), SB_OPT_ERROR);
	capture_end();
	assert_string_equal(slot, "a");
	assert_non_null(strstr(errtext, "sbctl demo: more than one BENCH given ('a', 'b')\nusage: sbctl demo"));
}

static void test_help(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	sb_opt_help(&cmd, f);
	fclose(f);
	assert_non_null(strstr(text, "usage: sbctl demo BENCH [--json] [--settle SECONDS]\n     [-o FILE]\n"));
	assert_non_null(strstr(text, "\nDoes a demo.\n"));
	assert_non_null(strstr(text, "  --settle SECONDS   settle time\n")); /* aligned on the longest */
	assert_non_null(strstr(text, "  --check[=SECONDS]  check\n"));
	assert_non_null(strstr(text, "  -o, --output FILE  output file\n"));
	assert_non_null(strstr(text, "  -h, --help"));
	assert_non_null(strstr(text, "\nexit status: 0\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_both_forms),
		cmocka_unit_test(test_flags_optional_operands),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_long_unknown_whole),
		cmocka_unit_test(test_one_operand),
		cmocka_unit_test(test_help),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
