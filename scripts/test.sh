#!/usr/bin/env bash
# The test suite. Without arguments, the quick suite (about 7 minutes on 2 cores from a fresh
# clone): the unit and virtual-rank tests, and the MPI tests on one node, over TCP and on emulated
# nodes, only their two programs built. With --full (what CI runs): builds every test, example and
# benchmark and runs the whole suite (unit, virtual ranks, MPI at 1-8 processes over shared memory
# and TCP, a 2 GiB message, compile-fail, headers, warnings, install, examples, fuzzing, soak),
# then the unit and MPI suites again built with -Db_sanitize=address,undefined (scripts/sanitize.sh;
# that build compiles while the plain suite runs). Logs: build*/meson-logs/testlog.json.
set -u
cd "$(dirname "$0")/.."
full=0
if [ "${1:-}" = "--full" ]; then
  full=1
  shift
fi
bash scripts/deps.sh || exit 1
status=0
[ -d build ] || meson setup build >/dev/null || exit 1
if [ $full = 0 ]; then
  ninja -C build test/unit_tests test/mpi_tests || exit 1
  meson test -C build --no-rebuild --print-errorlogs --suite quick "$@" || exit 1
  echo "== the quick suite passed; bash scripts/test.sh --full runs everything (about 55 minutes) =="
  exit 0
fi
# The examples compile with the warnings of the warnings test as errors (it then checks only the two
# libraries: example/meson.build). --reconfigure: a build directory made before the option existed
# learns it.
meson setup --reconfigure build -Dstrict_examples=true >/dev/null || exit 1
ninja -C build || exit 1
# The sanitized build compiles while the plain suite runs, at the lowest CPU priority (SCHED_IDLE,
# nice 19): it takes the cores the suite leaves idle (a test of one process, the MPI programs'
# start-up, the install test) and yields them to the tests.
# Its log is printed when the plain suite is done.
sanitize_log=$(mktemp)
trap 'rm -f "$sanitize_log"' EXIT
idle=(nice -n 19)
chrt --idle 0 true 2>/dev/null && idle=(chrt --idle 0 nice -n 19)
"${idle[@]}" bash scripts/sanitize.sh --build >"$sanitize_log" 2>&1 &
sanitize_build=$!
meson test -C build --print-errorlogs "$@" || status=1

echo "== the unit and MPI suites again under AddressSanitizer and UndefinedBehaviorSanitizer =="
if wait $sanitize_build; then
  cat "$sanitize_log"
  bash scripts/sanitize.sh --test || status=1
else
  cat "$sanitize_log"
  echo "== the sanitized build failed =="
  status=1
fi
exit $status
