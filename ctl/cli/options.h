/* sbctl's one option parser: every command describes its options in a
 * table, and sb_opt_next walks the arguments against it.
 *
 * The rules, the same for every command (docs/cli.md, "Options"):
 * - `--name VALUE` and `--name=VALUE` are the same for an option that
 *   takes a value; the value is the next argument whatever it starts with
 *   (so `--settle -1` is refused by --settle's own check, not taken for an
 *   option);
 * - an option with an optional value (`--check[=S]`) takes it only as
 *   `--name=VALUE`;
 * - a flag given `=VALUE` is an error;
 * - `-h` and `--help` print the command's full help on stdout;
 * - `--` ends the options: every later argument is an operand; so are
 *   `-` and an argument that starts with `-` and a digit (`-1`);
 * - an unknown option is an error that names the closest known one.
 * Errors are printed as "sbctl CMD: ..." with the usage line, on stderr. */
#ifndef SB_CLI_OPTIONS_H
#define SB_CLI_OPTIONS_H

#include <stdio.h>

enum sb_opt_kind {
	SB_OPT_FLAG,     /* --json */
	SB_OPT_VALUE,    /* --root DIR, --root=DIR */
	SB_OPT_OPTIONAL, /* --check, --check=SECONDS */
};

struct sb_opt {
	const char *name;  /* the long name without "--" */
	char short_name;   /* -o; 0 for none */
	int key;           /* what sb_opt_next returns for it: > 0 */
	enum sb_opt_kind kind;
	const char *arg;   /* the value's name in the help ("DIR") */
	const char *help;  /* one line */
};

struct sb_opt_cmd {
	const char *name;        /* "status" */
	const char *usage;       /* after "usage: sbctl ": "status BENCH [--json] ..." (lines) */
	const char *about;       /* what the command does, a paragraph */
	const struct sb_opt *opts;
	const char *epilog;      /* after the options (exit status...), or NULL */
};

/* What sb_opt_next returns besides an option's key. */
enum {
	SB_OPT_END = 0,        /* no arguments left */
	SB_OPT_OPERAND = -1,   /* an operand, in *value */
	SB_OPT_HELP = -2,      /* -h or --help: the help is printed on stdout */
	SB_OPT_ERROR = -3,     /* a usage error: printed on stderr with the usage */
};

/* The state of a walk over argv[1..argc): zero it, then call sb_opt_next
 * until it returns SB_OPT_END, SB_OPT_HELP or SB_OPT_ERROR. */
struct sb_opt_iter {
	int i;
	int operands_only; /* after "--" */
};

/* The next option (its key, its value in *value: NULL for a flag or an
 * optional value not given) or operand (SB_OPT_OPERAND, *value). */
int sb_opt_next(const struct sb_opt_cmd *c, int argc, char **argv, struct sb_opt_iter *it,
		const char **value);

/* The command's full help: usage, about, every option, epilog. */
void sb_opt_help(const struct sb_opt_cmd *c, FILE *out);

/* The usage line(s) alone. */
void sb_opt_usage(const struct sb_opt_cmd *c, FILE *out);

/* The command's one operand what ("BENCH") into *slot: 0, or SB_OPT_ERROR
 * after "more than one WHAT given" when *slot is set already. */
int sb_opt_operand(const struct sb_opt_cmd *c, const char **slot, const char *value, const char *what);

/* A usage error of the command (an operand missing, one too many...):
 * "sbctl CMD: MESSAGE" and the usage on stderr; returns SB_OPT_ERROR. */
int sb_opt_error(const struct sb_opt_cmd *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
