#!/usr/bin/env bash
# Runs the unmodified ScaLAPACK caller three ways at 4 processes: built against ScaLAPACK only,
# built with libredist-scalapack first, and the first with the library preloaded. Every run's
# output files must equal the first's byte for byte, and the log must show that redist served
# the calls it can express and that ScaLAPACK served the Cblacs_gridmap grid.
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
status=0
for name in dropin preload; do
  for r in 0 1 2 3; do
    if ! cmp "$dir/scalapack.$r" "$dir/$name.$r"; then
      echo "FAIL: $name differs from ScaLAPACK's output on rank $r"
      status=1
    fi
  done
  # Two passes of 10 mr2d cases on 4 ranks (the gridmap case by ScaLAPACK) and of 2 tran cases on
  # 4 and 3 ranks: 72 + 14 calls served by redist, 8 by ScaLAPACK.
  served=$(grep -c ' redist$' "$dir/$name.log" || true)
  declined=$(grep -c ' scalapack: ' "$dir/$name.log" || true)
  echo "$name: $served calls served by redist, $declined by ScaLAPACK (over 4 ranks)"
  if [ "$served" -ne 86 ] || [ "$declined" -ne 8 ]; then
    echo "FAIL: expected 86 calls served by redist and 8 by ScaLAPACK"
    status=1
  fi
  if [ "$name" = dropin ]; then sed -n 's/^0 .* scalapack: /declined: /p' "$dir/$name.log" | head -1; fi
done
test -s "$dir/scalapack.log" && { echo "FAIL: the ScaLAPACK-only build wrote a redist log"; status=1; }
[ $status -eq 0 ] && echo "identical output, byte for byte, on every rank"
exit $status
