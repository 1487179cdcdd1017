#!/usr/bin/env bash
# Builds what the unit and MPI suites run with -Db_sanitize=address,undefined and runs those
# suites (MPI at 1, 3, 4 and 5 processes, over shared memory, TCP and emulated nodes). The examples
# exercise the same paths as the MPI suite and are left out. A debug build under the sanitizers
# runs several times slower, so test timeouts are multiplied by 5.
# `sanitize.sh --build` only builds, `sanitize.sh --test [meson test options]` only runs the suites
# (scripts/test.sh --full builds while the plain suite runs); without either, both.
# Logs: build-sanitize/meson-logs/.
set -u
cd "$(dirname "$0")/.."
phase=both
case "${1:-}" in
  --build) phase=build; shift ;;
  --test) phase=test; shift ;;
esac
suites="unit mpi"
# The MPI programs run here at the process counts and transports where their paths differ (one rank;
# 3 and 4 on one node, over TCP alone and on emulated nodes); the plain run has them all.
skip="mpi_np2 mpi_tcp_np1 mpi_tcp_np2 mpi_nodes_np3 mpi_threads_np3"
# Left out with what only they build: the ScaLAPACK drop-in's tests (libredist-scalapack, 211 s of
# this build's 935 in the last CI's log). The drop-in is the C++ engine's gemr2d behind ScaLAPACK's
# Fortran interface; gemr2d runs here in the interop tests (mpi_interop_*), and the drop-in's own
# tests in the plain suite.
leave_out="dropin_fortran_mr2d dropin_trmr2d_offsets"
# And, for CI's time (their sanitized compiles took 234 of this build's 2531 job-seconds in the last
# CI's log, and bcc_unit 25 s of its suite on one core), three programs whose paths the sanitized
# unit and MPI programs run too: the basic-cycle tests (bcc_unit, mpi_bcc_*: the unit program
# simulates basic-cycle plans and the seeds' schedules, mpi_tests runs them under MPI), the GEN_BLOCK
# tests under MPI (mpi_gen_block_*: simulated in the unit program, run in mpi_tests) and explain's
# counts against the messages posted (mpi_explain_*: the same executor, counted through PMPI). The
# plain suite runs all of them.
leave_out="$leave_out bcc_unit mpi_bcc_np2 mpi_bcc_np3 mpi_bcc_np4"
leave_out="$leave_out mpi_gen_block_np2 mpi_gen_block_np3 mpi_gen_block_np4 mpi_gen_block_np5"
leave_out="$leave_out mpi_explain_np1 mpi_explain_np3 mpi_explain_np4 mpi_explain_tcp_np3 mpi_explain_nodes_np4"
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
if [ $phase != test ]; then
  ninja -C build-sanitize $targets || exit 1
fi
[ $phase != build ] || exit 0
tests=$(python3 - build-sanitize "$skip $leave_out" $suites <<'PY'
import json, subprocess, sys
build, skip, suites = sys.argv[1], set(sys.argv[2].split()), set(sys.argv[3:])
tests = json.loads(subprocess.check_output(["meson", "introspect", build, "--tests"]))
print(" ".join(t["name"] for t in tests if suites & {s.split(":")[-1] for s in t["suite"]} and t["name"] not in skip))
PY
) || exit 1
ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C build-sanitize --no-rebuild --print-errorlogs --timeout-multiplier 5 $tests "$@"
