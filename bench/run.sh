#!/usr/bin/env bash
# Builds redist-bench, runs every case on 4 processes (n = 2^24 doubles unless N is set) and
# writes bench/results.csv and doc/performance.md with its plots in doc/img/.
# The report runs on Debian's /usr/bin/python3, which has python3-matplotlib.
# Environment: REPS (default 10), N (default 2^24), NP (default 4).
set -eu
cd "$(dirname "$0")/.."
dpkg -s python3-matplotlib >/dev/null 2>&1 || {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq python3-matplotlib >/dev/null
}
[ -d build-bench ] || meson setup build-bench >/dev/null
ninja -C build-bench bench/redist-bench >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
reps=${REPS:-10}
np=${NP:-4}
args=(--all --reps "$reps" --csv bench/results.csv)
[ -n "${N:-}" ] && args+=(--n "$N")
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
mpiexec -n "$np" --oversubscribe build-bench/bench/redist-bench "${args[@]}"
/usr/bin/python3 bench/report bench/results.csv --out doc/performance.md --img doc/img --reps "$reps" --load-before "$load_before" \
  --command "mpiexec -n $np --oversubscribe redist-bench ${args[*]}"
