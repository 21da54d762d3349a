/* Parsing `scontrol show config` as Slurm 22.05 prints it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "slurm/slurmcfg.h"

static void test_real_layout(void **state)
{
	const char *text =
		"Configuration data as of 2026-11-30T13:00:00\n"
		"AccountingStorageBackupHost = (null)\n"
		"ClusterName             = lab\n"
		"KillWait                = 10 sec\n"
		"MaxArraySize            = 1001\n"
		"MinJobAge               = 300 sec\n"
		"SLURM_VERSION           = 22.05.8\n";
	struct sb_slurm_config cfg;

	(void)state;
	sb_slurm_config_parse(text, &cfg);
	assert_int_equal(cfg.max_array_size, 1001);
	assert_int_equal(cfg.kill_wait, 10);
	assert_string_equal(cfg.cluster, "lab");
	assert_string_equal(cfg.version, "22.05.8");
}

static void test_defaults_and_garbage(void **state)
{
	struct sb_slurm_config cfg;

	(void)state;
	sb_slurm_config_parse("MaxArraySize = lots\nKillWait = -3 sec\nClusterName = (null)\n", &cfg);
	assert_int_equal(cfg.max_array_size, SB_DEFAULT_MAX_ARRAY_SIZE);
	assert_int_equal(cfg.kill_wait, SB_DEFAULT_KILL_WAIT);
	assert_string_equal(cfg.cluster, "");
	sb_slurm_config_parse("MaxArraySize = 5\n", &cfg);
	assert_int_equal(cfg.max_array_size, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_layout),
		cmocka_unit_test(test_defaults_and_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
