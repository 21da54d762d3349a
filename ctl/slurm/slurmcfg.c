#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/proc.h"
#include "slurm/slurm_cmd.h"
#include "slurm/slurmcfg.h"

static void defaults(struct sb_slurm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->max_array_size = SB_DEFAULT_MAX_ARRAY_SIZE;
	cfg->kill_wait = SB_DEFAULT_KILL_WAIT;
}

/* The leading integer of value ("10 sec" -> 10), or -1. */
static int64_t leading_int(const char *value)
{
	char *end;
	long long v = strtoll(value, &end, 10);

	if (end == value || v < 0 || (*end != '\0' && *end != ' '))
		return -1;
	return v;
}

void sb_slurm_config_parse(const char *text, struct sb_slurm_config *cfg)
{
	const char *line = text;

	defaults(cfg);
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[512], *eq, *key, *val, *e;
		int64_t n;

		if (len < sizeof(buf)) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			eq = strstr(buf, " = ");
			if (eq) {
				*eq = '\0';
				key = buf;
				val = eq + 3;
				for (e = key + strlen(key); e > key && isspace((unsigned char)e[-1]); e--)
					e[-1] = '\0';
				for (e = val + strlen(val); e > val && isspace((unsigned char)e[-1]); e--)
					e[-1] = '\0';
				if (!strcmp(key, "MaxArraySize") && (n = leading_int(val)) > 0)
					cfg->max_array_size = n;
				else if (!strcmp(key, "KillWait") && (n = leading_int(val)) >= 0)
					cfg->kill_wait = n;
				else if (!strcmp(key, "ClusterName") && strcmp(val, "(null)"))
					snprintf(cfg->cluster, sizeof(cfg->cluster), "%s", val);
				else if (!strcmp(key, "SLURM_VERSION"))
					snprintf(cfg->version, sizeof(cfg->version), "%s", val);
			}
		}
		line = nl ? nl + 1 : NULL;
	}
}

void sb_slurm_config_read(struct sb_slurm_config *cfg, struct sb_error *warn)
{
	struct sb_error err;
	char **argv = sb_slurm_scontrol_config_argv(&err);
	struct sb_proc_result res;
	int rc = argv ? sb_proc_run(argv, 1 << 20, 30000, &res, &err) : -1;

	sb_slurm_argv_free(argv);
	if (rc < 0) {
		defaults(cfg);
		sb_errorf(warn, "%s; assuming MaxArraySize %d and KillWait %d s", err.msg,
			  SB_DEFAULT_MAX_ARRAY_SIZE, SB_DEFAULT_KILL_WAIT);
		return;
	}
	if (res.exit_code != 0) {
		defaults(cfg);
		sb_errorf(warn, "'scontrol show config' failed (%s); assuming MaxArraySize %d and "
			  "KillWait %d s", res.err_len ? strtok(res.err, "\n") : "no message",
			  SB_DEFAULT_MAX_ARRAY_SIZE, SB_DEFAULT_KILL_WAIT);
		sb_proc_result_release(&res);
		return;
	}
	sb_slurm_config_parse(res.out, cfg);
	cfg->from_scontrol = 1;
	sb_proc_result_release(&res);
}
