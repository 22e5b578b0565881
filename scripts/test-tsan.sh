#!/usr/bin/env bash
# Builds the runtime alone (no compiler) with ThreadSanitizer in build-tsan/
# and runs its tests (the runtime's GoogleTest suite and tessel-run's smoke
# test). Any data race, lock-order inversion or deadlock TSan reports fails
# the test that hit it.
#
# usage: scripts/test-tsan.sh      (TESSEL_TSAN_BUILD_DIR, TESSEL_JOBS override)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TESSEL_TSAN_BUILD_DIR:-$root/build-tsan}"
jobs="${TESSEL_JOBS:-$(nproc)}"

cmake -G Ninja -S "$root" -B "$build" \
  -DTESSEL_BUILD_COMPILER=OFF -DTESSEL_BUILD_PYTHON=OFF -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_C_FLAGS=-fsanitize=thread \
  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
  -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread
nice -n 10 ninja -C "$build" -j"$jobs"

# halt_on_error: the first report fails the test (TSan otherwise only changes
# the exit code at exit). Some kernels randomize mmap more than this TSan
# supports ("unexpected memory mapping"); setarch -R turns randomization off
# for the tests only.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
run=()
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
  run=(setarch "$(uname -m)" -R)
fi
"${run[@]}" ctest --test-dir "$build" --output-on-failure
