// A tessel op that verifies but that no lowering handles: softmax of a
// scalar (the importer refuses such nodes; hand-written IR can hold one).
module attributes {tessel.model_name = "scalar"} {
  func.func @main(%x: tensor<f32> {tessel.name = "x"}) -> (tensor<f32> {tessel.name = "y"}) attributes {tessel.entry} {
    %0 = tessel.softmax %x {axis = 0} : tensor<f32> loc(fused<"Softmax">["sm"])
    return %0 : tensor<f32>
  }
}
