// RUN: tessel-opt %s --tessel-bf16-memory-as-integers | FileCheck %s

// Loads and stores of bf16 vectors move i16 lanes; other types are left
// alone.
// CHECK-LABEL: llvm.func @copy
// CHECK:         %[[I:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> vector<9xi16>
// CHECK:         %[[V:.*]] = llvm.bitcast %[[I]] : vector<9xi16> to vector<9xbf16>
// CHECK:         %[[J:.*]] = llvm.bitcast %[[V]] : vector<9xbf16> to vector<9xi16>
// CHECK:         llvm.store %[[J]], %{{.*}} {alignment = 2 : i64} : vector<9xi16>, !llvm.ptr
// CHECK:         %[[F:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<4xf32>
// CHECK:         llvm.store %[[F]], %{{.*}} : vector<4xf32>, !llvm.ptr
llvm.func @copy(%p: !llvm.ptr, %q: !llvm.ptr) {
  %v = llvm.load %p {alignment = 2 : i64} : !llvm.ptr -> vector<9xbf16>
  llvm.store %v, %q {alignment = 2 : i64} : vector<9xbf16>, !llvm.ptr
  %f = llvm.load %p : !llvm.ptr -> vector<4xf32>
  llvm.store %f, %q : vector<4xf32>, !llvm.ptr
  llvm.return
}
