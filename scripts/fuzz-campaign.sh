#!/usr/bin/env bash
# Cumulative fuzzing: runs a libFuzzer harness for MINUTES from the repository's corpus, merges the
# inputs that add coverage back into that corpus (test/fuzz/corpus/ or corpus_nd/, committed), and
# appends one line to test/fuzz/ledger.csv (date, commit, harness, seconds, executions, corpus
# before and after, crashes). Prints the ledger's totals per harness at the end.
#
# Usage: scripts/fuzz-campaign.sh MINUTES [fuzz_plan|fuzz_plan_nd ...]   (both by default)
#        scripts/fuzz-campaign.sh --totals
# A crash stops that harness's run and leaves its input as test/fuzz/crash-<harness>-<sha1>; the
# line records it. Make it a regression input (copy it into the corpus) once it is fixed.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
ledger=$root/test/fuzz/ledger.csv

totals() {
  awk -F, 'NR > 1 { runs[$3] += 1; secs[$3] += $4; execs[$3] += $5; crash[$3] += $8 }
    END { for (h in runs) printf "%s: %d runs, %d s, %d executions, %d crashes\n", h, runs[h], secs[h], execs[h], crash[h] }' \
    "$ledger" | sort
}
[ "${1:-}" = --totals ] && { totals; exit 0; }

minutes=${1:?usage: fuzz-campaign.sh MINUTES [HARNESS ...]}
shift
harnesses=${*:-fuzz_plan fuzz_plan_nd}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -f "$ledger" ] || echo "date,commit,harness,seconds,executions,corpus_before,corpus_after,crashes" >"$ledger"
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)

for harness in $harnesses; do
  case "$harness" in
    fuzz_plan) corpus=$root/test/fuzz/corpus ;;
    fuzz_plan_nd) corpus=$root/test/fuzz/corpus_nd ;;
    *) echo "fuzz-campaign: unknown harness $harness"; exit 2 ;;
  esac
  "$(command -v clang++-14 || command -v clang++)" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -I"$root/include" "$root/test/fuzz/$harness.cpp" -o "$work/$harness"
  mkdir -p "$work/$harness.corpus"
  cp "$corpus"/* "$work/$harness.corpus/"
  before=$(ls "$corpus" | wc -l)
  status=0
  (cd "$work" && ./"$harness" -max_total_time=$((minutes * 60)) -print_final_stats=1 -max_len=256 \
    "$harness.corpus" >"$harness.log" 2>&1) || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$harness.log")
  seconds=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$work/$harness.log")
  crashes=0
  for c in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
    [ -e "$c" ] || continue
    crashes=$((crashes + 1))
    cp "$c" "$root/test/fuzz/$(basename "$c" | sed "s/^\([a-z]*\)-/\1-$harness-/")"
  done
  if [ -z "$execs" ]; then  # a crash ends libFuzzer before its final stats
    execs=$(grep -o '^#[0-9]*' "$work/$harness.log" | tail -n 1 | tr -d '#')
    seconds=$(grep -o 'secs: [0-9]*' "$work/$harness.log" | tail -n 1 | tr -dc 0-9)
  fi
  # The committed corpus becomes a minimal set of inputs covering what the old corpus and this
  # run's inputs cover (libFuzzer's merge; names are content hashes).
  mkdir -p "$work/$harness.merged"
  if (cd "$work" && ./"$harness" -merge=1 "$harness.merged" "$corpus" "$harness.corpus" \
      >"$harness.merge.log" 2>&1) && [ -n "$(ls "$work/$harness.merged")" ]; then
    rm -f "$corpus"/*
    cp "$work/$harness.merged"/* "$corpus/"
  fi
  after=$(ls "$corpus" | wc -l)
  echo "$(date -u +%Y-%m-%dT%H:%MZ),$commit,$harness,${seconds:-0},${execs:-0},$before,$after,$crashes" >>"$ledger"
  echo "$harness: ${execs:-0} executions in ${seconds:-0} s, corpus $before -> $after, $crashes crashes (status $status)"
  [ "$status" -eq 0 ] || tail -n 30 "$work/$harness.log"
done
totals
