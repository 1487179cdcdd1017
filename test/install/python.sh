#!/usr/bin/env bash
# The Python package as a user installs it, imported with no REDIST_C_LIBRARY and no PYTHONPATH
# (python -I, the install's directory put on sys.path by the script): `pip install
# --no-build-isolation --target` of a copy of python/ (offline: --no-index; --no-deps, as --target
# ignores Debian's NumPy and mpi4py) runs a plan of 12-byte records on 2 ranks with libredist-c
# beside the package, then finds it on the loader's path; meson install's copy (into a scratch
# DESTDIR) holds _library.py naming the library where meson installs it.
# Usage: python.sh BUILD_DIR SOURCE_DIR PYTHON
set -eu
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) python=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset REDIST_C_LIBRARY PYTHONPATH LD_LIBRARY_PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# Block -> Cyclic(2) of records (f8, i4), and prints the library loaded. Argument: the install's directory.
cat >"$work/plan.py" <<'PY'
import sys
site = sys.argv[1]
sys.path.insert(0, site)
import numpy as np
from mpi4py import MPI
import redist
assert redist.__file__.startswith(site), f"redist imported from {redist.__file__}, not {site}"
comm = MPI.COMM_WORLD
rank, P = comm.Get_rank(), comm.Get_size()
n = 23
rec = np.dtype([("x", "f8"), ("id", "i4")])
a, b = redist.Layout(redist.block(n, P)), redist.Layout(redist.cyclic(n, 2, P))
ga, = a.global_indices(comm)
gb, = b.global_indices(comm)
x = np.zeros(a.local_shape(comm), dtype=rec)
x["x"], x["id"] = ga * 0.5, ga
y = np.zeros(b.local_size(comm), dtype=rec)
redist.Plan(a, b, comm, rec)(x, y)
assert np.array_equal(y["x"], gb * 0.5) and np.array_equal(y["id"], gb), f"rank {rank}: {y}"
if rank == 0:
    print(f"ok: redist {redist.version()} from {redist.__file__} with {redist._lib()._name}")
PY

cp -r "$src/python" "$work/src"
rm -rf "$work/src/build" "$work/src"/*.egg-info
"$python" -m pip install --no-build-isolation --no-index --no-deps --target "$work/site" "$work/src" >"$work/pip.log" 2>&1 ||
  { cat "$work/pip.log"; exit 1; }
test -f "$work/site/redist/__init__.py" || { echo "pip installed no redist/__init__.py"; exit 1; }
test ! -e "$work/site/redist/_library.py" || { echo "pip installed a _library.py"; exit 1; }

# The library beside the package (as a wheel that bundles it would hold it).
cp -L "$build/lib/libredist-c.so" "$work/site/redist/"
out=$(mpiexec -n 2 --oversubscribe "$python" -I "$work/plan.py" "$work/site")
echo "$out"
case "$out" in *"with $work/site/redist/libredist-c.so"*) ;; *) echo "not the library beside the package"; exit 1 ;; esac

# On the loader's path.
rm "$work/site/redist/libredist-c.so"
LD_LIBRARY_PATH="$build/lib" mpiexec -n 1 -x LD_LIBRARY_PATH "$python" -I "$work/plan.py" "$work/site"

# meson install's copy: the package and _library.py with the library's installed path, which is
# where meson installs libredist-c.
meson install -C "$build" --no-rebuild --destdir "$work/root" --tags python-runtime >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; exit 1; }
init=$(find "$work/root" -path '*/redist/__init__.py' | head -n 1)
test -n "$init" || { echo "meson install installed no redist/__init__.py"; exit 1; }
site=$(dirname "$(dirname "$init")")
lib=$("$python" -I -c 'import sys; sys.path.insert(0, sys.argv[1]); import redist._library as l; print(l.LIBRARY)' "$site")
meson introspect "$build" --installed | "$python" -c '
import json, sys
lib = sys.argv[1]
assert lib in json.load(sys.stdin).values(), f"_library.py names {lib}, which meson install does not install"
' "$lib"
echo "ok: meson install puts the package in ${site#"$work/root"}, naming $lib"
LD_LIBRARY_PATH="$build/lib" mpiexec -n 1 -x LD_LIBRARY_PATH "$python" -I "$work/plan.py" "$site"
