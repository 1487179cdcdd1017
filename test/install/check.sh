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
