//===- BatchOptions.cpp - tessel-compile's shape options ------------------===//

#include "BatchOptions.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tessel;

LogicalResult mlir::tessel::parseInputShape(llvm::StringRef spec,
                                            ImportOptions &options,
                                            std::string &error) {
  size_t eq = spec.rfind('=');
  if (eq == llvm::StringRef::npos || eq == 0) {
    error = "--input-shape '" + spec.str() + "' is not NAME=D0xD1x...";
    return failure();
  }
  llvm::StringRef name = spec.take_front(eq), dims = spec.drop_front(eq + 1);
  llvm::SmallVector<int64_t> shape;
  if (!dims.empty() && dims != "scalar") {
    llvm::SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef part : parts) {
      int64_t d;
      if (part == "?") {
        shape.push_back(ShapedType::kDynamic);
        continue;
      }
      if (part.getAsInteger(10, d) || d < 0) {
        error = "--input-shape '" + spec.str() + "': '" + part.str() +
                "' is not a non-negative dimension or '?'";
        return failure();
      }
      shape.push_back(d);
    }
  }
  options.inputShapes[name] = shape;
  return success();
}

LogicalResult
mlir::tessel::parseBatchRequest(llvm::StringRef range,
                                llvm::ArrayRef<std::string> specialize,
                                BatchRequest &out, std::string &error) {
  if (range.empty()) {
    if (!specialize.empty()) {
      error = "--specialize lists sizes of a dynamic dimension: give its "
              "range with --dim-range";
      return failure();
    }
    return success();
  }
  size_t eq = range.rfind('=');
  llvm::StringRef bounds = range.drop_front(eq + 1);
  size_t dots = bounds.find("..");
  if (eq == llvm::StringRef::npos || eq == 0 || dots == llvm::StringRef::npos ||
      bounds.take_front(dots).getAsInteger(10, out.min) ||
      bounds.drop_front(dots + 2).getAsInteger(10, out.max)) {
    error = "--dim-range '" + range.str() + "' is not NAME=LO..HI";
    return failure();
  }
  out.name = range.take_front(eq).str();
  if (out.min < 1 || out.max < out.min || out.max > kMaxDynamicBatch) {
    error = "--dim-range '" + range.str() + "': the range must be within 1.." +
            std::to_string(kMaxDynamicBatch) + ", low first";
    out.max = 0;
    return failure();
  }
  out.sizes = {1};
  if (specialize.empty())
    for (int64_t size : {4, 8})
      if (size <= out.max)
        out.sizes.push_back(size);
  for (const std::string &spec : specialize) {
    llvm::StringRef text(spec);
    size_t at = text.rfind('=');
    if (at == llvm::StringRef::npos || text.take_front(at) != out.name) {
      error = "--specialize '" + spec + "' is not " + out.name +
              "=S1,S2,... (the dimension --dim-range names)";
      out.max = 0;
      return failure();
    }
    llvm::SmallVector<llvm::StringRef> parts;
    text.drop_front(at + 1).split(parts, ',');
    for (llvm::StringRef part : parts) {
      int64_t size;
      if (part.getAsInteger(10, size) || size < 1 || size > out.max) {
        error = "--specialize '" + spec + "': '" + part.str() +
                "' is not a size within 1.." + std::to_string(out.max);
        out.max = 0;
        return failure();
      }
      out.sizes.push_back(size);
    }
  }
  llvm::sort(out.sizes);
  out.sizes.erase(std::unique(out.sizes.begin(), out.sizes.end()),
                  out.sizes.end());
  out.checkBatch = out.max >= 2 ? std::max<int64_t>(out.sizes.back(), 2) : 0;
  return success();
}
