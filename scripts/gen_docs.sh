#!/usr/bin/env bash
# Regenerates the dialect and pass references in docs/reference/ from the
# TableGen sources (the same text `ninja mlir-doc` writes into the build tree).
# test/Dialect/Tessel/docs-up-to-date.test checks the same list.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tblgen=/usr/lib/llvm-22/bin/mlir-tblgen
inc=(-I "$root/include" -I /usr/lib/llvm-22/include)
out="$root/docs/reference"
mkdir -p "$out"
"$tblgen" -gen-op-doc -dialect=tessel "${inc[@]}" \
  "$root/include/tessel/Dialect/Tessel/IR/TesselOps.td" -o "$out/TesselOps.md"
pass_docs=(
  "Dialect/Tessel/Transforms:TesselTransformsPasses"
  "Conversion:TesselConversionPasses"
  "Linalg/Transforms:TesselLinalgTransformsPasses"
  "Codegen/CPU:TesselCodegenCPUPasses"
)
for entry in "${pass_docs[@]}"; do
  "$tblgen" -gen-pass-doc "${inc[@]}" \
    "$root/include/tessel/${entry%%:*}/Passes.td" -o "$out/${entry##*:}.md"
  echo "wrote $out/${entry##*:}.md"
done
echo "wrote $out/TesselOps.md"
