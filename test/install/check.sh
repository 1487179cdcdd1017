#!/usr/bin/env bash
# Installs redist into a scratch prefix and uses it as other projects do: CMake's find_package(redist)
# (redist::redist; redist::c and redist::scalapack for the libraries built), pkg-config from a
# compiler line and from Meson, a C program and a Fortran one (`use redist`, the module compiled
# from its installed source) against libredist-c; builds the consumer from the source tree with
# CMake's add_subdirectory and FetchContent and as a Meson subproject; then configures and installs
# the source with the tests, examples, benchmarks and optional libraries off (what needs only a
# C++20 compiler, MPI and Boost.MPI) and builds the consumer against that. The projects are in
# test/install/ (doc/getting-started.md shows them). Usage: check.sh BUILD_DIR SOURCE_DIR
set -eu
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
work=$(mktemp -d)
declare -A pids
trap 'for pid in "${pids[@]}"; do kill -- -"$pid" 2>/dev/null || true; done; wait; rm -rf "$work"' EXIT
meson install -C "$build" --no-rebuild --destdir "$work/root" >/dev/null
prefix=$(meson introspect "$build" --buildoptions | python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"))')
root="$work/root$prefix"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The .pc names the install prefix; a copy names the scratch root.
pcdir=$(dirname "$(find "$root" -name redist.pc | head -n 1)")
mkdir "$work/pc"
sed "s|^prefix=.*|prefix=$root|" "$pcdir/redist.pc" >"$work/pc/redist.pc"

# Each C++ consumer is one compile: test/install/consumer/consumer.cpp (b = a) where the install is
# found by CMake or a compiler line, consumer/small.cpp in the other projects. They start now, side
# by side (each in its own process group, which the exit trap ends), and `finish NAME` waits for
# one (and prints its log if it failed) before it runs.
start() {  # NAME COMMAND...
  local name=$1
  shift
  set -m
  # In a directory of its own: Meson's cmake module runs CMake in the current directory.
  (mkdir "$work/$name.cwd" && cd "$work/$name.cwd" && "$@") >"$work/$name.log" 2>&1 &
  pids[$name]=$!
  set +m
}
finish() {  # NAME
  wait "${pids[$1]}" || { echo "$1 failed:"; cat "$work/$1.log"; exit 1; }
  unset "pids[$1]"
}
cmake_consumer() {  # PROJECT_DIR BUILD_DIR CMAKE_OPTIONS...: configure, build the target consumer
  cmake -S "$1" -B "$2" "${@:3}" && cmake --build "$2" --target consumer
}
meson_consumer() {  # DIR MESON_OPTIONS...: test/install/meson_consumer and its program, copied to DIR and built
  mkdir -p "$1"
  cp "$src/test/install/meson_consumer/meson.build" "$src/test/install/consumer/small.cpp" "$1"
  meson setup "$1/build" "$1" --buildtype=plain "${@:2}" && ninja -C "$1/build"
}
meson_subproject() {  # DIR: the same with the source as subprojects/redist
  mkdir -p "$1/subprojects"
  ln -s "$src" "$1/subprojects/redist"
  meson_consumer "$1" --force-fallback-for=redist
}
# The core alone: configured with everything optional off (no Catch2, ScaLAPACK or FFTW looked for,
# nothing compiled), installed, and used through CMake.
core() {
  meson setup "$work/core" "$src" -Dtests=false -Dbench=false -Dexamples=false -Dscalapack=disabled -Dcapi=disabled \
    -Dfftw_mpi=disabled --prefix "$prefix" && ninja -C "$work/core" && meson install -C "$work/core" --destdir "$work/core-root" &&
    cmake_consumer "$src/test/install/consumer" "$work/core-cmake" -DCMAKE_PREFIX_PATH="$work/core-root$prefix"
}
flags=$(PKG_CONFIG_PATH="$work/pc" pkg-config --cflags --libs redist)
# redist.pc sets no language standard: the consumer asks for C++20 itself.
case "$flags" in *-std=*) echo "redist.pc forces a language standard: $flags"; exit 1 ;; esac
start cmake cmake_consumer "$src/test/install/consumer" "$work/cmake" -DCMAKE_PREFIX_PATH="$root"
start pkg-config mpicxx -std=c++20 "$src/test/install/consumer/consumer.cpp" $flags -o "$work/pc_consumer"
start meson-pc meson_consumer "$work/meson-pc" -Dpkg_config_path="$work/pc"
start cmake-subdir cmake_consumer "$src/test/install/cmake_subdir" "$work/cmake-subdir" -DREDIST_DIR="$src"
start cmake-fetch cmake_consumer "$src/test/install/cmake_fetch" "$work/cmake-fetch" -DREDIST_DIR="$src"
start meson-sub meson_subproject "$work/meson-sub"
start core core

# libredist-scalapack, when built, is installed with ScaLAPACK's names exported.
if [ -e "$build/lib/libredist-scalapack.so" ]; then
  lib=$(find "$root" -name 'libredist-scalapack.so*' -type f | head -n 1)
  test -n "$lib" || { echo "libredist-scalapack.so was built but not installed"; exit 1; }
  nm -D --defined-only "$lib" | grep -q ' T pdgemr2d_$' || { echo "$lib does not export pdgemr2d_"; exit 1; }
  echo "ok: $lib exports pdgemr2d_"
fi

# CMake's targets for the libraries, when built: example/c_api.c linked with redist::c, and a program
# linked with redist::scalapack before ScaLAPACK that calls the drop-in's pdgemr2d_.
if [ -e "$build/lib/libredist-c.so" ] || [ -e "$build/lib/libredist-scalapack.so" ]; then
  { cmake -S "$src/test/install/cmake_c" -B "$work/cmake-c" -DCMAKE_PREFIX_PATH="$root" -DREDIST_SOURCE_DIR="$src" &&
    cmake --build "$work/cmake-c"; } >"$work/cmake-c.log" 2>&1 || { cat "$work/cmake-c.log"; exit 1; }
  if [ -e "$build/lib/libredist-c.so" ]; then
    mpiexec -n 2 --oversubscribe "$work/cmake-c/c_api" >/dev/null
    echo "ok: redist::c from find_package(redist)"
  fi
  if [ -e "$build/lib/libredist-scalapack.so" ]; then
    from=$("$work/cmake-c/dropin")
    case "$from" in "$root"/*libredist-scalapack.so*) ;; *) echo "redist::scalapack: pdgemr2d_ came from $from"; exit 1 ;; esac
    echo "ok: redist::scalapack from find_package(redist): pdgemr2d_ from $from"
  fi
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

finish cmake
mpiexec -n 2 --oversubscribe "$work/cmake/consumer"
echo "ok: find_package(redist) from $root"

finish pkg-config
mpiexec -n 2 --oversubscribe "$work/pc_consumer"
echo "ok: pkg-config redist: $flags"

finish meson-pc
mpiexec -n 2 --oversubscribe "$work/meson-pc/build/consumer"
echo "ok: Meson dependency('redist') by pkg-config"

# From the source tree: CMake's add_subdirectory, and FetchContent in a project with C enabled
# (which adds libredist-c as redist::c, not built here), then Meson's subproject, in which redist
# builds nothing: no tests, examples or benchmarks, and the optional libraries are off.
finish cmake-subdir
mpiexec -n 2 --oversubscribe "$work/cmake-subdir/consumer"
echo "ok: CMake add_subdirectory(redist)"
finish cmake-fetch
targets=$(cmake --build "$work/cmake-fetch" --target help)
case "$targets" in *redist_c*) ;; *) echo "FetchContent in a project with C enabled defines no redist_c (redist::c)"; exit 1 ;; esac
mpiexec -n 2 --oversubscribe "$work/cmake-fetch/consumer"
echo "ok: CMake FetchContent(redist)"
finish meson-sub
meson introspect "$work/meson-sub/build" --targets | python3 -c '
import json, sys
own = [t["name"] for t in json.load(sys.stdin) if t["subproject"] == "redist"]
sys.exit("redist as a subproject builds " + ", ".join(own) if own else 0)'
mpiexec -n 2 --oversubscribe "$work/meson-sub/build/consumer"
echo "ok: Meson subproject redist"

# The core alone holds no library, and its CMake package no target for one.
finish core
if find "$work/core-root" -name '*.so*' | grep -q .; then echo "the core's install holds a library"; exit 1; fi
config=$(find "$work/core-root" -name redistConfig.cmake)
grep -q 'if(FALSE AND NOT TARGET redist::c)' "$config" && grep -q 'if(FALSE AND NOT TARGET redist::scalapack)' "$config" ||
  { echo "the core's $config declares a library target"; exit 1; }
mpiexec -n 2 --oversubscribe "$work/core-cmake/consumer"
echo "ok: the core alone (-Dtests=false -Dbench=false -Dexamples=false, optional libraries disabled)"
