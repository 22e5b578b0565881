// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// A constant cumsum axis is a reduction dimension walking the axis; the
// walk counts where it is before the element (exclusive: strictly).
// CHECK-DAG: #[[$WALK:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$POINT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @cumsum
// CHECK: linalg.generic {indexing_maps = [#[[$WALK]], #[[$POINT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: %[[AT:.+]] = linalg.index 1
// CHECK: %[[W:.+]] = linalg.index 2
// CHECK: %[[COUNTS:.+]] = arith.cmpi ult, %[[W]], %[[AT]]
// CHECK: %[[SUM:.+]] = arith.addf
// CHECK: arith.select %[[COUNTS]], %[[SUM]]
func.func @cumsum(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = tessel.constant dense<-1> : tensor<i64>
  %0 = tessel.cumsum %x, %a {exclusive} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// An axis known only at run time is read, clamped, and walked by an scf.for
// (reverse: from the element to the end).
// CHECK-LABEL: func.func @cumsum_dynamic
// CHECK: linalg.generic
// CHECK: tensor.extract %{{.+}}[] : tensor<i32>
// CHECK: scf.for
// CHECK: tensor.extract %{{.+}} : tensor<2x3xf32>
// CHECK: arith.cmpi uge
// CHECK: scf.yield
func.func @cumsum_dynamic(%x: tensor<2x3xf32>, %a: tensor<i32>) -> tensor<2x3xf32> {
  %0 = tessel.cumsum %x, %a {reverse} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// TopK ranks every element along the axis, then picks rank j for slot j.
// CHECK-LABEL: func.func @top_k
// CHECK: %[[RANKS:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<3x4xf32>, tensor<3x4xf32>) outs(%{{.+}} : tensor<3x4xi64>)
// CHECK: arith.cmpf ogt
// CHECK: arith.extui
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[RANKS]] : tensor<3x4xf32>, tensor<3x4xi64>) outs(%{{.+}}, %{{.+}} : tensor<3x2xf32>, tensor<3x2xi64>)
// CHECK: arith.cmpi eq
func.func @top_k(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %0:2 = tessel.top_k %x {axis = 1 : i64, k = 2 : i64, largest = true} : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %0#0, %0#1 : tensor<3x2xf32>, tensor<3x2xi64>
}

// -----

// Scatters are loops over the updates carrying the result tensor.
// CHECK-LABEL: func.func @scatter_elements
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>
// CHECK: scf.for %[[I:[^ ]+]] = {{.+}} iter_args(%{{.+}} = %[[X]])
// CHECK: scf.for %[[J:[^ ]+]] = {{.+}} iter_args(%[[ACC:[^ ]+]] = %{{.+}})
// CHECK: arith.minsi
// CHECK: %[[OLD:.+]] = tensor.extract %[[ACC]][%[[I]], %[[COL:.+]]]
// CHECK: %[[NEW:.+]] = arith.addf %[[OLD]]
// CHECK: tensor.insert %[[NEW]] into %[[ACC]][%[[I]], %[[COL]]]
func.func @scatter_elements(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) -> tensor<2x3xf32> {
  %0 = tessel.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = #tessel.scatter_reduction<add>} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @scatter_nd
// CHECK: scf.for %[[I:[^ ]+]] =
// CHECK: scf.for %[[J:[^ ]+]] = {{.+}} iter_args(%[[ACC:[^ ]+]] = %{{.+}})
// CHECK: tensor.extract %{{.+}}[%[[I]], %{{.+}}] : tensor<2x1xi64>
// CHECK: %[[ROW:.+]] = arith.minsi
// CHECK: %[[U:.+]] = tensor.extract %{{.+}}[%[[I]], %[[J]]] : tensor<2x3xf32>
// CHECK: tensor.insert %[[U]] into %[[ACC]][%[[ROW]], %[[J]]]
func.func @scatter_nd(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = tessel.scatter_nd %x, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @gather_nd
// CHECK: linalg.generic
// CHECK: %[[B:.+]] = linalg.index 0
// CHECK: %[[T:.+]] = linalg.index 1
// CHECK: tensor.extract %{{.+}}[%[[B]], %{{.+}}] : tensor<2x1xi64>
// CHECK: %[[ROW:.+]] = arith.minsi
// CHECK: tensor.extract %{{.+}}[%[[B]], %[[ROW]], %[[T]]] : tensor<2x3x4xf32>
func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<2x1xi64>) -> tensor<2x4xf32> {
  %0 = tessel.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-DAG: #[[$DROP:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @one_hot
// CHECK: linalg.generic {indexing_maps = [#[[$DROP]], {{.+}}]
// CHECK: %[[I:.+]] = arith.extsi %{{.+}} : i32 to i64
// CHECK: %[[IDX:.+]] = arith.select %{{.+}}, %{{.+}}, %[[I]] : i64
// CHECK: %[[HOT:.+]] = arith.cmpi eq, %[[IDX]]
// CHECK: arith.select %[[HOT]]
func.func @one_hot(%i: tensor<3xi32>, %v: tensor<2xf32>) -> tensor<3x4xf32> {
  %0 = tessel.one_hot %i, %v {axis = 1 : i64, depth = 4 : i64} : (tensor<3xi32>, tensor<2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
