#!/usr/bin/env bash
# Builds redist's tests and examples and runs the whole suite (unit, virtual ranks, MPI at 1-4
# processes, compile-fail, headers, install, examples). Meson's log: build/meson-logs/testlog.json.
set -eu
cd "$(dirname "$0")/.."
bash scripts/deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build
meson test -C build --print-errorlogs "$@"
