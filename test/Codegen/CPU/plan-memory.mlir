// RUN: tessel-opt %s --split-input-file --tessel-plan-memory | FileCheck %s

// Three 4 KiB intermediates: %a dies when %c is allocated, so %c reuses
// its bytes; %b overlaps both. The workspace (8 KiB) becomes the entry's
// last argument and its size a module attribute.

// CHECK-LABEL: module attributes {tessel.workspace_size = 8192 : i64}
// CHECK:       func.func @tessel_model_main(%[[IN:.*]]: memref<1024xf32>, %[[OUT:.*]]: memref<1024xf32>, %[[WS:.*]]: memref<8192xi8>)
// CHECK-NOT:     memref.alloc
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C4096:.*]] = arith.constant 4096 : index
// CHECK:         %[[A:.*]] = memref.view %[[WS]][%[[C0]]][] : memref<8192xi8> to memref<1024xf32>
// CHECK:         %[[B:.*]] = memref.view %[[WS]][%[[C4096]]][] : memref<8192xi8> to memref<1024xf32>
// CHECK:         %[[C:.*]] = memref.view %[[WS]][%[[C0]]][] : memref<8192xi8> to memref<1024xf32>
module {
  func.func @tessel_model_main(%in: memref<1024xf32>, %out: memref<1024xf32>) {
    %a = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
    memref.copy %in, %a : memref<1024xf32> to memref<1024xf32>
    %b = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
    memref.copy %a, %b : memref<1024xf32> to memref<1024xf32>
    %c = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
    memref.copy %b, %c : memref<1024xf32> to memref<1024xf32>
    memref.copy %c, %out : memref<1024xf32> to memref<1024xf32>
    return
  }
}

// -----

// A buffer used through a view inside a loop lives until the loop ends;
// a buffer that escapes through a call keeps its allocation, and so does
// one with a dynamic shape.

// CHECK-LABEL: module attributes {tessel.workspace_size = 64 : i64}
// CHECK:       func.func @tessel_model_main(%{{.*}}: memref<8xf32>, %{{.*}}: index, %[[WS:.*]]: memref<64xi8>)
// CHECK:         memref.view %[[WS]]{{.*}} to memref<4x4xf32>
// CHECK:         memref.alloc() : memref<2xf32>
// CHECK:         memref.alloc(%{{.*}}) : memref<?xf32>
module {
  func.func private @sink(memref<2xf32>)
  func.func @tessel_model_main(%out: memref<8xf32>, %n: index) {
    %a = memref.alloc() : memref<4x4xf32>
    %flat = memref.collapse_shape %a [[0, 1]] : memref<4x4xf32> into memref<16xf32>
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %c8 step %c1 {
      %v = memref.load %flat[%i] : memref<16xf32>
      memref.store %v, %out[%i] : memref<8xf32>
    }
    %e = memref.alloc() : memref<2xf32>
    func.call @sink(%e) : (memref<2xf32>) -> ()
    %d = memref.alloc(%n) : memref<?xf32>
    return
  }
}

// -----

// A static buffer allocated inside a loop that lives within one iteration
// (a head's scores in tessel-fuse-attention's loop) moves before the loop
// and joins the workspace: one buffer for all iterations, no malloc per
// iteration. In a loop marked `tessel.parallel` (its iterations run at the
// same time) each iteration gets its own 64-byte slice of one 4 x 64-byte
// buffer, which joins the workspace. One an iteration yields stays (it
// outlives the iteration).

// CHECK-LABEL: module attributes {tessel.workspace_size = 256 : i64}
// CHECK:       func.func @tessel_model_main(%[[OUT:.*]]: memref<4x8xf32>, %[[WS:.*]]: memref<256xi8>)
// CHECK:         %[[HEAD:.*]] = memref.view %[[WS]]{{.*}} to memref<8xf32>
// CHECK:         scf.for
// CHECK-NOT:       memref.alloc
// CHECK:           linalg.fill {{.*}} outs(%[[HEAD]] : memref<8xf32>)
// CHECK:           memref.copy %[[HEAD]]
// CHECK:         } {test.serial}
// CHECK:         %[[SLICES:.*]] = memref.view %[[WS]]{{.*}} : memref<256xi8> to memref<256xi8>
// CHECK:         scf.for %[[I:.*]] = %[[LB:.*]] to
// CHECK-NOT:       memref.alloc
// CHECK:           %[[D:.*]] = arith.subi %[[I]], %[[LB]]
// CHECK:           %[[N:.*]] = arith.divui %[[D]]
// CHECK:           %[[BASE:.*]] = arith.muli %[[N]], %[[C64:.*]] : index
// CHECK:           %[[AT:.*]] = arith.addi %[[BASE]]
// CHECK:           %[[SLICE:.*]] = memref.view %[[SLICES]][%[[AT]]][] : memref<256xi8> to memref<8xf32>
// CHECK:           linalg.fill {{.*}} outs(%[[SLICE]] : memref<8xf32>)
// CHECK:         } {tessel.parallel}
// CHECK:         scf.for
// CHECK:           memref.alloc() : memref<8xf32>
// CHECK:           scf.yield
module {
  func.func @tessel_model_main(%out: memref<4x8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c4 step %c1 {
      %head = memref.alloc() : memref<8xf32>
      linalg.fill ins(%zero : f32) outs(%head : memref<8xf32>)
      %row = memref.subview %out[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
      memref.copy %head, %row : memref<8xf32> to memref<8xf32, strided<[1], offset: ?>>
    } {test.serial}
    scf.for %i = %c0 to %c4 step %c1 {
      %head = memref.alloc() : memref<8xf32>
      linalg.fill ins(%zero : f32) outs(%head : memref<8xf32>)
      %row = memref.subview %out[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
      memref.copy %head, %row : memref<8xf32> to memref<8xf32, strided<[1], offset: ?>>
    } {tessel.parallel}
    %init = memref.alloc() : memref<8xf32>
    %last = scf.for %i = %c0 to %c4 step %c1 iter_args(%prev = %init) -> (memref<8xf32>) {
      %head = memref.alloc() : memref<8xf32>
      memref.copy %prev, %head : memref<8xf32> to memref<8xf32>
      scf.yield %head : memref<8xf32>
    }
    %row = memref.subview %out[0, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1]>>
    memref.copy %last, %row : memref<8xf32> to memref<8xf32, strided<[1]>>
    return
  }
}

// -----

// A parallel loop whose slices would take more than 64 MiB (3 x 32 MiB)
// keeps its allocation: buffers that large cost little to allocate next to
// the work on them.
// CHECK-LABEL: func.func @tessel_model_main(%{{.*}}: memref<3xf32>)
// CHECK:         scf.for
// CHECK:           memref.alloc() : memref<8388608xf32>
// CHECK:         } {tessel.parallel}
module {
  func.func @tessel_model_main(%out: memref<3xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c3 step %c1 {
      %big = memref.alloc() : memref<8388608xf32>
      linalg.fill ins(%zero : f32) outs(%big : memref<8388608xf32>)
      %v = memref.load %big[%c0] : memref<8388608xf32>
      memref.store %v, %out[%i] : memref<3xf32>
    } {tessel.parallel}
    return
  }
}

// -----

// A buffer allocated in a sequential loop inside a parallel one (a
// product's tile of i32 sums before its requantization, one per tile): it
// lives within one iteration of the inner loop, so each parallel
// iteration gets a slice (2 x 64 bytes) that its inner iterations reuse.
// So does one in a loop marked parallel inside it: tessel-parallelize-loops
// runs the outer loop (two iterations) on the threads and the inner one on
// the thread that runs each outer iteration (a product's tile loops inside
// a convolution's blocks of gathered rows). The two inner loops' tiles,
// one used after the other, share their bytes in the slice (64 bytes an
// iteration, not 128), as buffers of one block do.
// CHECK-LABEL: module attributes {tessel.workspace_size = 128 : i64}
// CHECK:       func.func @tessel_model_main(%{{.*}}: memref<2x4x16xf32>, %[[WS:.*]]: memref<128xi8>)
// CHECK:         %[[SLICES:.*]] = memref.view %[[WS]]{{.*}} : memref<128xi8> to memref<128xi8>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-NOT:         memref.alloc
// CHECK:             %[[TILE:.*]] = memref.view %[[SLICES]][%[[AT:.*]]][] : memref<128xi8> to memref<16xf32>
// CHECK:             linalg.fill {{.*}} outs(%[[TILE]] : memref<16xf32>)
// CHECK:           }
// CHECK:           scf.for
// CHECK-NOT:         memref.alloc
// CHECK:             %[[TILE2:.*]] = memref.view %[[SLICES]][%[[AT2:.*]]][] : memref<128xi8> to memref<16xf32>
// CHECK:             linalg.fill {{.*}} outs(%[[TILE2]] : memref<16xf32>)
// CHECK:           } {tessel.parallel}
// CHECK:         } {tessel.parallel}
module {
  func.func @tessel_model_main(%out: memref<2x4x16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %tile = memref.alloc() : memref<16xf32>
        linalg.fill ins(%zero : f32) outs(%tile : memref<16xf32>)
        %row = memref.subview %out[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
        memref.copy %tile, %row : memref<16xf32> to memref<16xf32, strided<[1], offset: ?>>
      }
      scf.for %j = %c0 to %c4 step %c1 {
        %tile = memref.alloc() : memref<16xf32>
        linalg.fill ins(%zero : f32) outs(%tile : memref<16xf32>)
        %row = memref.subview %out[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
        memref.copy %tile, %row : memref<16xf32> to memref<16xf32, strided<[1], offset: ?>>
      } {tessel.parallel}
    } {tessel.parallel}
    return
  }
}

// -----

// With one iteration the outer loop may be folded away before
// tessel-parallelize-loops, leaving the inner marked loop outermost (its
// iterations then run at the same time): an allocation in it keeps its
// own buffer.
// CHECK-LABEL: module attributes {tessel.workspace_size = 64 : i64}
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             memref.alloc() : memref<16xf32>
// CHECK:           } {tessel.parallel}
// CHECK:         } {tessel.parallel}
module {
  func.func @tessel_model_main(%out: memref<1x4x16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c1 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %tile = memref.alloc() : memref<16xf32>
        linalg.fill ins(%zero : f32) outs(%tile : memref<16xf32>)
        %row = memref.subview %out[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
        memref.copy %tile, %row : memref<16xf32> to memref<16xf32, strided<[1], offset: ?>>
      } {tessel.parallel}
      %tile2 = memref.alloc() : memref<16xf32>
      linalg.fill ins(%zero : f32) outs(%tile2 : memref<16xf32>)
      %row2 = memref.subview %out[%i, 0, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      memref.copy %tile2, %row2 : memref<16xf32> to memref<16xf32, strided<[1], offset: ?>>
    } {tessel.parallel}
    return
  }
}

// -----

// The buffers of one iteration (tessel-sample-loops' loop over a batch's
// samples, whose body is one sample's layers) share bytes as the buffers
// of the top-level block do: each is in use from its first to its last
// use in the body, so %c reuses %a's bytes (%a is dead once %b is
// written), and the workspace holds two buffers, not three.

// CHECK-LABEL: module attributes {tessel.workspace_size = 8192 : i64}
// CHECK:       func.func @tessel_model_main(%{{.*}}: memref<4x1024xf32>, %{{.*}}: memref<4x1024xf32>, %[[WS:.*]]: memref<8192xi8>)
// CHECK:         %[[A:.*]] = memref.view %[[WS]][%[[AT:.*]]][] : memref<8192xi8> to memref<1024xf32>
// CHECK:         %[[B:.*]] = memref.view %[[WS]][%[[BT:.*]]][] : memref<8192xi8> to memref<1024xf32>
// CHECK:         %[[C:.*]] = memref.view %[[WS]][%[[AT]]][] : memref<8192xi8> to memref<1024xf32>
// CHECK:         scf.for
// CHECK-NOT:       memref.alloc
// CHECK:           memref.copy %{{.*}}, %[[A]]
// CHECK:           memref.copy %[[A]], %[[B]]
// CHECK:           memref.copy %[[B]], %[[C]]
module {
  func.func @tessel_model_main(%in: memref<4x1024xf32>, %out: memref<4x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %row = memref.subview %in[%i, 0] [1, 1024] [1, 1] : memref<4x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
      %a = memref.alloc() : memref<1024xf32>
      memref.copy %row, %a : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
      %b = memref.alloc() : memref<1024xf32>
      memref.copy %a, %b : memref<1024xf32> to memref<1024xf32>
      %c = memref.alloc() : memref<1024xf32>
      memref.copy %b, %c : memref<1024xf32> to memref<1024xf32>
      %dst = memref.subview %out[%i, 0] [1, 1024] [1, 1] : memref<4x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
      memref.copy %c, %dst : memref<1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
    }
    return
  }
}

// -----

// A buffer of the outer body that an inner loop reads and writes (%acc,
// summed over the inner iterations in one op) is in use for the whole
// inner loop: it never shares bytes with %t, a buffer of one inner
// iteration, though %t's uses all come before %acc's in the inner body.

// CHECK-LABEL: module attributes {tessel.workspace_size = 8192 : i64}
// CHECK:       func.func @tessel_model_main(%{{.*}}: memref<2x1024xf32>, %{{.*}}: memref<1024xf32>, %[[WS:.*]]: memref<8192xi8>)
// CHECK-DAG:     memref.view %[[WS]][%[[C0:.*]]][] : memref<8192xi8> to memref<1024xf32>
// CHECK-DAG:     %[[C0]] = arith.constant 0 : index
// CHECK-DAG:     %[[C4096:.*]] = arith.constant 4096 : index
// CHECK-DAG:     memref.view %[[WS]][%[[C4096]]][] : memref<8192xi8> to memref<1024xf32>
#id = affine_map<(d0) -> (d0)>
module {
  func.func @tessel_model_main(%in: memref<2x1024xf32>, %out: memref<1024xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c2 step %c1 {
      %acc = memref.alloc() : memref<1024xf32>
      scf.for %j = %c0 to %c2 step %c1 {
        %row = memref.subview %in[%j, 0] [1, 1024] [1, 1] : memref<2x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
        %t = memref.alloc() : memref<1024xf32>
        memref.copy %row, %t : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
        memref.copy %t, %out : memref<1024xf32> to memref<1024xf32>
        linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
            ins(%out : memref<1024xf32>) outs(%acc : memref<1024xf32>) {
        ^bb0(%x: f32, %s: f32):
          %y = arith.addf %x, %s : f32
          linalg.yield %y : f32
        }
      }
    }
    return
  }
}
