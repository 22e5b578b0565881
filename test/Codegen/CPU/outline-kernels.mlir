// RUN: tessel-opt %s --split-input-file --tessel-outline-kernels | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s --split-input-file --tessel-outline-kernels --tessel-parallelize-loops | FileCheck %s --check-prefix=PAR --enable-var-scope

// Each top-level loop nest of the entry becomes a call of a kernel
// function. The two nests that differ only in the buffers they touch (an
// unrolled recurrence's steps) share one function; the third, whose
// arithmetic differs, has its own. Constants are cloned into the kernel;
// buffers, weights (memref.get_global) and indices are its arguments, in
// the order the body first uses them, then the loop's bounds. Kernels are named after the nodes
// their ops come from.

// CHECK-LABEL: func.func @tessel_model_main
// CHECK-SAME:    (%[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>, %[[C:.*]]: memref<64xf32>, %[[K:.*]]: index)
// CHECK:         %[[W:.*]] = memref.get_global @weights
// CHECK-NOT:     scf.for
// CHECK:         call @"tessel_kernel_0:step0"(%[[A]], %[[W]], %[[B]]) : (memref<64xf32>, memref<64xf32>, memref<64xf32>) -> ()
// CHECK-NEXT:    call @"tessel_kernel_0:step0"(%[[B]], %[[W]], %[[C]])
// CHECK-NEXT:    call @"tessel_kernel_1:other"(%[[C]], %[[A]], %[[K]]) : (memref<64xf32>, memref<64xf32>, index) -> ()
// CHECK-NEXT:    return
// CHECK:       func.func private @"tessel_kernel_0:step0"(%[[X:.*]]: memref<64xf32>, %[[Y:.*]]: memref<64xf32>, %[[Z:.*]]: memref<64xf32>)
// CHECK-SAME:    attributes {tessel.kernel}
// CHECK-DAG:     arith.constant 0 : index
// CHECK-DAG:     arith.constant 16 : index
// CHECK:         scf.for
// CHECK:           vector.transfer_read %[[X]]
// CHECK:           vector.transfer_read %[[Y]]
// CHECK:           arith.addf
// CHECK:           vector.transfer_write {{.*}}, %[[Z]]
// CHECK:         return
// CHECK:       func.func private @"tessel_kernel_1:other"
// CHECK:         arith.mulf
// CHECK-NOT:   func.func private
memref.global "private" constant @weights : memref<64xf32> = dense<1.0>
func.func @tessel_model_main(%a: memref<64xf32>, %b: memref<64xf32>, %c: memref<64xf32>, %k: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %w = memref.get_global @weights : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c16 {
    %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %y = vector.transfer_read %w[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %s = arith.addf %x, %y : vector<16xf32>
    vector.transfer_write %s, %b[%i] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  } loc("step0")
  scf.for %i = %c0 to %c64 step %c16 {
    %x = vector.transfer_read %b[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %y = vector.transfer_read %w[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %s = arith.addf %x, %y : vector<16xf32>
    vector.transfer_write %s, %c[%i] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  } loc("step1")
  scf.for %i = %c0 to %k step %c16 {
    %x = vector.transfer_read %c[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %s = arith.mulf %x, %x : vector<16xf32>
    vector.transfer_write %s, %a[%i] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  } loc("other")
  return
}

// -----

// A view's static offset is part of its type (the call passes a bare
// pointer): nests on views at different offsets stay apart. A nest that
// uses a memref whose type leaves its layout to run time stays in the
// entry. Loops with results, and loops outside the entry, are not kernels.

// CHECK-LABEL: func.func @tessel_model_main
// CHECK:         call @tessel_kernel_0(
// CHECK:         call @tessel_kernel_1(
// CHECK:         scf.for
// CHECK:           vector.transfer_read %{{.*}} : memref<16xf32, strided<[1], offset: ?>>
// CHECK:         scf.for {{.*}} iter_args
// CHECK-LABEL: func.func @other
// CHECK:         scf.for
// CHECK:       func.func private @tessel_kernel_0(%{{.*}}: memref<16xf32, strided<[1]>>)
// CHECK:       func.func private @tessel_kernel_1(%{{.*}}: memref<16xf32, strided<[1], offset: 16>>)
// CHECK-NOT:   func.func private
func.func @tessel_model_main(%a: memref<64xf32>, %d: memref<16xf32, strided<[1], offset: ?>>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %v0 = memref.subview %a[0] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1]>>
  %v1 = memref.subview %a[16] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: 16>>
  scf.for %i = %c0 to %c16 step %c16 {
    %x = vector.transfer_read %v0[%i], %pad {in_bounds = [true]} : memref<16xf32, strided<[1]>>, vector<16xf32>
    vector.transfer_write %x, %v0[%i] {in_bounds = [true]} : vector<16xf32>, memref<16xf32, strided<[1]>>
  }
  scf.for %i = %c0 to %c16 step %c16 {
    %x = vector.transfer_read %v1[%i], %pad {in_bounds = [true]} : memref<16xf32, strided<[1], offset: 16>>, vector<16xf32>
    vector.transfer_write %x, %v1[%i] {in_bounds = [true]} : vector<16xf32>, memref<16xf32, strided<[1], offset: 16>>
  }
  scf.for %i = %c0 to %c16 step %c16 {
    %x = vector.transfer_read %d[%i], %pad {in_bounds = [true]} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
    vector.transfer_write %x, %d[%i] {in_bounds = [true]} : vector<16xf32>, memref<16xf32, strided<[1], offset: ?>>
  }
  %sum = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %pad) -> (f32) {
    %x = memref.load %a[%i] : memref<64xf32>
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  }
  return %sum : f32
}
func.func @other(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %a[%i] : memref<64xf32>
    memref.store %x, %a[%c0] : memref<64xf32>
  }
  return
}

// -----

// A kernel's outermost marked loop runs on the runtime's parallel_for, as
// the entry's do: the kernel calls it, and its body is outlined in turn.

// CHECK-LABEL: func.func @tessel_model_main
// PAR-LABEL: func.func @tessel_model_main
// PAR:         call @tessel_kernel_0(
// PAR-LABEL: func.func private @tessel_kernel_0
// PAR-SAME:    attributes {tessel.kernel}
// PAR:         constant @tessel_parallel_body_0
// PAR:         llvm.call
// PAR-NOT:     tessel.parallel
// PAR-LABEL: func.func private @tessel_parallel_body_0
// PAR:         scf.for
func.func @tessel_model_main(%in: memref<64x16xf32>, %out: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %c16 {
    %v = vector.transfer_read %in[%i, %c0], %pad {in_bounds = [true]} : memref<64x16xf32>, vector<16xf32>
    vector.transfer_write %v, %out[%i, %c0] {in_bounds = [true]} : vector<16xf32>, memref<64x16xf32>
  } {tessel.parallel}
  return
}
