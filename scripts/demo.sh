#!/usr/bin/env bash
# Builds and runs the demo: 2^24 doubles on 4 processes through Block -> Cyclic<8> -> Cyclic<5> -> GenBlock -> Block.
set -eu
cd "$(dirname "$0")/.."
bash scripts/deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build example/demo >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpiexec -n 4 --oversubscribe build/example/demo "$@"
