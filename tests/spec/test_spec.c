/* Spec loading: the YAML core schema, canonical values, and every error
 * message with its line:column. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <msgpack.h>

#include "plan/plan_canon.h"
#include "proto/util.h"
#include "sbench/plan.h"
#include "sbench/spec.h"

static struct sb_spec *load(const char *text, struct sb_error *err)
{
	return sb_spec_load_buffer(text, strlen(text), "t.yaml", err);
}

/* Loads and plans text; returns the error message ("" when it worked). */
static const char *error_of(const char *text)
{
	static struct sb_error err;
	struct sb_spec *s;
	struct sb_plan *p;

	memset(&err, 0, sizeof(err));
	s = load(text, &err);
	if (s == NULL)
		return err.msg;
	p = sb_plan_create(s, &err);
	if (p == NULL) {
		sb_spec_destroy(s);
		return err.msg;
	}
	sb_plan_destroy(p);
	sb_spec_destroy(s);
	return "";
}

#define HEAD "name: t\ncommand: [run, \"{lr}\"]\n"

struct error_case {
	const char *text;
	const char *msg;
};

static const struct error_case error_cases[] = {
	/* unknown keys, with suggestions */
	{ "name: t\ncommand: [x]\nparamters: {a: [1]}\n",
	  "t.yaml:3:1: unknown key 'paramters' (did you mean 'parameters'?)" },
	{ "name: t\ncommand: [x]\nslurm:\n  partitoin: gpu\n",
	  "t.yaml:4:3: unknown key 'partitoin' in 'slurm' (did you mean 'partition'?)" },
	{ "name: t\ncommand: [x]\nanalysis: {groupby: [a]}\n",
	  "t.yaml:3:12: unknown key 'groupby' in 'analysis' (did you mean 'group_by'?)" },
	{ "name: t\ncommand: [x]\nfoo: 1\n", "t.yaml:3:1: unknown key 'foo'" },
	{ "Name: t\ncommand: [x]\n", "t.yaml:1:1: unknown key 'Name' (did you mean 'name'?)" },
	/* templates */
	{ "name: t\ncommand: [run, \"{lrr}\"]\nparameters: {lr: [1]}\n",
	  "t.yaml:2:16: unknown parameter 'lrr' in template (did you mean 'lr'?)" },
	{ "name: t\ncommand: [run, \"--seed={repaet}\"]\n",
	  "t.yaml:2:16: unknown parameter 'repaet' in template (did you mean 'repeat'?)" },
	{ "name: t\ncommand: \"echo {lr\"\nparameters: {lr: [1]}\n",
	  "t.yaml:2:10: unterminated '{' in template at offset 5 (write '{{' for a literal '{')" },
	{ "name: t\ncommand: \"echo {lr x}\"\nparameters: {lr: [1]}\n",
	  "t.yaml:2:10: invalid reference '{lr ' in template at offset 5 (write '{{' for a literal '{')" },
	{ "name: t\ncommand: \"echo ${HOME}\"\n",
	  "t.yaml:2:10: unknown parameter 'HOME' in template (write '{{' for a literal '{')" },
	{ "name: t\ncommand: [x]\nenv: {A: \"{nope}\"}\n",
	  "t.yaml:3:10: unknown parameter 'nope' in template (write '{{' for a literal '{')" },
	/* duplicate points, empty grids */
	{ HEAD "parameters: {lr: [1, 2]}\ninclude:\n  - {lr: 2}\n",
	  "t.yaml:5:5: duplicate point: include entry (lr=2) is already a grid point" },
	{ HEAD "parameters: {lr: [1, 2]}\ninclude:\n  - {lr: 3}\n  - {lr: 3}\n",
	  "t.yaml:6:5: duplicate point: include entry (lr=3) repeats the include entry at 5:5" },
	{ HEAD "parameters: {lr: [0.1, 1e-1]}\n",
	  "t.yaml:3:24: duplicate value '1e-1' of parameter 'lr' (first at 3:19)" },
	{ HEAD "parameters: {}\n",
	  "t.yaml:3:13: empty grid: 'parameters' has no parameters (remove it for a single point)" },
	{ HEAD "parameters: {lr: []}\n", "t.yaml:3:18: empty grid: parameter 'lr' has no values" },
	{ HEAD "parameters: {lr: [1]}\nexclude: [{lr: 1}]\n",
	  "t.yaml:4:10: no children: 'exclude' removes every grid point" },
	{ "name: t\ncommand: [x]\ninclude: []\n",
	  "t.yaml:1:1: no children: 'include' is empty and there is no grid" },
	/* numbers */
	{ HEAD "parameters: {lr: [.nan]}\n", "t.yaml:3:19: '.nan' is not a number (NaN is not allowed)" },
	{ HEAD "parameters: {lr: [.inf]}\n", "t.yaml:3:19: '.inf' is infinite (numbers must be finite)" },
	{ HEAD "parameters: {lr: [-.Inf]}\n", "t.yaml:3:19: '-.Inf' is infinite (numbers must be finite)" },
	{ HEAD "parameters: {lr: [1e999]}\n", "t.yaml:3:19: number '1e999' is out of range (float64)" },
	{ HEAD "parameters: {lr: [1e-999]}\n",
	  "t.yaml:3:19: number '1e-999' is too small (it would read as 0)" },
	{ HEAD "parameters: {lr: [9223372036854775808]}\n",
	  "t.yaml:3:19: integer '9223372036854775808' is out of range (int64)" },
	{ HEAD "parameters: {lr: [-9223372036854775809]}\n",
	  "t.yaml:3:19: integer '-9223372036854775809' is out of range (int64)" },
	{ HEAD "parameters: {lr: [0x8000000000000000]}\n",
	  "t.yaml:3:19: integer '0x8000000000000000' is out of range (limit 9223372036854775807)" },
	/* non-scalar and null values, bad types */
	{ HEAD "parameters: {lr: [[1]]}\n",
	  "t.yaml:3:19: value of parameter 'lr' is a list (values must be scalars)" },
	{ HEAD "parameters: {lr: [{a: 1}]}\n",
	  "t.yaml:3:19: value of parameter 'lr' is a mapping (values must be scalars)" },
	{ HEAD "parameters: {lr: [~]}\n",
	  "t.yaml:3:19: value of parameter 'lr' is null (quote it for the string \"~\")" },
	{ HEAD "parameters: {lr: 0.1}\n",
	  "t.yaml:3:18: parameter 'lr' must be a list of values, not a float (write [value] for one value)" },
	{ "name: 42\ncommand: [x]\n", "t.yaml:1:7: 'name' must be a string, not an integer (quote it)" },
	{ "name: a b\ncommand: [x]\n",
	  "t.yaml:1:7: name 'a b' is not valid (1 to 64 of A-Z a-z 0-9 . _ -)" },
	{ "name: t\ncommand: [x]\nrepeats: \"3\"\n", "t.yaml:3:10: 'repeats' must be an integer, not a string" },
	{ "name: t\ncommand: [x]\nrepeats: 0\n", "t.yaml:3:10: 'repeats' is 0, out of range (1..1000000)" },
	{ "name: t\ncommand: [x]\nheartbeat: 1.5\n", "t.yaml:3:12: 'heartbeat' must be an integer, not a float" },
	{ "name: t\ncommand: {a: 1}\n",
	  "t.yaml:2:10: 'command' must be a list (argv) or a string (shell), not a mapping" },
	{ "name: t\ncommand: 42\n",
	  "t.yaml:2:10: 'command' must be a list (argv) or a string (shell), not an integer" },
	{ "name: t\ncommand: []\n", "t.yaml:2:10: 'command' is an empty list" },
	{ "name: t\ncommand: [x, [y]]\n", "t.yaml:2:14: a command element must be a string, not a list" },
	{ "name: t\ncommand: [x]\nresults: out.json\n", "t.yaml:3:10: 'results' must be a list, not a string" },
	{ "name: t\ncommand: [x]\nresults: [/etc/passwd]\n",
	  "t.yaml:3:11: result path '/etc/passwd' is absolute (paths are relative to the run directory)" },
	{ "name: t\ncommand: [x]\nresults: [a/../../b]\n",
	  "t.yaml:3:11: result path 'a/../../b' leaves the run directory ('..')" },
	{ "name: t\ncommand: [x]\nresults: [\"out-{lr}.json\"]\n",
	  "t.yaml:3:11: result path 'out-{lr}.json' contains '{' or '}' (paths are not templates: each child has its own run directory)" },
	{ "name: t\ncommand: [x]\nmetrics: ../m.json\n",
	  "t.yaml:3:10: metrics path '../m.json' leaves the run directory ('..')" },
	{ "name: t\ncommand: [x]\nslurm: {cpus_per_task: many}\n",
	  "t.yaml:3:24: slurm 'cpus_per_task' must be an integer, not a string" },
	{ "name: t\ncommand: [x]\nslurm: {partition: [a]}\n",
	  "t.yaml:3:20: slurm 'partition' must be a scalar, not a list" },
	{ "name: t\ncommand: [x]\nslurm: {partition: \"a\\nb\"}\n",
	  "t.yaml:3:20: slurm 'partition' is empty or contains a control character" },
	{ "name: t\ncommand: [x]\nanalysis: {group_by: [lr]}\n",
	  "t.yaml:3:23: analysis 'group_by' names 'lr', which is not a parameter" },
	{ "name: t\ncommand: [x]\nanalysis: {sort: \"-\"}\n",
	  "t.yaml:3:18: analysis 'sort' must name a metric (\"loss\": lowest mean first; \"-accuracy\": highest first), not '-'" },
	{ "name: t\ncommand: [x]\nanalysis: {sort: [a]}\n",
	  "t.yaml:3:18: analysis 'sort' must be a string, not a list" },
	{ "name: t\ncommand: [x]\nanalysis: {sortt: a}\n",
	  "t.yaml:3:12: unknown key 'sortt' in 'analysis' (did you mean 'sort'?)" },
	{ HEAD "parameters: {lr: [1]}\nanalysis: {group_by: [lrr]}\n",
	  "t.yaml:4:23: analysis 'group_by' names 'lrr', which is not a parameter (did you mean 'lr'?)" },
	/* parameter and env names */
	{ "name: t\ncommand: [x]\nparameters: {repeat: [1]}\n", "t.yaml:3:14: parameter name 'repeat' is reserved" },
	{ "name: t\ncommand: [x]\nparameters: {1a: [1]}\n",
	  "t.yaml:3:14: parameter name '1a' is not valid (letters, digits and _, not starting with a digit)" },
	{ "name: t\ncommand: [x]\nenv: {SB_CHILD: x}\n",
	  "t.yaml:3:7: environment variable 'SB_CHILD' is reserved (sbagent sets SB_*)" },
	{ "name: t\ncommand: [x]\nenv: {A-B: x}\n",
	  "t.yaml:3:7: environment variable name 'A-B' is not valid (letters, digits and _, not starting with a digit)" },
	/* include and exclude */
	{ HEAD "parameters: {lr: [1], m: [a]}\ninclude: [{lr: 2}]\n",
	  "t.yaml:4:11: include entry does not set parameter 'm' (each include entry sets every parameter)" },
	{ HEAD "parameters: {lr: [1]}\ninclude: [{lr: 2, lx: 3}]\n",
	  "t.yaml:4:19: unknown parameter 'lx' in include entry (did you mean 'lr'?)" },
	{ HEAD "parameters: {lr: [1, 2]}\nexclude: [{model: 1}]\n",
	  "t.yaml:4:12: unknown parameter 'model' in exclude entry" },
	{ HEAD "parameters: {lr: [1, 2]}\nexclude: [{}]\n",
	  "t.yaml:4:11: empty exclude entry (it would exclude every point)" },
	{ "name: t\ncommand: [x]\nexclude: [{a: 1}]\n",
	  "t.yaml:3:10: 'exclude' needs 'parameters' (there is no grid to exclude from)" },
	{ "name: t\ncommand: [run, \"{a}\"]\ninclude: [{a: 1}, {b: 2}]\n",
	  "t.yaml:3:20: include entry sets 'b', which the first include entry does not (every include entry sets the same parameters)" },
	/* YAML structure */
	{ "name: t\nname: u\ncommand: [x]\n", "t.yaml:2:1: duplicate key 'name' (first at 1:1)" },
	{ "name: &n t\ncommand: [x]\n", "t.yaml:1:7: anchor '&n' is not supported (write the value out)" },
	{ "name: t\ncommand: [x]\ntag: *n\n", "t.yaml:3:6: alias '*n' is not supported (write the value out)" },
	{ "name: !!int t\ncommand: [x]\n",
	  "t.yaml:1:7: tag 'tag:yaml.org,2002:int' is not supported (only !!str)" },
	{ "name: t\ncommand: [x]\n---\nname: u\n",
	  "t.yaml:3:1: more than one YAML document (a spec is one document)" },
	{ "name: t\ncommand: [x\n", "t.yaml:3:1: invalid YAML: did not find expected ',' or ']' while parsing a flow sequence" },
	{ "", "t.yaml:1:1: spec is empty" },
	{ "# only a comment\n", "t.yaml:1:1: spec is empty" },
	{ "- a\n- b\n", "t.yaml:1:1: a spec must be a mapping, not a list" },
	{ "command: [x]\n", "t.yaml:1:1: missing required key 'name'" },
	{ "name: t\n", "t.yaml:1:1: missing required key 'command'" },
	{ "name: t\ncommand: [x]\nenv: {[a]: b}\n", "t.yaml:3:7: mapping key is a list (keys must be scalars)" },
	{ "name:\ncommand: [x]\n", "t.yaml:1:6: 'name' must be a string, not null" },
	{ "name: t\ncommand: ~\n", "t.yaml:2:10: 'command' must be a list (argv) or a string (shell), not null" },
	{ "name: t\ncommand: \"  \"\n", "t.yaml:2:10: 'command' is empty" },
	{ "name: t\ncommand: [\"\", a]\n", "t.yaml:2:11: the program (first element of 'command') is empty" },
	{ "name: t\ncommand: [\"a\\0b\"]\n", "t.yaml:2:11: string contains a NUL character" },
	{ "name: t\ntag: \"v 2\"\ncommand: [x]\n", "t.yaml:2:6: tag 'v 2' is not valid (1 to 64 of A-Z a-z 0-9 . _ -)" },
	{ "name: t\ncommand: [x]\nmetrics: [m.json]\n", "t.yaml:3:10: 'metrics' must be a string, not a list" },
	{ "name: t\ncommand: [x]\nresults: [a, b, a]\n", "t.yaml:3:17: 'a' is listed twice in 'results'" },
	{ "name: t\ncommand: [x]\nresults: [1]\n", "t.yaml:3:11: an entry of this list must be a string, not an integer (quote it)" },
	{ "name: t\ncommand: [x]\nslurm: {extra: [\"\"]}\n",
	  "t.yaml:3:17: slurm 'extra' entry is empty or contains a control character" },
	{ "name: t\ncommand: [x]\nheartbeat: 0\n", "t.yaml:3:12: 'heartbeat' is 0, out of range (1..86400)" },
	{ "name: t\ncommand: [x]\nparameters: [a, b]\n", "t.yaml:3:13: 'parameters' must be a mapping, not a list" },
	{ "name: t\ncommand: [x]\ninclude: {a: 1}\n", "t.yaml:3:10: 'include' must be a list, not a mapping" },
	{ "name: t\ncommand: [x]\ninclude: [1]\n", "t.yaml:3:11: an include entry must be a mapping, not an integer" },
	{ "name: t\ncommand: [x]\nslurm: [gpu]\n", "t.yaml:3:8: 'slurm' must be a mapping, not a list" },
	{ "name: t\ncommand: [\"{a}\"]\nparameters: {a: [1]}\nenv: {A: \"{b}\"}\n",
	  "t.yaml:4:10: unknown parameter 'b' in template (did you mean 'a'?)" },
	/* limits */
	{ HEAD "parameters: {lr: [1]}\nrepeats: 1000001\n",
	  "t.yaml:4:10: 'repeats' is 1000001, out of range (1..1000000)" },
	{ HEAD "parameters: {lr: [1]}\nrepeats: 1000000\ninclude: [{lr: 2}, {lr: 3}, {lr: 4}, {lr: 5}, {lr: 6}, {lr: 7}, {lr: 8}, {lr: 9}, {lr: 10}, {lr: 11}]\n",
	  "t.yaml:1:1: benchmark has 11000000 children (limit 10000000)" },
};

static void test_error_messages(void **state)
{
	size_t i, bad = 0;

	(void)state;
	for (i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
		const char *got = error_of(error_cases[i].text);
		if (strcmp(got, error_cases[i].msg) != 0) {
			print_error("case %zu:\n  spec: %s\n  want: %s\n  got:  %s\n", i, error_cases[i].text,
				    error_cases[i].msg, got);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* Bytes libyaml's reader refuses (not UTF-8, control characters, NUL) are
 * reported at the offending byte, not at 1:1.  Lengths are explicit: some
 * texts hold a NUL. */
static void test_bad_byte_positions(void **state)
{
	static const struct {
		const char *text;
		size_t len;
		const char *msg;
	} cases[] = {
#define BB(t, m) { t, sizeof(t) - 1, m }
		BB("name: t\ncommand: [x]\ntag: \"ab\xff\"\n",
		   "t.yaml:3:9: invalid YAML: invalid leading UTF-8 octet (byte 0xff)"),
		BB("name: t\ncommand: [x]\ntag: \xc3\x28\n",
		   "t.yaml:3:7: invalid YAML: invalid trailing UTF-8 octet (byte 0x28)"),
		BB("name: t\ncommand: [\"\xc3\xa9t\xc3\xa9\", \x01]\n",
		   "t.yaml:2:18: invalid YAML: control characters are not allowed (byte 0x01)"),
		BB("name: t\r\ncommand: [x]\r\ntag: a\x7f\r\n",
		   "t.yaml:3:7: invalid YAML: control characters are not allowed (byte 0x7f)"),
		BB("name: t\ncommand: [x, y\0z]\n",
		   "t.yaml:2:15: invalid YAML: control characters are not allowed (byte 0x00)"),
		BB("\xef\xbb\xbfname: t\x02\n", "t.yaml:1:8: invalid YAML: control characters are not allowed (byte 0x02)"),
		BB("name: t\ncommand: [x]\ntag: \"\xe2\x82", "t.yaml:3:7: invalid YAML: incomplete UTF-8 octet sequence (byte 0xe2)"),
		/* UTF-16LE: "name: t\ntag: a" then U+0001 */
		BB("\xff\xfen\0a\0m\0e\0:\0 \0t\0\n\0t\0a\0g\0:\0 \0a\0\x01\0\n\0",
		   "t.yaml:2:7: invalid YAML: control characters are not allowed (byte 0x01)"),
#undef BB
	};
	struct sb_error err;
	size_t i, bad = 0;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_spec *s;
		memset(&err, 0, sizeof(err));
		s = sb_spec_load_buffer(cases[i].text, cases[i].len, "t.yaml", &err);
		if (s != NULL || strcmp(err.msg, cases[i].msg) != 0) {
			print_error("case %zu:\n  want: %s\n  got:  %s\n", i, cases[i].msg,
				    s ? "(loaded)" : err.msg);
			bad++;
		}
		sb_spec_destroy(s);
	}
	assert_int_equal(bad, 0);
}

/* A generated spec text; caller frees. */
static char *gen(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *gen(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	assert_true(vasprintf(&s, fmt, ap) >= 0);
	va_end(ap);
	return s;
}

static void test_limits(void **state)
{
	char *big, *text, *p;
	size_t i;

	(void)state;
	/* string length */
	big = malloc(SB_SPEC_MAX_STRING + 2);
	memset(big, 'x', SB_SPEC_MAX_STRING + 1);
	big[SB_SPEC_MAX_STRING + 1] = '\0';
	text = gen("name: t\ncommand: [echo, %s]\n", big);
	assert_string_equal(error_of(text), "t.yaml:2:17: string is too long (16385 bytes, limit 16384)");
	free(text);
	big[SB_SPEC_MAX_STRING] = '\0';
	text = gen("name: t\ncommand: [echo, %s]\n", big);
	assert_string_equal(error_of(text), "");
	free(text);
	free(big);

	/* nesting */
	text = gen("name: t\ncommand: [x]\nenv: {A: %s}\n",
		   "[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]");
	assert_string_equal(error_of(text), "t.yaml:3:24: nesting is too deep (limit 16 levels)");
	free(text);

	/* file size */
	big = malloc(SB_SPEC_MAX_FILE_SIZE + 2);
	memset(big, '#', SB_SPEC_MAX_FILE_SIZE + 1);
	big[SB_SPEC_MAX_FILE_SIZE + 1] = '\0';
	assert_string_equal(error_of(big), "'t.yaml' is too large (1048577 bytes, limit 1048576)");
	free(big);

	/* parameter count */
	text = gen("name: t\ncommand: [x]\nparameters:\n");
	for (i = 0; i < SB_SPEC_MAX_PARAMS + 1; i++) {
		p = gen("%s  p%zu: [1]\n", text, i);
		free(text);
		text = p;
	}
	assert_string_equal(error_of(text), "t.yaml:4:3: 'parameters' has too many entries (65, limit 64)");
	free(text);

	/* grid size, checked before expanding */
	text = gen("name: t\ncommand: [x]\nparameters:\n");
	for (i = 0; i < 4; i++) {
		size_t j;
		p = gen("%s  p%zu: [0", text, i);
		free(text);
		text = p;
		for (j = 1; j < 100; j++) {
			p = gen("%s, %zu", text, j);
			free(text);
			text = p;
		}
		p = gen("%s]\n", text);
		free(text);
		text = p;
	}
	assert_string_equal(error_of(text), "t.yaml:4:3: grid has more than 10000000 points (limit 10000000 children)");
	free(text);

	/* a resolved command over its limit: 100 references to a 16 KiB value */
	big = malloc(SB_SPEC_MAX_STRING + 1);
	memset(big, 'v', SB_SPEC_MAX_STRING - 10);
	big[SB_SPEC_MAX_STRING - 10] = '\0';
	text = gen("name: t\nparameters: {v: [\"%s\"]}\ncommand: \"%s\"\n", big,
		   "{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}"
		   "{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}"
		   "{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}"
		   "{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}{v}");
	assert_string_equal(error_of(text),
			    "t.yaml:3:10: command of child 0 is longer than 1048576 bytes once resolved");
	free(text);

	/* all env values together: 100 values of 16374 bytes; the 65th crosses */
	text = gen("name: t\nparameters: {v: [\"%s\"]}\ncommand: [x]\nenv:\n", big);
	for (i = 0; i < 100; i++) {
		p = gen("%s  E%02zu: \"{v}\"\n", text, i);
		free(text);
		text = p;
	}
	assert_string_equal(error_of(text), "t.yaml:69:8: env of child 0 is longer than 1048576 bytes once resolved");
	free(text);
	free(big);
}

static const struct sb_value *first_value(struct sb_spec **s, const char *yaml_value)
{
	struct sb_error err = { 0 };
	char *text = gen("name: t\ncommand: [x]\nparameters: {v: [%s]}\n", yaml_value);

	*s = load(text, &err);
	free(text);
	if (*s == NULL)
		print_error("%s\n", err.msg);
	assert_non_null(*s);
	return sb_spec_param_value(*s, 0, 0);
}

static void check_int(const char *yaml, int64_t want)
{
	struct sb_spec *s;
	const struct sb_value *v = first_value(&s, yaml);

	assert_int_equal(v->type, SB_VALUE_INT);
	assert_true(v->u.i == want);
	sb_spec_destroy(s);
}

static void check_float(const char *yaml, double want, const char *text)
{
	struct sb_spec *s;
	const struct sb_value *v = first_value(&s, yaml);
	char *t;

	assert_int_equal(v->type, SB_VALUE_FLOAT);
	assert_memory_equal(&v->u.f, &want, sizeof(double));
	t = sb_value_text(v);
	assert_string_equal(t, text);
	free(t);
	sb_spec_destroy(s);
}

static void check_str(const char *yaml, const char *want)
{
	struct sb_spec *s;
	const struct sb_value *v = first_value(&s, yaml);

	assert_int_equal(v->type, SB_VALUE_STR);
	assert_string_equal(v->u.str.s, want);
	sb_spec_destroy(s);
}

static void check_bool(const char *yaml, bool want)
{
	struct sb_spec *s;
	const struct sb_value *v = first_value(&s, yaml);

	assert_int_equal(v->type, SB_VALUE_BOOL);
	assert_int_equal(v->u.b, want);
	sb_spec_destroy(s);
}

static void test_core_schema(void **state)
{
	(void)state;
	check_int("0", 0);
	check_int("-0", 0);
	check_int("+17", 17);
	check_int("007", 7);
	check_int("0o17", 15);
	check_int("0x1F", 31);
	check_int("0x7fffffffffffffff", INT64_MAX);
	check_int("9223372036854775807", INT64_MAX);
	check_int("-9223372036854775808", INT64_MIN);
	check_float("0.001", 0.001, "0.001");
	check_float("1e-3", 0.001, "0.001");
	check_float("1.0e-3", 0.001, "0.001");
	check_float("0.1", 0.1, "0.1");
	check_float("1e-05", 1e-05, "1e-05");
	check_float("1.0", 1.0, "1.0");
	check_float("1.", 1.0, "1.0");
	check_float("1e20", 1e20, "1e+20");
	check_float("5e-324", 5e-324, "5e-324");
	check_float("1.7976931348623157e308", 1.7976931348623157e308, "1.7976931348623157e+308");
	check_float("-0.0", 0.0, "0.0");
	check_float(".5", 0.5, "0.5");
	check_float("-1.5E+3", -1500.0, "-1500.0"); /* the float text rule: Python's repr */
	check_bool("true", true);
	check_bool("True", true);
	check_bool("FALSE", false);
	check_str("yes", "yes");            /* YAML 1.1 bools are strings in 1.2 */
	check_str("on", "on");
	check_str("\"1\"", "1");
	check_str("'0.1'", "0.1");
	check_str("!!str 12", "12");
	check_str("1_000", "1_000");
	check_str("0b101", "0b101");
	check_str("12:30", "12:30");      /* no sexagesimal in 1.2 */
	check_str(".NaN1", ".NaN1");
	check_str("resnet18", "resnet18");
	check_str("\"null\"", "null");
	check_str("nan", "nan");
	check_str("inf", "inf");
}

static void test_float_text(void **state)
{
	static const struct {
		double v;
		const char *text;
	} cases[] = {
		{ 0.1, "0.1" }, { 1e-05, "1e-05" }, { 1.0, "1.0" }, { 1e+20, "1e+20" },
		{ 5e-324, "5e-324" }, { 1.7976931348623157e308, "1.7976931348623157e+308" },
		{ 0.0, "0.0" }, { 100.0, "100.0" }, { 10.0, "10.0" }, { 12.0, "12.0" }, { 1500.0, "1500.0" }, { 1e16, "1e+16" }, { 1e15, "1000000000000000.0" }, { 1e-5, "1e-05" }, { 0.0001, "0.0001" }, { 0.30000000000000004, "0.30000000000000004" },
		{ 123456789012345680.0, "1.2345678901234568e+17" }, { -2.5, "-2.5" },
	};
	char buf[SB_DOUBLE_TEXT_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(sb_fmt_double(cases[i].v, buf), cases[i].text);
}

static void test_value_equal(void **state)
{
	struct sb_value i1 = { .type = SB_VALUE_INT, .u.i = 1 };
	struct sb_value f1 = { .type = SB_VALUE_FLOAT, .u.f = 1.0 };
	struct sb_value s1 = { .type = SB_VALUE_STR, .u.str = { "1", 1 } };
	struct sb_value b1 = { .type = SB_VALUE_BOOL, .u.b = true };
	struct sb_value i1b = i1;

	(void)state;
	assert_false(sb_value_equal(&i1, &f1));
	assert_false(sb_value_equal(&i1, &s1));
	assert_false(sb_value_equal(&i1, &b1));
	assert_true(sb_value_equal(&i1, &i1b));
}

/* The canonical writer against msgpack-c's packer, value by value. */
static void same_as_msgpack(struct sb_canon *c, msgpack_sbuffer *sb)
{
	assert_false(c->failed);
	assert_int_equal(c->len, sb->size);
	assert_memory_equal(c->buf, sb->data, sb->size);
	sb_canon_reset(c);
	msgpack_sbuffer_clear(sb);
}

static void test_canon_vs_msgpack(void **state)
{
	static const int64_t ints[] = {
		0, 1, 31, 127, 128, 255, 256, 65535, 65536, 4294967295LL, 4294967296LL, INT64_MAX,
		-1, -31, -32, -33, -127, -128, -129, -32768, -32769, -2147483648LL, -2147483649LL, INT64_MIN,
	};
	static const double doubles[] = { 0.0, 1.0, -2.5, 0.1, 1e300, 5e-324 };
	static const size_t lens[] = { 0, 1, 31, 32, 255, 256, 65535, 65536 };
	struct sb_canon c;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	char *s = malloc(70000);
	size_t i;

	(void)state;
	memset(s, 'a', 70000);
	sb_canon_init(&c, 1 << 20);
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		sb_canon_int(&c, ints[i]);
		msgpack_pack_int64(&pk, ints[i]);
		same_as_msgpack(&c, &sb);
	}
	for (i = 0; i < sizeof(doubles) / sizeof(doubles[0]); i++) {
		sb_canon_double(&c, doubles[i]);
		msgpack_pack_double(&pk, doubles[i]);
		same_as_msgpack(&c, &sb);
	}
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		sb_canon_str(&c, s, lens[i]);
		msgpack_pack_str_with_body(&pk, s, lens[i]);
		same_as_msgpack(&c, &sb);
		sb_canon_bin(&c, s, lens[i]);
		msgpack_pack_bin_with_body(&pk, s, lens[i]);
		same_as_msgpack(&c, &sb);
		sb_canon_array(&c, lens[i]);
		msgpack_pack_array(&pk, lens[i]);
		same_as_msgpack(&c, &sb);
		sb_canon_map(&c, lens[i]);
		msgpack_pack_map(&pk, lens[i]);
		same_as_msgpack(&c, &sb);
	}
	sb_canon_nil(&c);
	sb_canon_bool(&c, true);
	sb_canon_bool(&c, false);
	msgpack_pack_nil(&pk);
	msgpack_pack_true(&pk);
	msgpack_pack_false(&pk);
	same_as_msgpack(&c, &sb);
	/* over the maximum: failed, never a short buffer passed off as whole */
	sb_canon_release(&c);
	sb_canon_init(&c, 8);
	sb_canon_str(&c, s, 20);
	assert_true(c.failed);
	sb_canon_release(&c);
	msgpack_sbuffer_destroy(&sb);
	free(s);
}

/* The canonical bytes of a small child, spelled out by hand from
 * docs/spec.md: if this changes, every digest changes. */
static void test_child_canonical_bytes(void **state)
{
	static const char want[] =
		"87"                                    /* map of 7 */
		"a7636f6d6d616e64" "92" "a46563686f" "a131"   /* command: [echo, "1"] */
		"a3656e76" "80"                         /* env: {} */
		"a76d657472696373" "c0"                 /* metrics: nil */
		"a6706172616d73" "81" "a178" "01"       /* params: {x: 1} */
		"a6726570656174" "00"                   /* repeat: 0 */
		"a97265736f7572636573" "87"             /* resources: */
		"aa636f6e73747261696e74" "c0"           /*   constraint */
		"ad637075735f7065725f7461736b" "c0"     /*   cpus_per_task */
		"a467726573" "c0"                       /*   gres */
		"a36d656d" "c0"                         /*   mem */
		"a56e6f646573" "c0"                     /*   nodes */
		"a66e7461736b73" "c0"                   /*   ntasks */
		"a9706172746974696f6e" "c0"             /*   partition */
		"a7726573756c7473" "90";                /* results: [] */
	const char *text = "name: t\ncommand: [echo, \"{x}\"]\nparameters: {x: [1]}\n";
	struct sb_error err = { 0 };
	struct sb_spec *s = load(text, &err);
	struct sb_plan *p;
	uint8_t *bytes;
	size_t len = 0;
	char *hex;

	(void)state;
	assert_non_null(s);
	p = sb_plan_create(s, &err);
	assert_non_null(p);
	bytes = sb_plan_child_canonical(p, 0, &len, &err);
	assert_non_null(bytes);
	hex = malloc(2 * len + 1);
	sb_hex_encode(bytes, len, hex);
	assert_string_equal(hex, want);
	free(hex);
	free(bytes);
	sb_plan_destroy(p);
	sb_spec_destroy(s);
}

static void test_load_file_errors(void **state)
{
	struct sb_error err = { 0 };

	(void)state;
	assert_null(sb_spec_load("/nonexistent/spec.yaml", &err));
	assert_string_equal(err.msg, "cannot open '/nonexistent/spec.yaml': No such file or directory");
	assert_null(sb_spec_load("/", &err));
	assert_string_equal(err.msg, "cannot read '/': is a directory");
	sb_spec_destroy(NULL);
	sb_plan_destroy(NULL);
	sb_child_destroy(NULL);
}

static void test_accessors(void **state)
{
	const char *text =
		"name: acc\ntag: v2\ncommand: \"run {b} {a}\"\n"
		"parameters: {b: [1], a: [x]}\nheartbeat: 30\nrepeats: 2\n"
		"results: [r1, sub/r2]\nmetrics: m.json\nenv: {Z: \"1\", A: \"{a}\"}\n"
		"slurm: {partition: gpu, time: \"02:00:00\", mem: 16G, cpus_per_task: 8, gres: \"gpu:1\",\n"
		"        nodes: 2, ntasks: 4, constraint: a100, array_throttle: 16, extra: [\"--qos=normal\"]}\n"
		"analysis: {metrics: [loss], sort: -loss}\n";
	struct sb_error err = { 0 };
	struct sb_spec *s = load(text, &err);
	const struct sb_slurm_options *o;

	(void)state;
	assert_non_null(s);
	assert_string_equal(sb_spec_name(s), "acc");
	assert_string_equal(sb_spec_tag(s), "v2");
	assert_true(sb_spec_command_is_shell(s));
	assert_int_equal(sb_spec_param_count(s), 2);
	assert_string_equal(sb_spec_param_name(s, 0), "a");
	assert_string_equal(sb_spec_param_name(s, 1), "b");
	assert_int_equal(sb_spec_heartbeat(s), 30);
	assert_int_equal(sb_spec_repeats(s), 2);
	assert_int_equal(sb_spec_result_count(s), 2);
	assert_string_equal(sb_spec_result(s, 1), "sub/r2");
	assert_string_equal(sb_spec_metrics(s), "m.json");
	assert_int_equal(sb_spec_env_count(s), 2);
	assert_string_equal(sb_spec_env_name(s, 0), "A");
	o = sb_spec_slurm(s);
	assert_string_equal(o->partition, "gpu");
	assert_string_equal(o->time, "02:00:00");
	assert_string_equal(o->mem, "16G");
	assert_string_equal(o->gres, "gpu:1");
	assert_string_equal(o->nodes, "2");
	assert_string_equal(o->constraint, "a100");
	assert_int_equal(o->cpus_per_task, 8);
	assert_int_equal(o->ntasks, 4);
	assert_int_equal(o->array_throttle, 16);
	assert_int_equal(o->nextra, 1);
	assert_string_equal(o->extra[0], "--qos=normal");
	assert_int_equal(sb_spec_group_by_count(s), 2); /* default: every parameter */
	assert_string_equal(sb_spec_group_by(s, 0), "a");
	assert_true(sb_spec_has_analysis_metrics(s));
	assert_string_equal(sb_spec_analysis_metric(s, 0), "loss");
	{
		bool desc = false;
		assert_string_equal(sb_spec_analysis_sort(s, &desc), "loss");
		assert_true(desc);
	}
	sb_spec_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_messages),
		cmocka_unit_test(test_bad_byte_positions),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_core_schema),
		cmocka_unit_test(test_float_text),
		cmocka_unit_test(test_value_equal),
		cmocka_unit_test(test_canon_vs_msgpack),
		cmocka_unit_test(test_child_canonical_bytes),
		cmocka_unit_test(test_load_file_errors),
		cmocka_unit_test(test_accessors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
