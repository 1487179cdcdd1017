#!/usr/bin/env bash
# Compiles one file that must not compile and checks that the compiler says the sentence in its
# first line: "// expected-error: <extended regex>". Usage: check.sh CXX INCLUDE_DIR FILE [PCH]
# PCH: a header to -include first (test/compile_fail/pch.hpp's copy beside its precompiled .gch).
set -u
cxx=$1 inc=$2 file=$3
pch=()
[ -n "${4:-}" ] && pch=(-include "$4")
want=$(head -n 1 "$file" | sed -n 's|^// expected-error: ||p')
[ -n "$want" ] || { echo "no '// expected-error:' line in $file"; exit 1; }
if out=$("$cxx" -std=c++20 -fsyntax-only -I"$inc" "${pch[@]}" "$file" 2>&1); then
  echo "$file compiled, but must fail with: $want"
  exit 1
fi
if ! grep -Eq -- "$want" <<<"$out"; then
  echo "$file failed to compile, but not with: $want"
  echo "$out" | head -n 40
  exit 1
fi
echo "ok: $(basename "$file"): $want"
