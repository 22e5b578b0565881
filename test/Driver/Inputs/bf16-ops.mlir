// bf16 arithmetic, math and casts from several types: each would otherwise
// leave a call to __truncsfbf2 or __truncdfbf2, which GCC 12's libgcc lacks.
module attributes {tessel.model_name = "bf16"} {
  func.func @main(%h: tensor<4xbf16> {tessel.name = "h"}, %i: tensor<4xi32> {tessel.name = "i"}, %d: tensor<4xf64> {tessel.name = "d"}) -> (tensor<4xbf16> {tessel.name = "y"}) attributes {tessel.entry} {
    %0 = tessel.add %h, %h : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
    %1 = tessel.erf %0 : tensor<4xbf16>
    %2 = tessel.cast %i to bf16 : tensor<4xi32> -> tensor<4xbf16>
    %3 = tessel.cast %d to bf16 : tensor<4xf64> -> tensor<4xbf16>
    %4 = tessel.max %1, %2 : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
    %5 = tessel.mod %4, %3 {fmod} : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
    return %5 : tensor<4xbf16>
  }
}
