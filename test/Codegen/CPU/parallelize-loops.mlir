// RUN: tessel-opt %s --split-input-file --tessel-parallelize-loops | FileCheck %s

// The outermost marked loop of the entry becomes a call of the runtime's
// parallel_for over its 4 iterations; its body, outlined, runs iterations
// [begin, end). The buffers it uses travel as memref descriptors in a stack
// struct, the index as an i64; constants are cloned. The services come
// from the thread-local slot the artifact's entry point fills. A marked
// loop inside it runs sequentially (its mark dropped).

// CHECK:       llvm.mlir.global internal thread_local @tessel_services() {{.*}} : !llvm.ptr
// CHECK-LABEL: func.func @tessel_model_main
// CHECK-NOT:     scf.for
// CHECK:         %[[CTX:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i64, struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>)>
// CHECK:         llvm.store
// CHECK:         %[[SLOT:.*]] = llvm.mlir.addressof @tessel_services : !llvm.ptr
// CHECK:         %[[SERVICES:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[BODY:.*]] = constant @tessel_parallel_body_0 : (!llvm.ptr, i64, i64) -> ()
// CHECK:         %[[FN:.*]] = builtin.unrealized_conversion_cast %[[BODY]]
// CHECK:         %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK:         llvm.call %{{.*}}(%{{.*}}, %{{.*}}, %[[FOUR]], %{{.*}}, %[[FN]], %[[CTX]]) : !llvm.ptr, (!llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT:     tessel.parallel
// CHECK-LABEL: func.func private @tessel_parallel_body_0
// CHECK-SAME:    (%[[C:.*]]: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// CHECK:         llvm.load {{.*}} -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK:         builtin.unrealized_conversion_cast {{.*}} to memref<64x16xf32>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-NOT:     tessel.parallel
func.func @tessel_model_main(%in: memref<64x16xf32>, %out: memref<64x16xf32>, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %c16 {
    scf.for %j = %c0 to %c16 step %c1 {
      %r = arith.addi %i, %j : index
      %s = arith.addi %r, %k : index
      %v = vector.transfer_read %in[%r, %c0], %pad {in_bounds = [true]} : memref<64x16xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%r, %c0] {in_bounds = [true]} : vector<16xf32>, memref<64x16xf32>
    } {tessel.parallel}
  } {tessel.parallel}
  return
}

// -----

// Left sequential: a single-iteration loop, and marked loops outside the
// entry function (the marks are dropped).

// CHECK-LABEL: func.func @tessel_model_main
// CHECK:         scf.for
// CHECK-NOT:     llvm.call
// CHECK-NOT:     tessel.parallel
// CHECK-LABEL: func.func @other
// CHECK:         scf.for
// CHECK-NOT:     tessel.parallel
func.func @tessel_model_main(%out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c16 step %c16 {
    vector.transfer_write %v, %out[%i] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  } {tessel.parallel}
  return
}
func.func @other(%out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c32 step %c16 {
    vector.transfer_write %v, %out[%i] {in_bounds = [true]} : vector<16xf32>, memref<32xf32>
  } {tessel.parallel}
  return
}

// -----

// A body is named after the model nodes its ops come from (NameLocs, in
// the order they first appear, the loop's own location last), joined by
// '+'; characters outside printable ASCII, quotes and backslashes become
// '_'. Profilers and debuggers show the name.

// CHECK-LABEL: func.func @tessel_model_main
// CHECK:         constant @"tessel_parallel_body_0:/block/Conv+/block/Re_lu+/block/Clip"
// CHECK-LABEL: func.func private @"tessel_parallel_body_0:/block/Conv+/block/Re_lu+/block/Clip"
func.func @tessel_model_main(%in: memref<64x16xf32>, %out: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %c16 {
    %v = vector.transfer_read %in[%i, %c0], %pad {in_bounds = [true]} : memref<64x16xf32>, vector<16xf32> loc(fused<"Conv">["/block/Conv"])
    %w = arith.addf %v, %v : vector<16xf32> loc("/block/Re\22lu")
    %x = arith.mulf %w, %v : vector<16xf32> loc(fused["/block/Conv", "/block/Re\22lu"])
    vector.transfer_write %x, %out[%i, %c0] {in_bounds = [true]} : vector<16xf32>, memref<64x16xf32>
  } {tessel.parallel} loc("/block/Clip")
  return
}
