//===- TileSizes.h - Choosing tile sizes that divide loops ------*- C++ -*-===//
//
// Internal to lib/Codegen/CPU. The code generators use tiles that divide
// their loops exactly (no padding or masking yet).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_TILESIZES_H
#define TESSEL_LIB_CODEGEN_CPU_TILESIZES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstdint>
#include <optional>

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

/// The position, among tiled loops built in `order` (loop dimensions) for
/// `tileSizes` (0: no loop) over `ranges`, of the first loop that runs more
/// than once over a dimension `isParallel` accepts, provided every loop up
/// to it is over such a dimension too, or (`pastSequential`) may be over
/// any (the loops before it then run in sequence around it: blocks of a
/// reduction); std::nullopt when there is none.
template <typename IsParallel>
std::optional<unsigned> firstParallelLoop(llvm::ArrayRef<int64_t> order,
                                          llvm::ArrayRef<int64_t> tileSizes,
                                          llvm::ArrayRef<int64_t> ranges,
                                          IsParallel isParallel,
                                          bool pastSequential = false) {
  unsigned position = 0;
  for (int64_t dim : order) {
    if (tileSizes[dim] == 0)
      continue;
    if (!isParallel(dim)) {
      if (!pastSequential)
        return std::nullopt;
      ++position;
      continue;
    }
    if ((ranges[dim] + tileSizes[dim] - 1) / tileSizes[dim] > 1)
      return position;
    ++position;
  }
  return std::nullopt;
}

/// Loops [0, `numLoops`) grouped for collapsing (reassociation indices):
/// `run`, consecutive loops, as one group, every other loop alone.
inline llvm::SmallVector<llvm::SmallVector<int64_t, 2>>
loopGroups(int64_t numLoops, llvm::ArrayRef<int64_t> run) {
  llvm::SmallVector<llvm::SmallVector<int64_t, 2>> groups;
  for (int64_t d = 0; d < numLoops; ++d) {
    if (d == run.front())
      groups.emplace_back(run.begin(), run.end());
    else if (!llvm::is_contained(run, d))
      groups.push_back({d});
  }
  return groups;
}

} // namespace mlir::tessel

#endif // TESSEL_LIB_CODEGEN_CPU_TILESIZES_H
