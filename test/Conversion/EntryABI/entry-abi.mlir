// RUN: tessel-opt %s --tessel-entry-abi --split-input-file | FileCheck %s
// RUN: tessel-opt %s --tessel-entry-abi --eliminate-empty-tensors --split-input-file | FileCheck %s --check-prefix=ELIM

// The entry function (tensors in, tensors out) becomes @tessel_model_main
// taking one memref per input then per output: inputs enter through
// read-only to_tensor, results leave through materialize_in_destination.
// The module records the signature; unnamed values get input<i>/output<i>.

// CHECK: module attributes {tessel.model_name = "mlp", tessel.signature = {inputs = [{name = "x", type = tensor<2x4xf32>}, {name = "input1", type = tensor<4xf32>}], name = "mlp", outputs = [{name = "out", type = tensor<2x4xf32>}, {name = "output1", type = tensor<2x4xf32>}]}}
// CHECK-NOT: func.func @main
// CHECK-LABEL: func.func @tessel_model_main
// CHECK-SAME: (%[[X:.+]]: memref<2x4xf32>, %[[Y:.+]]: memref<4xf32>, %[[OUT0:.+]]: memref<2x4xf32>, %[[OUT1:.+]]: memref<2x4xf32>) {
// CHECK-NEXT: %[[XT:.+]] = bufferization.to_tensor %[[X]] restrict : memref<2x4xf32> to tensor<2x4xf32>
// CHECK-NEXT: %[[YT:.+]] = bufferization.to_tensor %[[Y]] restrict : memref<4xf32> to tensor<4xf32>
// CHECK-NEXT: %[[SUM:.+]] = tessel.add %[[XT]], %[[YT]]
// CHECK-NEXT: %[[RELU:.+]] = tessel.relu %[[SUM]]
// CHECK-NEXT: bufferization.materialize_in_destination %[[SUM]] in restrict writable %[[OUT0]] : (tensor<2x4xf32>, memref<2x4xf32>) -> ()
// CHECK-NEXT: bufferization.materialize_in_destination %[[RELU]] in restrict writable %[[OUT1]] : (tensor<2x4xf32>, memref<2x4xf32>) -> ()
// CHECK-NEXT: return{{$}}
// Other functions are left alone.
// CHECK-LABEL: func.func @helper(%{{.+}}: tensor<2xf32>) -> tensor<2xf32>
module attributes {tessel.model_name = "mlp"} {
  func.func @main(%x: tensor<2x4xf32> {tessel.name = "x"}, %y: tensor<4xf32>) -> (tensor<2x4xf32> {tessel.name = "out"}, tensor<2x4xf32>) attributes {tessel.entry} {
    %0 = tessel.add %x, %y : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    %1 = tessel.relu %0 : tensor<2x4xf32>
    return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  func.func @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}

// -----

// Without tessel.model_name the signature takes the function's name; an
// input returned as is is copied into the output buffer.
// CHECK: tessel.signature = {inputs = [{name = "input0", type = tensor<3xi64>}], name = "forward", outputs = [{name = "output0", type = tensor<3xi64>}]}
// CHECK-LABEL: func.func @tessel_model_main
// CHECK-SAME: (%[[IN:.+]]: memref<3xi64>, %[[OUT:.+]]: memref<3xi64>)
// CHECK-NEXT: %[[T:.+]] = bufferization.to_tensor %[[IN]] restrict
// CHECK-NEXT: bufferization.materialize_in_destination %[[T]] in restrict writable %[[OUT]]
func.func @forward(%x: tensor<3xi64>) -> tensor<3xi64> attributes {tessel.entry} {
  return %x : tensor<3xi64>
}

// -----

// Tensors without elements have memref<0xT> buffers (a zero extent before
// other dimensions has no bare-pointer form): the input is a tensor.empty,
// and nothing is written to the output.
// CHECK-LABEL: func.func @tessel_model_main
// CHECK-SAME: (%{{.+}}: memref<0xi64>, %{{.+}}: memref<i64>, %{{.+}}: memref<0xi64>) {
// CHECK-NEXT: %[[E:.+]] = tensor.empty() : tensor<3x0x5xi64>
// CHECK-NEXT: bufferization.to_tensor
// CHECK-NEXT: tessel.trilu %[[E]]
// CHECK-NEXT: return{{$}}
module attributes {tessel.model_name = "empty"} {
  func.func @main(%x: tensor<3x0x5xi64> {tessel.name = "x"}, %k: tensor<i64> {tessel.name = "k"}) -> (tensor<3x0x5xi64> {tessel.name = "y"}) attributes {tessel.entry} {
    %0 = tessel.trilu %x, %k {upper = false} : (tensor<3x0x5xi64>, tensor<i64>) -> tensor<3x0x5xi64>
    return %0 : tensor<3x0x5xi64>
  }
}

// -----

// A result that is a reshape of another tensor is written un-reshaped into
// its buffer viewed the other way (the views built first in the body), so
// that empty-tensor elimination can make the producer write the caller's
// buffer in place (it follows no reshapes): a copy of the whole output
// otherwise. Reshapes in a row are peeled in turn.
// CHECK-LABEL: func.func @tessel_model_main
// CHECK-SAME: (%[[IN:.+]]: memref<2x3x4xf32>, %[[OUT:.+]]: memref<1x6x4xf32>, %[[FLAT:.+]]: memref<24xf32>)
// CHECK-NEXT: %[[OUTV:.+]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1], [2]] : memref<1x6x4xf32> into memref<6x4xf32>
// CHECK-NEXT: %[[FLAT3:.+]] = memref.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [1, 6, 4] : memref<24xf32> into memref<1x6x4xf32>
// CHECK-NEXT: %[[FLATV:.+]] = memref.collapse_shape %[[FLAT3]] {{\[\[}}0, 1], [2]] : memref<1x6x4xf32> into memref<6x4xf32>
// CHECK-NEXT: %[[T:.+]] = bufferization.to_tensor %[[IN]] restrict
// CHECK-NEXT: %[[C:.+]] = tensor.collapse_shape %[[T]]
// CHECK-NEXT: %[[R:.+]] = tessel.relu %[[C]] : tensor<6x4xf32>
// CHECK-NEXT: %[[E:.+]] = tensor.expand_shape %[[R]]
// CHECK-NEXT: %[[F:.+]] = tensor.collapse_shape %[[E]]
// CHECK-NEXT: bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUTV]] : (tensor<6x4xf32>, memref<6x4xf32>) -> ()
// CHECK-NEXT: bufferization.materialize_in_destination %[[R]] in restrict writable %[[FLATV]] : (tensor<6x4xf32>, memref<6x4xf32>) -> ()
// CHECK-NEXT: return{{$}}
module attributes {tessel.model_name = "reshaped"} {
  func.func @main(%x: tensor<2x3x4xf32> {tessel.name = "x"}) -> (tensor<1x6x4xf32> {tessel.name = "y"}, tensor<24xf32> {tessel.name = "flat"}) attributes {tessel.entry} {
    %0 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
    %1 = tessel.relu %0 : tensor<6x4xf32>
    %2 = tensor.expand_shape %1 [[0, 1], [2]] output_shape [1, 6, 4] : tensor<6x4xf32> into tensor<1x6x4xf32>
    %3 = tensor.collapse_shape %2 [[0, 1, 2]] : tensor<1x6x4xf32> into tensor<24xf32>
    return %2, %3 : tensor<1x6x4xf32>, tensor<24xf32>
  }
}

// -----

// The kernel's init is a reshaped tensor.empty (as the vectorizers make
// it): the pass folds the reshape into the empty, and empty-tensor
// elimination then has the fill write the caller's buffer, viewed 6x4
// (the empties left dead go with the next canonicalization).
// CHECK-LABEL: func.func @tessel_model_main
// CHECK-SAME: (%[[OUT:.+]]: memref<1x6x4xf32>)
// CHECK-NEXT: %[[OUTV:.+]] = memref.collapse_shape %[[OUT]]
// CHECK: %[[E:.+]] = tensor.empty() : tensor<6x4xf32>
// CHECK-NEXT: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<6x4xf32>)
// CHECK: bufferization.materialize_in_destination %[[F]] in restrict writable %[[OUTV]]
// ELIM: tessel.model_name = "filled"
// ELIM-NEXT: func.func @tessel_model_main
// ELIM-SAME: (%[[OUT:.+]]: memref<1x6x4xf32>)
// ELIM-NEXT: %[[OUTV:.+]] = memref.collapse_shape %[[OUT]]
// ELIM: %[[T:.+]] = bufferization.to_tensor %[[OUTV]]
// ELIM-NEXT: tensor.empty
// ELIM-NEXT: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[T]] : tensor<6x4xf32>)
module attributes {tessel.model_name = "filled"} {
  func.func @main() -> (tensor<1x6x4xf32> {tessel.name = "y"}) attributes {tessel.entry} {
    %cst = arith.constant 1.0 : f32
    %e = tensor.empty() : tensor<1x6x4xf32>
    %c = tensor.collapse_shape %e [[0, 1], [2]] : tensor<1x6x4xf32> into tensor<6x4xf32>
    %f = linalg.fill ins(%cst : f32) outs(%c : tensor<6x4xf32>) -> tensor<6x4xf32>
    %x = tensor.expand_shape %f [[0, 1], [2]] output_shape [1, 6, 4] : tensor<6x4xf32> into tensor<1x6x4xf32>
    return %x : tensor<1x6x4xf32>
  }
}
