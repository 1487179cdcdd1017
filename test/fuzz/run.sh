#!/usr/bin/env bash
# Builds a libFuzzer harness with clang (address and undefined sanitizers) and runs it for a
# bounded time from its seed corpus. Usage: run.sh SOURCE_ROOT SECONDS [WORK_DIR] [HARNESS]
# HARNESS: fuzz_plan (1-D layouts, seed corpus test/fuzz/corpus/, the default) or fuzz_plan_nd
# (N-D layouts, test/fuzz/corpus_nd/) or fuzz_indirect (Indirect index lists with every 1-D layout,
# test/fuzz/corpus_indirect/). A crash leaves its input in WORK_DIR; make it a regression
# test (copy it into the seed corpus).
set -eu
root=$(cd "$1" && pwd) seconds=$2 work=${3:-$(mktemp -d)} harness=${4:-fuzz_plan}
case "$harness" in
  fuzz_plan) seeds=$root/test/fuzz/corpus ;;
  fuzz_plan_nd) seeds=$root/test/fuzz/corpus_nd ;;
  fuzz_indirect) seeds=$root/test/fuzz/corpus_indirect ;;
  *) echo "run.sh: unknown harness $harness"; exit 2 ;;
esac
mkdir -p "$work/corpus"
cp "$seeds"/* "$work/corpus/"
"$(command -v clang++-14 || command -v clang++)" -std=c++20 -O1 -gline-tables-only -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/include" "$root/test/fuzz/$harness.cpp" -o "$work/$harness"
cd "$work"
# Every input of the seed corpus first (regressions), then new ones for the time given.
status=0
./"$harness" -runs=0 "$seeds"/* >regressions.log 2>&1 || status=$?
echo "regressions: $(grep -c '^Executed' regressions.log) corpus inputs replayed"
grep -E "ERROR|redist fuzz" regressions.log || true
[ "$status" -eq 0 ] || { tail -n 30 regressions.log; exit "$status"; }
./"$harness" -max_total_time="$seconds" -print_final_stats=1 -max_len=256 corpus >fuzz.log 2>&1 || status=$?
grep -E "^Done|stat::number_of_executed_units|stat::peak_rss|ERROR|redist fuzz" fuzz.log || true
[ "$status" -eq 0 ] || { tail -n 30 fuzz.log; ls crash-* 2>/dev/null; }
exit "$status"
