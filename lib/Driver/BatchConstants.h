//===- BatchConstants.h - Constants that depend on the batch ----*- C++ -*-===//
//
// A dynamic batch's builds compute the same function at different batch
// sizes; a constant that differs between two of them (of the same type)
// was computed from the batch's size (a Shape read as data: x / N), which
// chunks of the batch would get wrong. tessel-verify-sample-independence
// cannot see it: in each build it is a constant.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DRIVER_BATCHCONSTANTS_H
#define TESSEL_LIB_DRIVER_BATCHCONSTANTS_H

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <string>
#include <vector>

namespace mlir::tessel {

/// The constants of a module after the graph phase, by the ONNX node they
/// come from (or their location), in program order.
using BatchConstants = std::map<std::string, std::vector<Attribute>>;

/// With `skipShapes`, those only read as a `tensor.reshape`'s shape are
/// left out.
BatchConstants collectBatchConstants(ModuleOp module, bool skipShapes = false);

/// Emits an error at the first constant of `b` (the build of batch
/// `batchB`) that has the type of its counterpart in `a` (batch `batchA`)
/// but another value, and fails.
LogicalResult compareBatchConstants(const BatchConstants &a, int64_t batchA,
                                    const BatchConstants &b, int64_t batchB,
                                    ModuleOp moduleB);

/// The same for a padded dimension's builds at lengths `lengthA` and
/// `lengthB`: a constant of the same type must have the same value, and
/// one whose extents differ only where they are the two lengths (a table
/// with an entry per position) must start, in the longer build, with the
/// shorter build's entries.
LogicalResult comparePaddedConstants(const BatchConstants &a, int64_t lengthA,
                                     const BatchConstants &b, int64_t lengthB,
                                     llvm::StringRef name, ModuleOp moduleB);

} // namespace mlir::tessel

#endif // TESSEL_LIB_DRIVER_BATCHCONSTANTS_H
