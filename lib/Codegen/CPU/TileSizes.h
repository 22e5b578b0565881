//===- TileSizes.h - Choosing tile sizes that divide loops ------*- C++ -*-===//
//
// Internal to lib/Codegen/CPU. The code generators use tiles that divide
// their loops exactly (no padding or masking yet).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_TILESIZES_H
#define TESSEL_LIB_CODEGEN_CPU_TILESIZES_H

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <cstdint>

namespace mlir::tessel {

/// The largest divisor of `size` that is at most `limit`, preferring the
/// candidates in `preferred` (in order) when they divide it and fit the
/// limit. At least 1.
inline int64_t pickDivisor(int64_t size, llvm::ArrayRef<int64_t> preferred,
                           int64_t limit) {
  for (int64_t candidate : preferred)
    if (candidate <= limit && candidate <= size && size % candidate == 0)
      return candidate;
  for (int64_t tile = std::min(size, limit); tile > 1; --tile)
    if (size % tile == 0)
      return tile;
  return 1;
}

} // namespace mlir::tessel

#endif // TESSEL_LIB_CODEGEN_CPU_TILESIZES_H
