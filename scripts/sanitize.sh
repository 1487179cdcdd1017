#!/usr/bin/env bash
# Builds what the unit and MPI suites run with -Db_sanitize=address,undefined and runs those
# suites (MPI at 1-5 processes, over shared memory and TCP). The examples exercise the same paths
# as the MPI suite and are left out, to keep the whole test run under 15 minutes on 2 cores. A debug build under the
# sanitizers runs several times slower, so test timeouts are multiplied by 5.
# Logs: build-sanitize/meson-logs/.
set -u
cd "$(dirname "$0")/.."
suites="unit mpi"
[ -d build-sanitize ] || meson setup build-sanitize -Db_sanitize=address,undefined -Db_lundef=false \
  -Dbuildtype=debug >/dev/null || exit 1
# Only the executables of those suites: the header, install and benchmark targets add nothing here.
targets=$(python3 - build-sanitize $suites <<'PY'
import json, os, subprocess, sys
build, suites = sys.argv[1], set(sys.argv[2:])
tests = json.loads(subprocess.check_output(["meson", "introspect", build, "--tests"]))
targets = {t["id"]: t for t in json.loads(subprocess.check_output(["meson", "introspect", build, "--targets"]))}
want = {d for t in tests if suites & {s.split(":")[-1] for s in t["suite"]} for d in t["depends"]}
print(" ".join(sorted(os.path.relpath(f, os.path.abspath(build)) for d in want if d in targets
                      for f in targets[d]["filename"])))
PY
) || exit 1
ninja -C build-sanitize $targets || exit 1
args=()
for s in $suites; do args+=(--suite "$s"); done
ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C build-sanitize --no-rebuild --print-errorlogs --timeout-multiplier 5 "${args[@]}" "$@"
