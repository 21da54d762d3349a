#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs the whole
# suite with ctest.
#   tests/run.sh              build/ (Release, -Werror), every test
#   tests/run.sh --sanitize   build-asan/ (AddressSanitizer + UBSan), every test but
#                             the layout checks and the 1,900-child sweep
#   tests/run.sh --fuzz [S]   build-fuzz/ (clang, libFuzzer), each target S seconds (default 30)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mode=${1:-}
jobs=$(nproc 2>/dev/null || echo 2)
case "$mode" in
"")
	bash tests/install-deps.sh
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSB_WERROR=ON -DSB_REQUIRE_MUSL=ON >/dev/null
	cmake --build build -j"$jobs"
	ctest --test-dir build --output-on-failure -j"$jobs"
	;;
--sanitize)
	bash tests/install-deps.sh
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSB_SANITIZE=ON -DSB_WERROR=ON >/dev/null
	cmake --build build-asan -j"$jobs"
	# not under the sanitizers: the layout checks (they read the sources,
	# nothing instrumented runs), the 1,900-child sweep (the code paths
	# of the smaller sweeps, at a scale that takes minutes under ASan) and
	# the report at three sizes in Chromium (a layout check in the browser;
	# the report's code runs under ASan in report_report, _bands and
	# _restarts)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --test-dir build-asan --output-on-failure -j"$jobs" \
		-E '^(layout_rules|layout_fence|e2e_sweeps_large|report_report_sizes)$'
	;;
--fuzz)
	SB_WITH_FUZZ=1 bash tests/install-deps.sh
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DSB_FUZZ=ON -DSB_SANITIZE=ON -DSB_WERROR=ON >/dev/null
	cmake --build build-fuzz -j"$jobs"
	bash tests/fuzz/run.sh build-fuzz "${2:-30}"
	;;
*)
	echo "usage: tests/run.sh [--sanitize | --fuzz [SECONDS]]" >&2
	exit 2
	;;
esac
