#!/usr/bin/env bash
# PDTRMR2D side by side (issue 35 item 8): test/dropin/trmr2d_offsets.cpp built against ScaLAPACK
# alone and with libredist-scalapack first, run at 4 processes. Prints both columns per case; fails
# when redist's result differs from PDTRMR2D's documented semantics in any case. ScaLAPACK's
# departures from them are reported, not failed on (they are ScaLAPACK's behaviour, documented in
# doc/scalapack.md).
# Usage: trmr2d_compare.sh MPIEXEC REF_EXE DROPIN_EXE
set -eu
mpiexec=$1 ref=$2 dropin=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$mpiexec" -n 4 "$ref" > "$dir/scalapack"
"$mpiexec" -n 4 "$dropin" > "$dir/redist"
n=$(wc -l < "$dir/redist")
[ "$n" -gt 0 ] && [ "$n" -eq "$(wc -l < "$dir/scalapack")" ] || { echo "FAIL: the two runs printed $n and $(wc -l < "$dir/scalapack") cases"; exit 1; }
echo "case: ScaLAPACK 2.2 | libredist-scalapack (elements of B outside the trapezoid written, trapezoid elements wrong)"
paste -d '|' "$dir/scalapack" <(sed 's/^.*: //' "$dir/redist")
bad=$(grep -vc ': 0 outside, 0 wrong$' "$dir/redist" || true)
deviates=$(grep -vc ': 0 outside, 0 wrong$' "$dir/scalapack" || true)
echo "ScaLAPACK departs from the documented semantics in $deviates of $n cases; libredist-scalapack in $bad"
[ "$bad" -eq 0 ]
