/* sbctl report BENCH [-o FILE] [--sort [-]METRIC] [--offline] [--settle S]
 * (docs/sbctl-report.md): <sbench/report.h> does the work. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "sbench/sbench.h"

enum { O_OUTPUT = 1, O_SORT, O_OFFLINE, O_SETTLE, O_LAG, O_BUNDLE, O_PUBKEY };

static const struct sb_opt opts[] = {
	{ "output", 'o', O_OUTPUT, SB_OPT_VALUE, "FILE", "write the report to FILE (default: report.html in the benchmark directory)" },
	{ "sort", 0, O_SORT, SB_OPT_VALUE, "[-]METRIC", "judge the best configuration by a metric's mean, lowest first (-METRIC: highest first; default: the spec's analysis.sort)" },
	SB_CLI_OPT_OFFLINE(O_OFFLINE),
	SB_CLI_OPT_SETTLE(O_SETTLE),
	SB_CLI_OPT_STORAGE_LAG(O_LAG),
	{ "bundle", 0, O_BUNDLE, SB_OPT_VALUE, "FILE",
	  "name the signed bundle FILE (sbctl export) in the report, once it verifies against the benchmark with --pubkey" },
	{ "pubkey", 0, O_PUBKEY, SB_OPT_VALUE, "PUB", "the public key that checks --bundle" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"report",
	"report BENCH [-o FILE] [--sort [-]METRIC] [--offline] [--settle SECONDS]\n"
	"             [--storage-lag SECONDS|auto] [--bundle FILE --pubkey PUB]",
	"Writes one self-contained HTML file: the benchmark's status, analysis,\n"
	"timeline and provenance (docs/sbctl-report.md).\n",
	opts,
	"exit status: 0 every child succeeded, 3 not every child succeeded (or the\n"
	"bundle does not verify: no report written), 2 usage or input error,\n"
	"1 runtime error\n",
};

/* The bundle named by --bundle, verified against the benchmark itself:
 * the report never names a bundle that does not stand for what it shows. */
static int check_bundle(const char *file, const char *pubkey, const struct sb_bench *b,
			struct sb_report_bundle *rb)
{
	struct sb_bundle_verify_opts vo = { pubkey, sb_bench_dir(b) };
	struct sb_bundle_verdict vd;
	int rc = sb_cli_verify_bundle("report", file, &vo, &vd);

	if (rc != SB_EXIT_OK)
		return rc;
	if (!vd.ok) {
		fprintf(stderr, "sbctl report: %s does not verify against the benchmark (%s); "
			"no report written\n", file, vd.problem);
		rc = SB_EXIT_PROBLEM;
	}
	rb->file = file;
	memcpy(rb->sha256, vd.sha256, sizeof(rb->sha256));
	memcpy(rb->keyid, vd.keyid, sizeof(rb->keyid));
	sb_bundle_verdict_release(&vd);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct sb_status_opts o = { 0 };
	struct sb_analyze_opts ao = { 0 };
	struct sb_analysis *an = NULL;
	struct sb_status *st = NULL;
	struct sb_bench *b;
	struct sb_error err;
	const char *bench = NULL, *output = NULL, *bundle = NULL, *pubkey = NULL, *v;
	struct sb_report_bundle rb = { 0 };
	struct sb_report_opts ro = { 0 };
	struct sb_opt_iter it = { 0 };
	char *written = NULL;
	size_t i;
	int k, rc;

	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP:
			return SB_EXIT_OK;
		case SB_OPT_ERROR:
			return SB_EXIT_USAGE;
		case O_OUTPUT:
			output = v;
			break;
		case O_BUNDLE:
			bundle = v;
			break;
		case O_PUBKEY:
			pubkey = v;
			break;
		case O_SORT:
			ao.sort = v + (v[0] == '-');
			ao.sort_desc = v[0] == '-';
			if (!*ao.sort) {
				sb_opt_error(&cmd, "--sort needs a metric name ('loss', or '-accuracy' for highest first)");
				return SB_EXIT_USAGE;
			}
			break;
		case O_OFFLINE:
			o.offline = true;
			break;
		case O_SETTLE:
			if (sb_cli_set_settle("report", v) < 0)
				return SB_EXIT_USAGE;
			break;
		case O_LAG:
			if (sb_cli_set_storage_lag("report", v) < 0)
				return SB_EXIT_USAGE;
			break;
		case SB_OPT_OPERAND:
			if (sb_opt_operand(&cmd, &bench, v, "BENCH") < 0)
				return SB_EXIT_USAGE;
			break;
		}
	}
	if (bench == NULL) {
		sb_opt_error(&cmd, "missing BENCH");
		return SB_EXIT_USAGE;
	}
	if ((bundle == NULL) != (pubkey == NULL) || (bundle && (!bundle[0] || !pubkey[0]))) {
		sb_opt_error(&cmd, "--bundle FILE and --pubkey PUB go together");
		return SB_EXIT_USAGE;
	}
	if ((rc = sb_cli_status("report", bench, &o, &b, &st)) != 0)
		return rc;
	ro.path = output;
	if (bundle != NULL && (rc = check_bundle(bundle, pubkey, b, &rb)) != SB_EXIT_OK)
		goto out;
	ro.bundle = bundle != NULL ? &rb : NULL;
	if (sb_analyze(st, &ao, &an, &err) < 0 || sb_report_write_opts(an, &ro, &written, &err) < 0) {
		fprintf(stderr, "sbctl report: %s\n", err.msg);
		rc = sb_cli_exit(&err);
	} else {
		for (i = 0; i < sb_analysis_warning_count(an); i++)
			fprintf(stderr, "sbctl report: warning: %s\n", sb_analysis_warning(an, i));
		printf("%s\n", written);
		rc = sb_status_all_succeeded(st) ? SB_EXIT_OK : SB_EXIT_PROBLEM;
	}
out:
	sb_free(written);
	sb_analysis_destroy(an);
	sb_status_destroy(st);
	sb_bench_destroy(b);
	return rc;
}
