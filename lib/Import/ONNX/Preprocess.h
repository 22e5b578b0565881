//===- Preprocess.h - --preprocess: image preprocessing in the graph -*- C++ -*-===//
//
// `tessel-compile --preprocess=SPEC` prepends an image's preprocessing
// (u8 -> f32, HWC -> CHW, resize, center crop, scale, mean/std) to the
// model's graph as ONNX nodes before the import, so that they become
// `tessel` ops like the rest of the model: the normalisation folds into the
// first layer, and the artifact takes raw pixels. docs/compiler.md
// ("Preprocessing") documents SPEC.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_IMPORT_ONNX_PREPROCESS_H
#define TESSEL_LIB_IMPORT_ONNX_PREPROCESS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace mlir::tessel::onnx_import {

/// A parsed --preprocess SPEC.
struct PreprocessSpec {
  enum class Layout { HWC, NHWC, CHW, NCHW };
  enum class Interpolation { Bilinear, Nearest };
  /// The graph input it applies to; empty: the model's only input.
  std::string input;
  /// The raw input's element type: true for uint8, false for float32.
  bool uint8 = true;
  Layout layout = Layout::HWC;
  /// The raw image's height and width (`size=HxW`).
  std::optional<std::pair<int64_t, int64_t>> size;
  /// `resize=S` (the shorter side, as torchvision's Resize(S)) or
  /// `resize=HxW`.
  std::optional<int64_t> resizeShorter;
  std::optional<std::pair<int64_t, int64_t>> resizeTo;
  Interpolation interpolation = Interpolation::Bilinear;
  /// `crop=S` or `crop=HxW`, centred.
  std::optional<std::pair<int64_t, int64_t>> crop;
  std::optional<double> scale;
  std::vector<float> mean, std;
};

/// Parses SPEC (comma-separated `key=value` items); on failure returns
/// nullopt with the reason in `error`.
std::optional<PreprocessSpec> parsePreprocessSpec(llvm::StringRef text,
                                                  std::string &error);

/// Prepends `spec`'s preprocessing to `model`'s graph: the graph input keeps
/// its name and becomes the raw image; its old uses read the preprocessed
/// tensor. `inputShapes` (--input-shape) may give the model input's shape;
/// its entry for that input is consumed. On failure returns false with the
/// reason in `error`.
bool prependPreprocessing(onnx::ModelProto &model, const PreprocessSpec &spec,
                          llvm::StringMap<llvm::SmallVector<int64_t>> &inputShapes,
                          std::string &error);

} // namespace mlir::tessel::onnx_import

#endif // TESSEL_LIB_IMPORT_ONNX_PREPROCESS_H
