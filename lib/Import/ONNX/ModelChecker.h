//===- ModelChecker.h - libonnx's model checker -----------------*- C++ -*-===//

#ifndef TESSEL_LIB_IMPORT_ONNX_MODELCHECKER_H
#define TESSEL_LIB_IMPORT_ONNX_MODELCHECKER_H

#include "onnx/onnx_pb.h"

#include <optional>
#include <string>

namespace mlir::tessel::onnx_import {

/// Runs `onnx::checker::check_model`; returns its complaint, if any. Only
/// meaningful for IR versions and opsets that Debian's libonnx 1.12 knows
/// (IR <= 8, default-domain opset <= 17). A model with external data is
/// checked from `modelPath` (its small .onnx read again), so that the
/// checker finds the data files in the model's directory, not the working
/// directory.
std::optional<std::string> runOnnxChecker(const onnx::ModelProto &model,
                                          const std::string &modelPath);

/// The newest IR version and opset libonnx's checker understands.
inline constexpr int64_t kCheckerMaxIrVersion = 8;
inline constexpr int64_t kCheckerMaxOpset = 17;

} // namespace mlir::tessel::onnx_import

#endif // TESSEL_LIB_IMPORT_ONNX_MODELCHECKER_H
