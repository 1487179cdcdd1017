#!/usr/bin/env bash
# Installs redist into a scratch prefix and builds a consumer against it twice: with CMake's
# find_package(redist) and with pkg-config; a C program and a Fortran one (`use redist`, the
# module compiled from its installed source) against libredist-c; then configures and installs the source with the
# tests, examples, benchmarks and optional libraries off (what needs only a C++20 compiler, MPI and
# Boost.MPI) and builds the consumer against that. Usage: check.sh BUILD_DIR SOURCE_DIR
set -eu
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
meson install -C "$build" --no-rebuild --destdir "$work/root" >/dev/null
prefix=$(meson introspect "$build" --buildoptions | python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"))')
root="$work/root$prefix"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cmake -S "$src/test/install/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$root" >/dev/null
cmake --build "$work/cmake" >/dev/null
mpiexec -n 2 --oversubscribe "$work/cmake/consumer"
echo "ok: find_package(redist) from $root"

pcdir=$(dirname "$(find "$root" -name redist.pc | head -n 1)")
export PKG_CONFIG_PATH="$pcdir"
flags=$(pkg-config --cflags --libs redist)
# The .pc names the install prefix; point it at the scratch root. It sets no language standard:
# the consumer asks for C++20 itself.
flags=${flags//-I$prefix/-I$root}
case "$flags" in *-std=*) echo "redist.pc forces a language standard: $flags"; exit 1 ;; esac
mpicxx -std=c++20 "$src/test/install/consumer/consumer.cpp" $flags -o "$work/pc_consumer"
mpiexec -n 2 --oversubscribe "$work/pc_consumer"
echo "ok: pkg-config redist: $flags"

# libredist-scalapack, when built, is installed with ScaLAPACK's names exported.
if [ -e "$build/lib/libredist-scalapack.so" ]; then
  lib=$(find "$root" -name 'libredist-scalapack.so*' -type f | head -n 1)
  test -n "$lib" || { echo "libredist-scalapack.so was built but not installed"; exit 1; }
  nm -D --defined-only "$lib" | grep -q ' T pdgemr2d_$' || { echo "$lib does not export pdgemr2d_"; exit 1; }
  echo "ok: $lib exports pdgemr2d_"
fi

# libredist-c and redist/c.h, when built: a C program built against the installed header and library.
if [ -e "$build/lib/libredist-c.so" ]; then
  clib=$(find "$root" -name 'libredist-c.so' | head -n 1)
  test -n "$clib" || { echo "libredist-c.so was built but not installed"; exit 1; }
  inc=$(dirname "$(dirname "$(find "$root" -path '*/redist/c.h' | head -n 1)")")
  mpicc "$src/example/c_api.c" -I"$inc" -L"$(dirname "$clib")" -lredist-c -Wl,-rpath,"$(dirname "$clib")" -o "$work/c_api"
  mpiexec -n 2 --oversubscribe "$work/c_api" >/dev/null
  echo "ok: C interface from $clib"
  # Fortran: the installed module source compiled as a user compiles it, and a program that uses it.
  if command -v mpifort >/dev/null; then
    mod=$(find "$root" -path '*/redist/redist.f90' | head -n 1)
    test -n "$mod" || { echo "redist/redist.f90 (the Fortran module) was not installed"; exit 1; }
    (cd "$work" && mpifort -c "$mod" -o redist_f.o &&
      mpifort -Wno-unused-parameter "$src/test/capi/capi_f.f90" redist_f.o -L"$(dirname "$clib")" -lredist-c \
        -Wl,-rpath,"$(dirname "$clib")" -o capi_f)
    mpiexec -n 2 --oversubscribe "$work/capi_f"
    echo "ok: Fortran 'use redist' from $mod"
  fi
fi

# The core alone: configured with everything optional off (no Catch2, ScaLAPACK or FFTW looked
# for, nothing compiled), installed, and used through CMake.
meson setup "$work/core" "$src" -Dtests=false -Dbench=false -Dexamples=false -Dscalapack=disabled -Dcapi=disabled \
  -Dfftw_mpi=disabled --prefix "$prefix" >"$work/core.log" 2>&1 || { cat "$work/core.log"; exit 1; }
ninja -C "$work/core" >>"$work/core.log" 2>&1 || { cat "$work/core.log"; exit 1; }
meson install -C "$work/core" --destdir "$work/core-root" >/dev/null
if find "$work/core-root" -name '*.so*' | grep -q .; then echo "the core's install holds a library"; exit 1; fi
cmake -S "$src/test/install/consumer" -B "$work/core-cmake" -DCMAKE_PREFIX_PATH="$work/core-root$prefix" >/dev/null
cmake --build "$work/core-cmake" >/dev/null
mpiexec -n 2 --oversubscribe "$work/core-cmake/consumer"
echo "ok: the core alone (-Dtests=false -Dbench=false -Dexamples=false, optional libraries disabled)"
