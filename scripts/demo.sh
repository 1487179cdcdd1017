#!/usr/bin/env bash
# Builds and runs the demo: 2^24 doubles on 4 processes through Block -> Cyclic<8> -> Cyclic<5> -> GenBlock -> Block.
# Installs only what the demo needs (a C++20 compiler, Meson, MPI, Boost.MPI) and builds it in
# build-demo/ with the tests, benchmarks and optional libraries off; scripts/test.sh builds the rest.
set -eu
cd "$(dirname "$0")/.."
bash scripts/deps.sh g++ meson ninja-build pkg-config libboost-dev libboost-mpi-dev libopenmpi-dev openmpi-bin
[ -d build-demo ] || meson setup build-demo -Dtests=false -Dbench=false -Dscalapack=disabled -Dcapi=disabled \
  -Dfftw_mpi=disabled >/dev/null
ninja -C build-demo example/demo >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpiexec -n 4 --oversubscribe build-demo/example/demo "$@"
