//===- ModelChecker.cpp - libonnx's model checker, exceptions contained ---===//
//
// libonnx reports problems by throwing. This is the one file of the importer
// built with exceptions enabled: every call into libonnx that may throw stays
// here and comes out as a message.
//
//===----------------------------------------------------------------------===//

#include "ModelChecker.h"

#include "onnx/checker.h"

#include <exception>

std::optional<std::string>
mlir::tessel::onnx_import::runOnnxChecker(const onnx::ModelProto &model,
                                          const std::string &modelPath) {
  bool external = false;
  if (model.has_graph())
    for (const onnx::TensorProto &tensor : model.graph().initializer())
      external |= tensor.data_location() == onnx::TensorProto::EXTERNAL;
  try {
    if (external && !modelPath.empty())
      onnx::checker::check_model(modelPath);
    else
      onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    return std::string(e.what());
  } catch (...) {
    return std::string("the ONNX checker failed with an unknown error");
  }
  return std::nullopt;
}
