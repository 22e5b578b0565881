#!/usr/bin/env bash
# The sanitizer stage (CI runs it after scripts/test.sh):
#  1. a clang-22 build with AddressSanitizer + UndefinedBehaviorSanitizer
#     (scripts/build-sanitized.sh, in build-asan/) runs the lit suite, the
#     GoogleTest suites, and a fixed eighth of both ONNX conformance suites
#     (every 8th test in name order) against their expected-failure lists;
#  2. each libFuzzer harness runs a fixed number of inputs with a fixed seed
#     (scripts/fuzz.sh --runs N; $TESSEL_FUZZ_RUNS, default 20000);
#  3. the 400 structural mutants of scripts/mutate_models.py (seed 1) compile
#     with the sanitized tessel-compile;
#  4. the runtime's tests run under ThreadSanitizer (scripts/test-tsan.sh).
# Any sanitizer report fails the stage. Ends with one line
# "sanitizers: N passed, N failed" over the six steps.
#
# The whole conformance suite under ASan (outside CI, ~8x this slice):
#   scripts/build-sanitized.sh && ASAN_OPTIONS=abort_on_error=1:allow_user_poisoning=0 \
#     python3 scripts/onnx_conformance.py --build build-asan --timeout 300 \
#     --xfail test/conformance/expected-failures.txt --pip-onnx \
#     --pip-xfail test/conformance/expected-failures-onnx-1.23.txt --check
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TESSEL_ASAN_BUILD_DIR:-$root/build-asan}"
TESSEL_ASAN_BUILD_DIR="$build" "$root/scripts/build-sanitized.sh" || exit 1

# abort_on_error: a report ends the process with SIGABRT, which no test can
# mistake for an ordinary failure exit.
# allow_user_poisoning=0: Debian's libMLIR.so is not instrumented, and it
# shares LLVM's BumpPtrAllocator with Tessel's instrumented code (the
# attribute uniquer: Tessel's enum attributes are constructed in Tessel's
# code, MLIR's own in libMLIR). A slab started by instrumented code is
# poisoned whole, and the objects libMLIR then allocates in it are never
# unpoisoned: reading them reported use-after-poison on valid attributes
# (ONNX 1.23's test_attention_local_window_ext_cache_rank2_mask_expanded).
# Heap and stack checks are unaffected; only manual poisoning is off.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:allow_user_poisoning=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1:${UBSAN_OPTIONS:-}"
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
logs="$build/test-logs"
mkdir -p "$logs"
results=(); failed=0
step() {
  local name=$1; shift
  echo "== sanitizers: $name"
  "$@" 2>&1 | tee "$logs/$name.log"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ]; then results+=("$name ok"); else results+=("$name FAILED"); failed=$((failed + 1)); fi
}

step lit /usr/lib/llvm-22/bin/lit -sv "$build/test"
step ctest ctest --test-dir "$build" --output-on-failure
step conformance python3 "$root/scripts/onnx_conformance.py" --build "$build" \
  --jobs "$(nproc)" --quiet --shard 0/8 --timeout 300 \
  --xfail "$root/test/conformance/expected-failures.txt" \
  --pip-onnx --pip-xfail "$root/test/conformance/expected-failures-onnx-1.23.txt" --check
step fuzz "$root/scripts/fuzz.sh" --runs "${TESSEL_FUZZ_RUNS:-20000}"
step mutants python3 "$root/scripts/mutate_models.py" --build "$build" --count 200 \
  --memory-mb 0 --out "$build/mutants"
step tsan "$root/scripts/test-tsan.sh"

echo "sanitizers: ${results[*]}"
echo "sanitizers: $((${#results[@]} - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
