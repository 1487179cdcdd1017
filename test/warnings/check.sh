#!/usr/bin/env bash
# Compiles the examples and the two libraries' sources (which instantiate the library's templates
# the way users do) with -Wall -Wextra -Wshadow -Wconversion -Werror: the headers must be clean under
# the warnings users build with. MPI's own C++ bindings are left out (OMPI_SKIP_MPICXX: they warn
# in Open MPI's headers, not in redist's). The files compile side by side, as many at once as there
# are cores (the C library alone takes a third of the time). Usage: check.sh CXX SOURCE_ROOT [--libraries]
# --libraries: the two libraries only, where the build compiles the examples with the same warnings
# as errors (meson option strict_examples, which scripts/test.sh --full sets).
set -u
cxx=$1 root=$2 only_libraries=${3:-}
flags=(-std=c++20 -fsyntax-only -DOMPI_SKIP_MPICXX -Wall -Wextra -Wshadow -Wconversion -Werror
       -I"$root/include" -I"$root/lib" -I"$root/bench")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The longest first, so that the last to start are short.
files=("$root/lib/c/redist_c.cpp" "$root/lib/scalapack/redist_scalapack.cpp")
if [ "$only_libraries" = --libraries ]; then
  echo "the examples: compiled by the build with these warnings as errors (strict_examples)"
else
  files+=("$root"/example/*.cpp)
fi
parallel=$(nproc 2>/dev/null || echo 2)
i=0
for f in "${files[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
  ( if "$cxx" "${flags[@]}" "$f" >"$work/$i.log" 2>&1; then echo ok >"$work/$i.status"; fi ) &
  i=$((i + 1))
done
wait
failed=0
i=0
for f in "${files[@]}"; do
  if [ -f "$work/$i.status" ]; then
    echo "ok: ${f#$root/}"
  else
    echo "FAILED: ${f#$root/}"
    grep -E "error|warning" "$work/$i.log" | head -n 20
    failed=1
  fi
  i=$((i + 1))
done
exit $failed
