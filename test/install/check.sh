#!/usr/bin/env bash
# Installs redist into a scratch prefix and builds a consumer against it twice: with CMake's
# find_package(redist) and with pkg-config. Usage: check.sh BUILD_DIR SOURCE_DIR
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
# The .pc names the install prefix; point it at the scratch root.
flags=${flags//-I$prefix/-I$root}
mpicxx "$src/test/install/consumer/consumer.cpp" $flags -o "$work/pc_consumer"
mpiexec -n 2 --oversubscribe "$work/pc_consumer"
echo "ok: pkg-config redist: $flags"

# libredist-scalapack, when built, is installed with ScaLAPACK's names exported.
if [ -e "$build/lib/libredist-scalapack.so" ]; then
  lib=$(find "$root" -name 'libredist-scalapack.so*' -type f | head -n 1)
  test -n "$lib" || { echo "libredist-scalapack.so was built but not installed"; exit 1; }
  nm -D --defined-only "$lib" | grep -q ' T pdgemr2d_$' || { echo "$lib does not export pdgemr2d_"; exit 1; }
  echo "ok: $lib exports pdgemr2d_"
fi

# libredist-c and redist/c.h: a C program built against the installed header and library.
clib=$(find "$root" -name 'libredist-c.so' | head -n 1)
test -n "$clib" || { echo "libredist-c.so was not installed"; exit 1; }
inc=$(dirname "$(dirname "$(find "$root" -path '*/redist/c.h' | head -n 1)")")
mpicc "$src/example/c_api.c" -I"$inc" -L"$(dirname "$clib")" -lredist-c -Wl,-rpath,"$(dirname "$clib")" -o "$work/c_api"
mpiexec -n 2 --oversubscribe "$work/c_api" >/dev/null
echo "ok: C interface from $clib"
