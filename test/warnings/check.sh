#!/usr/bin/env bash
# Compiles the examples and the two libraries' sources (which instantiate the library's templates
# the way users do) with -Wall -Wextra -Wshadow -Wconversion -Werror: the headers must be clean under
# the warnings users build with. MPI's own C++ bindings are left out (OMPI_SKIP_MPICXX: they warn
# in Open MPI's headers, not in redist's). Usage: check.sh CXX SOURCE_ROOT
set -u
cxx=$1 root=$2
flags=(-std=c++20 -fsyntax-only -DOMPI_SKIP_MPICXX -Wall -Wextra -Wshadow -Wconversion -Werror
       -I"$root/include" -I"$root/lib" -I"$root/bench")
failed=0
for f in "$root"/example/*.cpp "$root/lib/c/redist_c.cpp" "$root/lib/scalapack/redist_scalapack.cpp"; do
  if out=$("$cxx" "${flags[@]}" "$f" 2>&1); then
    echo "ok: ${f#$root/}"
  else
    echo "FAILED: ${f#$root/}"
    echo "$out" | grep -E "error|warning" | head -n 20
    failed=1
  fi
done
exit $failed
