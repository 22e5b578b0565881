#!/usr/bin/env bash
# Runs the libFuzzer harnesses (fuzz/), built with ASan and UBSan by
# scripts/build-sanitized.sh, on seed corpora from the ONNX suite
# (scripts/fuzz_seeds.py).
#
# usage: scripts/fuzz.sh [--time SECONDS | --runs N] [HARNESS...]
#   HARNESS: onnx-import npy tensor-proto artifact (default: all four)
#   --time S  fuzz each for S seconds (default 60), growing the corpus kept
#             in <build>/fuzz/corpus/HARNESS across runs
#   --runs N  run each for exactly N inputs after its seeds, with seed 1 and
#             a fresh corpus: a fixed, repeatable run (what CI does)
# A crash, a leak, a sanitizer report or a contract violation stops that
# harness; the input is saved under <build>/fuzz/crashes/HARNESS/ and the
# script exits 1. Ends with one line per harness: executions, coverage.
# $TESSEL_ASAN_BUILD_DIR (default build-asan/) is the build used.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TESSEL_ASAN_BUILD_DIR:-$root/build-asan}"
mode=time; amount=60; harnesses=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) mode=time; amount="$2"; shift 2 ;;
    --runs) mode=runs; amount="$2"; shift 2 ;;
    onnx-import|npy|tensor-proto|artifact) harnesses+=("$1"); shift ;;
    *) echo "usage: $0 [--time SECONDS | --runs N] [onnx-import|npy|tensor-proto|artifact]..." >&2
       exit 2 ;;
  esac
done
[ ${#harnesses[@]} -eq 0 ] && harnesses=(onnx-import npy tensor-proto artifact)

TESSEL_ASAN_BUILD_DIR="$build" "$root/scripts/build-sanitized.sh" || exit 1
seeds="$build/fuzz/seeds"
if [ ! -d "$seeds" ]; then
  python3 "$root/scripts/fuzz_seeds.py" "$build" "$seeds.tmp" && mv "$seeds.tmp" "$seeds" || exit 1
fi

# allow_user_poisoning=0: see scripts/test-sanitizers.sh.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:allow_user_poisoning=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1:${UBSAN_OPTIONS:-}"
summary=(); failed=0
for name in "${harnesses[@]}"; do
  crashes="$build/fuzz/crashes/$name"
  mkdir -p "$crashes"
  if [ "$mode" = runs ]; then
    corpus=$(mktemp -d); limit=(-runs="$amount" -seed=1)
  else
    corpus="$build/fuzz/corpus/$name"; mkdir -p "$corpus"; limit=(-max_total_time="$amount")
  fi
  log="$build/fuzz/$name.log"
  echo "fuzz: $name (${mode} ${amount}), log in $log"
  # -timeout: an input taking longer is a hang, reported like a crash.
  "$build/bin/tessel-fuzz-$name" "${limit[@]}" -timeout=30 -rss_limit_mb=4096 \
    -max_len=131072 -print_final_stats=1 -artifact_prefix="$crashes/" \
    "$corpus" "$seeds/$name" >"$log" 2>&1
  rc=$?
  [ "$mode" = runs ] && rm -rf "$corpus"
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
  speed=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$')
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  cov=$(echo "$last" | grep -oE 'cov: [0-9]+' | grep -oE '[0-9]+')
  ft=$(echo "$last" | grep -oE 'ft: [0-9]+' | grep -oE '[0-9]+')
  corp=$(echo "$last" | grep -oE 'corp: [0-9]+' | grep -oE '[0-9]+')
  if [ $rc -ne 0 ]; then
    failed=1
    echo "fuzz: $name FAILED (exit $rc); the report:"
    grep -E 'ERROR|SUMMARY|runtime error|fuzz contract|Test unit written|deadly signal|timeout' "$log" | head -n 20
  fi
  summary+=("$(printf '%-13s %s: %s executions (%s/s), coverage %s edges, %s features, corpus %s' \
    "$name" "$([ $rc -eq 0 ] && echo ok || echo FAILED)" "${execs:-?}" "${speed:-?}" \
    "${cov:-?}" "${ft:-?}" "${corp:-?}")")
done
printf 'fuzz-summary: %s\n' "${summary[@]}"
exit $failed
