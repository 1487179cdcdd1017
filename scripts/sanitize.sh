#!/usr/bin/env bash
# Builds what the unit and MPI suites run with -Db_sanitize=address,undefined and runs those
# suites (MPI at 1, 3, 4 and 5 processes, over shared memory, TCP and emulated nodes). The examples
# exercise the same paths as the MPI suite and are left out. A debug build under the sanitizers
# runs several times slower, so test timeouts are multiplied by 5.
# Logs: build-sanitize/meson-logs/.
set -u
cd "$(dirname "$0")/.."
suites="unit mpi"
# The MPI programs run here at the process counts and transports where their paths differ (one rank;
# 3 and 4 on one node, over TCP alone and on emulated nodes); the plain run has them all.
skip="mpi_np2 mpi_tcp_np1 mpi_tcp_np2 mpi_nodes_np3 mpi_threads_np3"
# Left out with what only they build: the ScaLAPACK drop-in's tests (libredist-scalapack, 211 s of
# this build's 935 in the last CI's log). The drop-in is the C++ engine's gemr2d behind ScaLAPACK's
# Fortran interface; gemr2d runs here in the interop tests (mpi_interop_*), and the drop-in's own
# tests in the plain suite.
leave_out="dropin_fortran_mr2d dropin_trmr2d_offsets"
# Left out of UndefinedBehaviorSanitizer, for compile time (g++ 12 instruments every reference and
# member access with them; measured on test/mpi/test_partial.cpp at -O0: 145 s with every check,
# 117 s without null, 78 s without null and alignment, 50 s unsanitized):
#  - vptr: redist has no polymorphic types;
#  - null: AddressSanitizer reports a dereference of a null pointer (a SEGV on an unmapped page);
#  - alignment: the runtime's buffers are aligned by construction (Scratch and node windows on
#    max_align_t, a fused list's parts each rounded up to it: runtime::detail::align_up), and the
#    fuzzers (clang, test/fuzz) keep the check on the plan layer.
[ -d build-sanitize ] || meson setup build-sanitize -Db_sanitize=address,undefined -Db_lundef=false \
  -Dbuildtype=debug -Dcpp_args=-fno-sanitize=vptr,null,alignment >/dev/null || exit 1
# Only the executables of those suites: the header, install and benchmark targets add nothing here.
targets=$(python3 - build-sanitize "$leave_out" $suites <<'PY'
import json, os, subprocess, sys
build, leave_out, suites = sys.argv[1], set(sys.argv[2].split()), set(sys.argv[3:])
tests = json.loads(subprocess.check_output(["meson", "introspect", build, "--tests"]))
targets = {t["id"]: t for t in json.loads(subprocess.check_output(["meson", "introspect", build, "--targets"]))}
want = {d for t in tests if suites & {s.split(":")[-1] for s in t["suite"]} and t["name"] not in leave_out
        for d in t["depends"]}
print(" ".join(sorted(os.path.relpath(f, os.path.abspath(build)) for d in want if d in targets
                      for f in targets[d]["filename"])))
PY
) || exit 1
ninja -C build-sanitize $targets || exit 1
tests=$(python3 - build-sanitize "$skip $leave_out" $suites <<'PY'
import json, subprocess, sys
build, skip, suites = sys.argv[1], set(sys.argv[2].split()), set(sys.argv[3:])
tests = json.loads(subprocess.check_output(["meson", "introspect", build, "--tests"]))
print(" ".join(t["name"] for t in tests if suites & {s.split(":")[-1] for s in t["suite"]} and t["name"] not in skip))
PY
) || exit 1
ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C build-sanitize --no-rebuild --print-errorlogs --timeout-multiplier 5 $tests "$@"
