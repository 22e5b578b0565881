//===- ErrorCodes.h - The catalogue of Tessel's error codes -----*- C++ -*-===//
//
// Every error a Tessel tool prints reads
//
//   <file>: error[E<code>]: <what is wrong>[; <what to do>]
//     <node name> (<op type>): <reason>
//
// The code names the family of the problem; it is stable: a code is never
// reused for another family, and docs/errors.md documents each one. This
// header has no dependencies, so the LLVM-free runtime tools share it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_SUPPORT_ERRORCODES_H
#define TESSEL_SUPPORT_ERRORCODES_H

#include <cstdio>
#include <string>

namespace tessel {

enum class ErrorCode : int {
  // Reading the model.
  FileUnreadable = 1,   ///< the file cannot be opened or read
  NotOnnx = 2,          ///< not an ONNX model: protobuf parse fails, no graph
  MalformedGraph = 3,   ///< names, order, duplicates, libonnx's checker
  UnsupportedOpset = 4, ///< no default-domain opset, or one newer than known
  // Importing it.
  UnsupportedOperator = 10, ///< op types (or domains) Tessel does not import
  InvalidNode = 11,         ///< a node's operands or attributes are refused
  InputShape = 12,          ///< dynamic or invalid input shapes, --input-shape
  UnsupportedType = 13,     ///< an element type Tessel does not handle
  NonConstantInput = 14,    ///< a shape-deciding input is not a constant
  Preprocess = 15,          ///< a --preprocess SPEC is invalid or misfits
  // Compiling it.
  Lowering = 20,   ///< an op cannot be compiled for the target
  Target = 21,     ///< target machine, code generation or linking failed
  CalibrationData = 22, ///< --calibration-data missing, unreadable, mismatched
  NothingToQuantize = 23, ///< --quantize finds no product to quantize
  Usage = 30,      ///< bad command-line usage
  OutputFile = 31, ///< an output file cannot be written
  // Running an artifact.
  TensorFile = 40,           ///< an input or expected tensor file is unreadable
  TensorMismatch = 41,       ///< a tensor does not match the model (name, type)
  InvalidArtifact = 50,      ///< not a Tessel artifact, truncated or corrupt
  IncompatibleArtifact = 51, ///< another ABI major, or CPU features missing
  RunFailed = 52,            ///< the compiled code reported a failure
  // Tessel's own fault.
  Internal = 99, ///< a compiler or runtime bug: please report it
};

/// "E0010" for ErrorCode::UnsupportedOperator.
inline std::string formatErrorCode(ErrorCode code) {
  char buffer[8];
  std::snprintf(buffer, sizeof(buffer), "E%04d", static_cast<int>(code));
  return buffer;
}

/// "error[E0010]", the severity with its code, as the tools print it.
inline std::string errorTag(ErrorCode code) {
  return "error[" + formatErrorCode(code) + "]";
}

} // namespace tessel

#endif // TESSEL_SUPPORT_ERRORCODES_H
