#!/usr/bin/env bash
# Builds Tessel with clang-22, AddressSanitizer and UndefinedBehaviorSanitizer,
# and the libFuzzer harnesses (fuzz/), into $TESSEL_ASAN_BUILD_DIR (default:
# build-asan/). Installs clang-22 and its sanitizer runtimes when missing.
# Used by scripts/test-sanitizers.sh and scripts/fuzz.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TESSEL_ASAN_BUILD_DIR:-$root/build-asan}"
jobs="${TESSEL_JOBS:-$(nproc)}"
"$root/scripts/setup.sh" --sanitizers >/dev/null
if [ ! -f "$build/build.ninja" ]; then
  # -O1 with line tables: reports name lines, and the build stays close to a
  # release build's time. NDEBUG as in LLVM's own (release) packages.
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG" \
    -DTESSEL_SANITIZE=address -DTESSEL_BUILD_FUZZERS=ON -DTESSEL_BUILD_PYTHON=OFF \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
fi
ninja -C "$build" -j "$jobs"
