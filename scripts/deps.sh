#!/usr/bin/env bash
# Installs the Debian 12 packages given as arguments, or by default those redist builds, tests and
# benchmarks with, if any is missing.
set -eu
pkgs="g++ meson ninja-build pkg-config cmake python3 libboost-dev libboost-mpi-dev catch2
      libopenmpi-dev openmpi-bin gfortran python3-mpi4py python3-numpy python3-pip python3-setuptools python3-wheel libscalapack-openmpi-dev libfftw3-dev libfftw3-mpi-dev clang-14 libclang-rt-14-dev"
[ $# -gt 0 ] && pkgs="$*"
missing=""
for p in $pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq $missing >/dev/null
fi
