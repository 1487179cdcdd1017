#!/usr/bin/env bash
# Builds redist's tests and examples and runs the whole suite (unit, virtual ranks, MPI at 1-5
# processes over shared memory and TCP, a 2 GiB message, compile-fail, headers, install,
# examples, 60 s of fuzzing), then the unit, MPI and example suites again built with
# -Db_sanitize=address,undefined (scripts/sanitize.sh). Logs: build*/meson-logs/testlog.json.
set -u
cd "$(dirname "$0")/.."
bash scripts/deps.sh || exit 1
status=0
[ -d build ] || meson setup build >/dev/null || exit 1
ninja -C build || exit 1
meson test -C build --print-errorlogs "$@" || status=1

echo "== the unit, MPI and example suites again under AddressSanitizer and UndefinedBehaviorSanitizer =="
bash scripts/sanitize.sh || status=1
exit $status
