//===- VectorTypes.h - What the CPU vectorizers vectorize -------*- C++ -*-===//
//
// The element types the vectorizers give vectors: f32, f16 and bf16 (a
// model's own 16-bit floats, and --precision's activations: they compute
// in f32), and 8- to 64-bit integers (a quantized model's requantization
// writes i8, its products' epilogues read i32). i1 vectors would be stored
// bit-packed into byte-per-element buffers, and f64 is rare in the hot
// paths: ops on those stay scalar loops. So do integer divisions and
// remainders: the padding lanes of a partial vector would divide by zero.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_VECTORTYPES_H
#define TESSEL_LIB_CODEGEN_CPU_VECTORTYPES_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

namespace mlir::tessel::cpu {

/// Whether every value `op` reads and writes has a vector element type and
/// its body divides no integers.
bool hasVectorTypes(linalg::LinalgOp op);

/// Whether `type` is a float type the vectorizers take: f32, f16, bf16.
bool isVectorFloat(Type type);

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_VECTORTYPES_H
