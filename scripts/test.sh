#!/usr/bin/env bash
# Sets up, builds, and runs every test: the lit suite (check-tessel), the
# GoogleTest suites (ctest) and the Python package's tests (pytest). Ends with
# one line "tests: N passed, N failed".
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TESSEL_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh" || exit 1
"$root/scripts/build.sh" || exit 1

logs="$build/test-logs"
mkdir -p "$logs"
/usr/lib/llvm-22/bin/lit -sv "$build/test" 2>&1 | tee "$logs/lit.log"
lit_rc=${PIPESTATUS[0]}
ctest --test-dir "$build" --output-on-failure 2>&1 | tee "$logs/ctest.log"
ctest_rc=${PIPESTATUS[0]}
# TESSEL_TEST_WHEEL: also build the package's wheel into a temporary venv
# (pip install ./python, offline with setup.sh's scikit-build-core/nanobind).
TESSEL_BUILD_DIR="$build" TESSEL_TEST_WHEEL=1 python3 -m pytest -q "$root/python/tests" 2>&1 | tee "$logs/pytest.log"
pytest_rc=${PIPESTATUS[0]}
# The ONNX conformance suites against their expected-failure lists: Debian's
# onnx 1.12 test data, and the node suite of the pip onnx package (1.23). A test
# that fails outside its list, a listed test that passes, a crash or a timeout
# fails. Without pip onnx 1.23.2 the second suite is skipped, and said so below.
python3 "$root/scripts/onnx_conformance.py" --build "$build" --jobs "$(nproc)" --quiet \
  --xfail "$root/test/conformance/expected-failures.txt" \
  --pip-onnx --pip-xfail "$root/test/conformance/expected-failures-onnx-1.23.txt" \
  --check 2>&1 | tee "$logs/conformance.log"
conf_rc=${PIPESTATUS[0]}
# The convolution and pooling tests again with channels-last activations
# (--layout=nhwc: tessel-assign-layouts and the NHWC kernels), same lists.
python3 "$root/scripts/onnx_conformance.py" --build "$build" --jobs "$(nproc)" --quiet \
  --xfail "$root/test/conformance/expected-failures.txt" \
  --pip-onnx --pip-xfail "$root/test/conformance/expected-failures-onnx-1.23.txt" \
  --filter '([Cc]onv|[Pp]ool)' --compile-flag=--layout=nhwc \
  --check 2>&1 | sed 's/^conformance-check \[/conformance-check [nhwc, /' | tee -a "$logs/conformance.log"
nhwc_rc=${PIPESTATUS[0]}
[ "$nhwc_rc" -eq 0 ] || conf_rc=$nhwc_rc

count() { grep -E "^ *$1 *: *[0-9]+" "$2" | grep -oE '[0-9]+' | head -n 1; }
lit_pass=$(count Passed "$logs/lit.log"); lit_pass=${lit_pass:-0}
lit_unsupported=$(count Unsupported "$logs/lit.log"); lit_unsupported=${lit_unsupported:-0}
lit_fail=0
for kind in Failed Unresolved "Timed Out" "Unexpectedly Passed"; do
  n=$(count "$kind" "$logs/lit.log"); lit_fail=$((lit_fail + ${n:-0}))
done
ct_total=$(grep -oE 'tests failed out of [0-9]+' "$logs/ctest.log" | grep -oE '[0-9]+$')
ct_fail=$(grep -oE '[0-9]+ tests failed out of' "$logs/ctest.log" | grep -oE '^[0-9]+')
ct_total=${ct_total:-0}; ct_fail=${ct_fail:-0}
# A skipped test (e.g. CudaTest.Device without a GPU) is neither passed nor
# failed: ctest lists each under "The following tests did not run".
ct_skip=$(grep -cE '^[[:space:]]+[0-9]+ - .* \(Skipped\)$' "$logs/ctest.log")
ct_pass=$((ct_total - ct_fail - ct_skip))
# pytest's last summary line reads like "2 failed, 27 passed, 1 error in 1.20s";
# errors count as failures, and exit 5 (no tests collected) fails below.
py_summary=$(grep -E '[0-9]+ (passed|failed|errors?)|no tests ran' "$logs/pytest.log" | tail -n 1)
py_count() { echo "$py_summary" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' | head -n 1; }
py_pass=$(py_count passed); py_pass=${py_pass:-0}
py_fail=$(py_count failed); py_err=$(py_count 'errors?')
py_fail=$((${py_fail:-0} + ${py_err:-0}))
# One "conformance-check [group]: N passed, M failed" line per suite group.
conf_pass=0; conf_fail=0
while read -r p f; do
  conf_pass=$((conf_pass + p)); conf_fail=$((conf_fail + f))
done < <(grep -E '^conformance-check \[' "$logs/conformance.log" |
         sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/')
conf_skip=$(grep -E '^conformance-check: SKIPPED' "$logs/conformance.log" | sed 's/^conformance-check: //')
passed=$((lit_pass + ct_pass + py_pass + conf_pass))
failed=$((lit_fail + ct_fail + py_fail + conf_fail))
if [ "$lit_rc" -ne 0 ] || [ "$ctest_rc" -ne 0 ] || [ "$pytest_rc" -ne 0 ] || [ "$conf_rc" -ne 0 ]; then
  [ "$failed" -eq 0 ] && failed=1
fi
echo "lit: ${lit_pass} passed, ${lit_fail} failed, ${lit_unsupported} unsupported on this host; ctest: ${ct_pass} passed, ${ct_fail} failed, ${ct_skip} skipped;" \
  "pytest: ${py_pass} passed, ${py_fail} failed; conformance: ${conf_pass} as expected, ${conf_fail} not"
[ -n "$conf_skip" ] && echo "WARNING: conformance: $conf_skip"
echo "tests: ${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
