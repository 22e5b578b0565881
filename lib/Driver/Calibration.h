//===- Calibration.h - Post-training quantization's calibration -*- C++ -*-===//
//
// Internal to lib/Driver: `tessel-compile --quantize=int8` compiles the model
// once more with its products' activations as extra outputs
// (tessel-quantize-products, mode=instrument), runs that artifact on the
// calibration samples through the runtime, and derives one uint8 scale and
// zero point per activation.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DRIVER_CALIBRATION_H
#define TESSEL_LIB_DRIVER_CALIBRATION_H

#include "tessel/Support/ErrorCodes.h"
#include "tessel/tensor_io.hpp"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tessel {

/// How activation ranges are chosen from what calibration saw.
struct CalibrationMethod {
  enum Kind { MinMax, Percentile, Entropy } kind = MinMax;
  /// Percentile: the share of values kept at each end, in percent.
  double percentile = 99.99;
};

/// Parses `minmax`, `percentile`, `percentile:P` (50 < P <= 100) or
/// `entropy` (TensorRT's: the clipping threshold whose quantized histogram
/// is closest to the original in KL divergence).
bool parseCalibrationMethod(const std::string &text, CalibrationMethod &out,
                            std::string &error);

/// One activation's quantization parameters (uint8, asymmetric), and the
/// range they cover.
struct ActivationRange {
  double low = 0, high = 0;
  double scale = 1;
  int64_t zeroPoint = 0;
};

/// What went wrong, coded for the driver's message.
struct CalibrationError {
  ::tessel::ErrorCode code;
  std::string message;
};

/// One sample: a tensor per model input, in the model's order.
using Sample = std::vector<::tessel::io::HostTensor>;

/// A model input the samples are checked against.
struct ModelInput {
  std::string name;
  int32_t dtype;
  std::vector<int64_t> shape;
};

/// Reads the samples at `path` (`flag` names it in messages): a directory
/// of one subdirectory per sample holding `<input name>.npy`, or one `.npz`
/// whose arrays, one per input, carry a leading sample axis. Every tensor
/// must match its input's type and be finite.
bool readSamples(const std::string &path, llvm::StringRef flag,
                 const std::vector<ModelInput> &inputs,
                 std::vector<Sample> &samples, CalibrationError &error);

/// Runs the instrumented artifact at `artifactPath` (whose outputs named
/// `calibration_<i>` are the activations, `count` of them) on the samples
/// in `dataPath` (a directory of one subdirectory per sample holding
/// `<input name>.npy`, or one `.npz` whose arrays carry a leading sample
/// axis), and returns each activation's range and parameters.
bool calibrate(const std::string &artifactPath, size_t count,
               const std::string &dataPath, const CalibrationMethod &method,
               std::vector<ActivationRange> &ranges, size_t &samples,
               CalibrationError &error);

} // namespace mlir::tessel

#endif // TESSEL_LIB_DRIVER_CALIBRATION_H
