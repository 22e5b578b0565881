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

namespace {

/// The --specialize options that name `name`.
std::vector<std::string> specializing(llvm::ArrayRef<std::string> specialize,
                                      llvm::StringRef name) {
  std::vector<std::string> out;
  for (const std::string &spec : specialize)
    if (llvm::StringRef(spec).split('=').first == name)
      out.push_back(spec);
  return out;
}

LogicalResult parsePadded(llvm::StringRef range,
                          llvm::ArrayRef<std::string> specialize,
                          PaddedRequest &out, std::string &error) {
  // The range's syntax and bounds are the batch's.
  BatchRequest parsed;
  if (failed(parseBatchRequest(range, {}, parsed, error)))
    return failure();
  out.name = parsed.name;
  out.min = parsed.min;
  // By default, lengths 1.5x apart (8, 12, 16, 24, 32, 48, ...): a run
  // pads at most half its length again.
  if (specialize.empty())
    for (int64_t length = 8; length < parsed.max; length *= 2)
      for (int64_t step : {length, length * 3 / 2})
        if (step >= out.min && step < parsed.max)
          out.lengths.push_back(step);
  for (const std::string &spec : specialize) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(spec).split('=').second.split(parts, ',');
    for (llvm::StringRef part : parts) {
      int64_t length;
      if (part.getAsInteger(10, length) || length < out.min ||
          length > parsed.max) {
        error = "--specialize '" + spec + "': '" + part.str() +
                "' is not a length within " + std::to_string(out.min) + ".." +
                std::to_string(parsed.max);
        return failure();
      }
      out.lengths.push_back(length);
    }
  }
  out.lengths.push_back(parsed.max);
  llvm::sort(out.lengths);
  out.lengths.erase(std::unique(out.lengths.begin(), out.lengths.end()),
                    out.lengths.end());
  out.max = parsed.max;
  return success();
}

} // namespace

LogicalResult mlir::tessel::parseDimRanges(
    llvm::ArrayRef<std::string> ranges, llvm::ArrayRef<std::string> specialize,
    llvm::function_ref<bool(llvm::StringRef)> isBatch, BatchRequest &batch,
    PaddedRequest &padded, std::string &error) {
  if (ranges.empty())
    return parseBatchRequest("", specialize, batch, error);
  for (const std::string &spec : specialize) {
    llvm::StringRef name = llvm::StringRef(spec).split('=').first;
    if (llvm::none_of(ranges, [&](const std::string &range) {
          return llvm::StringRef(range).split('=').first == name;
        })) {
      error =
          "--specialize '" + spec + "' names no dimension a --dim-range gives";
      return failure();
    }
  }
  for (const std::string &range : ranges) {
    llvm::StringRef name = llvm::StringRef(range).split('=').first;
    std::vector<std::string> sizes = specializing(specialize, name);
    bool asBatch = isBatch(name);
    if (asBatch ? batch.enabled() : padded.enabled()) {
      error = std::string("--dim-range gives two ") +
              (asBatch ? "batches ('" + batch.name
                       : "padded dimensions ('" + padded.name) +
              "' and '" + name.str() +
              "'): one artifact takes at most a dynamic batch (dimension 0 "
              "of the inputs) and one other dynamic dimension";
      return failure();
    }
    if (failed(asBatch ? parseBatchRequest(range, sizes, batch, error)
                       : parsePadded(range, sizes, padded, error)))
      return failure();
  }
  return success();
}
