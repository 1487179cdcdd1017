#!/usr/bin/env bash
# Runs the unmodified ScaLAPACK caller three ways at 4 processes: built against ScaLAPACK only,
# built with libredist-scalapack first, and the first with the library preloaded. Every run's
# output files must equal the first's byte for byte, and the log must show that redist served
# every call (the Cblacs_gridmap grid included). A fourth run preloads the library with
# REDIST_SCALAPACK_DECLINE=pdtrmr2d_,pztranc_: those calls go to ScaLAPACK's own routines (whose
# inner calls go straight through), the others to redist, with the same output.
# Usage: compare.sh MPIEXEC REF_EXE DROPIN_EXE LIBRARY
set -eu
mpiexec=$1 ref=$2 dropin=$3 lib=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() {  # run NAME EXE [extra mpiexec args]
  local name=$1 exe=$2
  shift 2
  "$mpiexec" -n 4 "$@" -x REDIST_SCALAPACK_LOG="$dir/$name.log" "$exe" "$dir/$name"
}
run scalapack "$ref"
run dropin "$dropin"
# A library built with AddressSanitizer (scripts/sanitize.sh) is preloaded after its runtime.
preload=$lib
asan=$(ldd "$lib" 2>/dev/null | awk '/libasan/ {print $3}')
[ -n "$asan" ] && preload="$asan:$lib"
run preload "$ref" -x LD_PRELOAD="$preload"
run mixed "$ref" -x LD_PRELOAD="$preload" -x REDIST_SCALAPACK_DECLINE=pdtrmr2d_,pztranc_
status=0
for name in dropin preload mixed; do
  for r in 0 1 2 3; do
    if ! cmp "$dir/scalapack.$r" "$dir/$name.$r"; then
      echo "FAIL: $name differs from ScaLAPACK's output on rank $r"
      status=1
    fi
  done
  # Two passes of 12 mr2d cases on 4 ranks (5 PDGEMR2D cases called twice, 2 PZGEMR2D, 5
  # PDTRMR2D) and of 2 tran cases called twice (PDTRAN on 4 ranks, PZTRANC on 3): 136 + 28
  # calls; the second call of each pair (40 + 14) runs the first's plan (a first call may too, when
  # an earlier one had the same arguments and the BLACS and MPI reused the context's handles).
  # Declined in the mixed run: 40 PDTRMR2D and 12 PZTRANC calls.
  served=$(grep -c ' redist\(: new plan\)\?$' "$dir/$name.log" || true)
  cached=$(grep -c ' redist$' "$dir/$name.log" || true)
  declined=$(grep -c ' scalapack: ' "$dir/$name.log" || true)
  echo "$name: $served calls served by redist ($cached by a cached plan), $declined by ScaLAPACK (over 4 ranks)"
  want_served=164 want_cached=54 want_declined=0
  [ "$name" = mixed ] && want_served=112 want_cached=48 want_declined=52
  if [ "$served" -ne $want_served ] || [ "$cached" -lt $want_cached ] || [ "$declined" -ne $want_declined ]; then
    echo "FAIL: expected $want_served calls served by redist (at least $want_cached cached) and $want_declined by ScaLAPACK"
    status=1
  fi
  if [ "$name" = mixed ]; then sed -n 's/^0 .* scalapack: /declined: /p' "$dir/$name.log" | sort | uniq -c; fi
done
test -s "$dir/scalapack.log" && { echo "FAIL: the ScaLAPACK-only build wrote a redist log"; status=1; }
[ $status -eq 0 ] && echo "identical output, byte for byte, on every rank"
exit $status
