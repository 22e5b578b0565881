#!/usr/bin/env bash
# Configures and builds Tessel (compiler, runtime, tools, tests) into
# $TESSEL_BUILD_DIR (default: build/). Extra arguments go to CMake.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TESSEL_BUILD_DIR:-$root/build}"
jobs="${TESSEL_JOBS:-$(nproc)}"
if [ ! -f "$build/build.ninja" ] || [ $# -gt 0 ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "$@" >/dev/null
fi
ninja -C "$build" -j "$jobs"
