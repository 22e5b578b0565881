//===- BatchOptions.h - tessel-compile's shape options ----------*- C++ -*-===//
//
// --input-shape, and the dynamic batch: --dim-range and --specialize.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DRIVER_BATCHOPTIONS_H
#define TESSEL_LIB_DRIVER_BATCHOPTIONS_H

#include "tessel/Import/ONNX/ImportONNX.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir::tessel {

/// A dynamic batch asked for on the command line.
struct BatchRequest {
  std::string name;           ///< the dimension's symbol, e.g. "N"
  int64_t min = 0, max = 0;   ///< max 0: no dynamic batch
  std::vector<int64_t> sizes; ///< the builds, ascending, the first 1
  /// The batch (>= 2) whose build proves the samples are computed apart;
  /// 0 when every batch in the range is 1.
  int64_t checkBatch = 0;
  bool enabled() const { return max > 0; }
};

/// A padded dimension asked for on the command line: a dimension other
/// than the batch (a sequence), run at any length in [min, max] by padding
/// it to the next length a build has.
struct PaddedRequest {
  std::string name;             ///< the dimension's symbol, e.g. "S"
  int64_t min = 0, max = 0;     ///< max 0: no padded dimension
  std::vector<int64_t> lengths; ///< the builds, ascending, the last max
  bool enabled() const { return max > 0; }
};

/// The most samples a dynamic batch may take.
inline constexpr int64_t kMaxDynamicBatch = int64_t(1) << 20;

/// Parses `NAME=D0xD1x...` (`?` for a dynamic batch, `scalar` for rank 0)
/// into `options.inputShapes`.
LogicalResult parseInputShape(llvm::StringRef spec, ImportOptions &options,
                              std::string &error);

/// Parses --dim-range `NAME=LO..HI` and --specialize `NAME=S1,S2,...`
/// (default: 1, 4 and 8, those within the range); `range` empty: no
/// dynamic batch.
LogicalResult parseBatchRequest(llvm::StringRef range,
                                llvm::ArrayRef<std::string> specialize,
                                BatchRequest &out, std::string &error);

/// Parses every --dim-range `NAME=LO..HI` and --specialize: a range whose
/// name `isBatch` (dimension 0 of an input, or `?`) is the batch
/// (parseBatchRequest); another is a padded dimension, built at the
/// --specialize lengths (default: 8, 12, 16, 24, 32, 48, ... within the
/// range) and at HI. At most one of each.
LogicalResult parseDimRanges(llvm::ArrayRef<std::string> ranges,
                             llvm::ArrayRef<std::string> specialize,
                             llvm::function_ref<bool(llvm::StringRef)> isBatch,
                             BatchRequest &batch, PaddedRequest &padded,
                             std::string &error);

} // namespace mlir::tessel

#endif // TESSEL_LIB_DRIVER_BATCHOPTIONS_H
