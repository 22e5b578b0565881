#!/usr/bin/env bash
# Regenerates the dialect and pass references in docs/reference/ from the
# TableGen sources (the same text `ninja mlir-doc` writes into the build tree).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tblgen=/usr/lib/llvm-22/bin/mlir-tblgen
inc=(-I "$root/include" -I /usr/lib/llvm-22/include)
out="$root/docs/reference"
mkdir -p "$out"
"$tblgen" -gen-op-doc -dialect=tessel "${inc[@]}" \
  "$root/include/tessel/Dialect/Tessel/IR/TesselOps.td" -o "$out/TesselOps.md"
"$tblgen" -gen-pass-doc "${inc[@]}" \
  "$root/include/tessel/Conversion/Passes.td" -o "$out/TesselConversionPasses.md"
"$tblgen" -gen-pass-doc "${inc[@]}" \
  "$root/include/tessel/Dialect/Tessel/Transforms/Passes.td" -o "$out/TesselTransformsPasses.md"
echo "wrote $out/TesselOps.md, $out/TesselConversionPasses.md and $out/TesselTransformsPasses.md"
