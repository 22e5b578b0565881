//===- TransposeInRegisters.h - Small transposes in registers ---*- C++ -*-===//
//
// Internal to lib/Codegen/CPU: transposes a few vectors in registers with
// two-source shuffles, so that a tile accumulated along one dimension is
// stored along the other.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_TRANSPOSEINREGISTERS_H
#define TESSEL_LIB_CODEGEN_CPU_TRANSPOSEINREGISTERS_H

#include "mlir/IR/Builders.h"

namespace mlir::tessel::cpu {

/// Transposes `rows` (P vectors of `lanes` values, P <= lanes) into `lanes`
/// vectors of P values: result f holds lane f of every row. The rows are
/// padded to a power of two B with zeros and transposed as lanes / B blocks
/// of B x B at once, by log2(B) rounds of two-source shuffles (each round
/// swaps one bit between the row and the lane index within a block), then
/// each block row is cut out of its vector.
SmallVector<Value> transposeBlocks(OpBuilder &b, Location loc,
                                   ArrayRef<Value> rows, int64_t lanes);

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_TRANSPOSEINREGISTERS_H
