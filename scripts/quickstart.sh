#!/usr/bin/env bash
# The Quick start's first command: sets up, builds, compiles the bundled
# example model (examples/tiny_cnn) into a native artifact, runs it on the
# example input, and checks its output against onnxruntime's, stored beside it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TESSEL_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"

example="$root/examples/tiny_cnn"
out="$build/examples/tiny_cnn"
mkdir -p "$out"
echo
echo "\$ tessel-compile examples/tiny_cnn/model.onnx -o $out/model.so --report=$out/report.json"
"$build/bin/tessel-compile" "$example/model.onnx" -o "$out/model.so" --report="$out/report.json"
echo "\$ tessel-run $out/model.so --input $example/input.npy --expected $example/expected.npy --rtol 1e-4 --atol 1e-5"
"$build/bin/tessel-run" "$out/model.so" --input "$example/input.npy" \
  --expected "$example/expected.npy" --rtol 1e-4 --atol 1e-5 --output-dir "$out/outputs"
echo "quickstart: the compiled model matches onnxruntime; outputs in $out/outputs"
