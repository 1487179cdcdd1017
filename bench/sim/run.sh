#!/usr/bin/env bash
# redist on simulated clusters (issue "Evidence at scale"): builds redist-bench against SimGrid's
# SMPI and runs it on the platforms of bench/sim/platforms/, so that its times are the modelled
# network's, not this machine's. Writes bench/sim/results.csv: the platform, then redist-bench's
# columns (median_ms, min_ms, max_ms and plan_ms are simulated milliseconds).
#
#   bash bench/sim/run.sh            # every run of bench/sim/runs.txt
#   bash bench/sim/run.sh --smoke    # 16 simulated ranks, two small cases: that it builds and checks
#
# Installs what is missing, as root, from Debian only: libsimgrid-dev (smpicxx, smpirun), and
# Boost.MPI's sources from Debian's boost1.74 source package (a deb-src line for Debian's own
# mirror is added when there is none). Debian's libboost-mpi is built for Open MPI, whose MPI_Comm
# is not SMPI's, so its 23 source files are compiled with smpicxx into a static library.
# Work files: build-sim/ (REDIST_SIM_WORK). REDIST_SIM_RUNS names another runs file.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=${REDIST_SIM_WORK:-$root/build-sim}
mode=${1:-all}
mkdir -p "$work"

# 1. Debian packages.
missing=()
for p in libsimgrid-dev dpkg-dev xz-utils libboost-serialization-dev libboost-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >"$work/apt.log" 2>&1 ||
    { apt-get update >>"$work/apt.log" 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >>"$work/apt.log" 2>&1; } ||
    { echo "bench/sim: could not install ${missing[*]} (see $work/apt.log)" >&2; exit 1; }
fi

# 2. Boost.MPI for SMPI, from Debian's source package of the installed Boost.
boost_lib=$work/libboost_mpi_smpi.a
if [ ! -f "$boost_lib" ]; then
  mkdir -p "$work/boost-src" "$work/boost-obj"
  if ! ls "$work"/boost-src/boost1.74_*.orig.tar.xz >/dev/null 2>&1; then
    if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
      # Debian's own mirror, as the machine's deb lines name it.
      uri=$(grep -hs "^URIs:" /etc/apt/sources.list.d/debian.sources | head -1 | awk '{print $2}')
      uri=${uri:-http://deb.debian.org/debian}
      printf 'Types: deb-src\nURIs: %s\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$uri" >/etc/apt/sources.list.d/redist-deb-src.sources
      apt-get update >>"$work/apt.log" 2>&1
    fi
    (cd "$work/boost-src" && apt-get source --download-only boost1.74 >>"$work/apt.log" 2>&1) ||
      { echo "bench/sim: apt-get source boost1.74 failed (see $work/apt.log)" >&2; exit 1; }
  fi
  (cd "$work/boost-src" && tar -xJf boost1.74_*.orig.tar.xz --wildcards '*/libs/mpi/src/*.cpp' --exclude '*/python/*')
  for f in "$work"/boost-src/*/libs/mpi/src/*.cpp; do
    smpicxx -std=c++20 -O2 -fno-gnu-unique -DBOOST_MPI_SOURCE=1 -w -c "$f" -o "$work/boost-obj/$(basename "$f" .cpp).o"
  done
  ar rcs "$boost_lib" "$work"/boost-obj/*.o
fi

# 3. redist-bench for SMPI. -fno-gnu-unique: SMPI gives each simulated rank its own copy of the
# program's globals, but GCC's STB_GNU_UNIQUE symbols (inline functions' statics) would be merged
# across ranks by the loader. No ScaLAPACK (Debian's is built for Open MPI).
bench_exe=$work/redist-bench-sim
if [ ! -f "$bench_exe" ] || [ -n "$(find include bench -newer "$bench_exe" \( -name '*.hpp' -o -name '*.cpp' \) -print -quit)" ]; then
  smpicxx -std=c++20 -O2 -fno-gnu-unique -DREDIST_BENCH_NO_SCALAPACK -Iinclude -Ibench bench/redist_bench.cpp \
    -o "$bench_exe" "$boost_lib" -lboost_serialization -ldl
fi

# 4. The runs: platform, ranks per node, ranks, sizes, cases and methods (bench/sim/runs.txt, or
# the smoke run). Ranks fill the nodes in order, `per_node` to a node, so that neighbours share a
# node as under a batch scheduler's block placement. Network-only simulated time
# (smpi/simulate-computation:no: packing and copying take no simulated time, the same for every
# method); MPI_Alltoallv by SMPI's `pair` algorithm (its linear one is far slower to simulate).
runs=${REDIST_SIM_RUNS:-bench/sim/runs.txt}
out=${REDIST_SIM_OUT:-bench/sim/results.csv}
if [ "$mode" = "--smoke" ]; then
  runs=$work/smoke_runs.txt
  out=$work/smoke.csv
  printf 'fat_tree_64x4 4 16 4096 256 cyc8_cyc5,mat_b64_b100 redist,alltoallv_onepass,alltoallw_darray 3\n' >"$runs"
fi
rm -f "$out.tmp"
status=0
while read -r platform per_node np n matrix cases methods reps overhead_us; do
  case "$platform" in ''|'#'*) continue ;; esac
  # The MPI library's own cost per message, sent and received (SMPI's smpi/os and smpi/or): 0, or
  # a start-up of a few microseconds; the results name it after the platform (fat_tree_64x4+os5us).
  overhead_us=${overhead_us:-0}
  label=$platform
  overhead=()
  if [ "$overhead_us" != 0 ]; then
    label=$platform+os${overhead_us}us
    s=$(awk "BEGIN { printf \"%.9f\", $overhead_us / 1e6 }")
    overhead=(--cfg=smpi/os:0:$s:0 --cfg=smpi/or:0:$s:0)
  fi
  hosts=$work/hosts_${platform}_${np}
  for ((r = 0; r < np; ++r)); do echo "node-$((r / per_node))"; done >"$hosts"
  csv=$work/run.csv
  args=(--n "$n" --matrix "$matrix" --cube 64 --reps "$reps" --methods "$methods" --csv "$csv")
  IFS=, read -ra names <<<"$cases"
  for c in "${names[@]}"; do args+=(--case "$c"); done
  echo "== $label, $np ranks: $cases" >&2
  if ! REDIST_SHARED_MEMORY=0 smpirun -np "$np" -platform "bench/sim/platforms/$platform.xml" -hostfile "$hosts" \
      --cfg=smpi/simulate-computation:no --cfg=smpi/alltoallv:pair --cfg=smpi/display-timing:yes ${overhead[@]+"${overhead[@]}"} \
      --log=root.thres:warning "$bench_exe" "${args[@]}" </dev/null >"$work/run.log" 2>&1; then
    echo "bench/sim: the run failed ($work/run.log):" >&2
    tail -20 "$work/run.log" >&2
    status=1
  fi
  grep -E "median|FAIL|error" "$work/run.log" >&2 || true
  if [ -f "$csv" ]; then
    [ -f "$out.tmp" ] || head -1 "$csv" | sed "s/^/platform,/" >"$out.tmp"
    tail -n +2 "$csv" | sed "s/^/$label,/" >>"$out.tmp"
    rm -f "$csv"
  fi
done <"$runs"
[ -f "$out.tmp" ] && mv "$out.tmp" "$out"
echo "bench/sim: wrote $out" >&2
exit $status
