// RUN: tessel-opt %s --tessel-cpu-pipeline | FileCheck %s
// RUN: tessel-opt %s --tessel-cpu-pipeline --mlir-print-op-generic \
// RUN:   | FileCheck %s --check-prefix=GENERIC \
// RUN:       --implicit-check-not='{{"(tessel|linalg|tensor|memref|bufferization|arith|math|scf|cf|affine|func|ub)\.}}'

// A small model goes from tessel ops to the LLVM dialect: the entry becomes
// @tessel_model_main taking one bare pointer per input and per output, then
// the workspace holding its intermediates (softmax's rows are larger than
// one vector tile, so they go through memory), and no op of any other
// dialect is left.

// CHECK: tessel.signature = {inputs = [{name = "x", type = tensor<32x64xf32>}], name = "tiny", outputs = [{name = "y", type = tensor<32x48xf32>}]}
// CHECK-SAME: tessel.workspace_size = {{[1-9][0-9]*}} : i64
// CHECK-LABEL: llvm.func @tessel_model_main
// CHECK-SAME: (%{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr) {

// GENERIC: "builtin.module"
// GENERIC: "llvm.func"() <{{{.*}}function_type = !llvm.func<void (ptr, ptr, ptr)>{{.*}}sym_name = "tessel_model_main"
module attributes {tessel.model_name = "tiny"} {
  func.func @main(%x: tensor<32x64xf32> {tessel.name = "x"}) -> (tensor<32x48xf32> {tessel.name = "y"}) attributes {tessel.entry} {
    %w = tessel.constant dense<0.5> : tensor<48x64xf32>
    %b = tessel.constant dense<0.25> : tensor<48xf32>
    %0 = tessel.gemm %x, %w, %b {trans_b = true} : (tensor<32x64xf32>, tensor<48x64xf32>, tensor<48xf32>) -> tensor<32x48xf32>
    %1 = tessel.relu %0 : tensor<32x48xf32>
    %2 = tessel.softmax %1 {axis = 1 : i64} : tensor<32x48xf32>
    return %2 : tensor<32x48xf32>
  }
}
