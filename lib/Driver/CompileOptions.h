//===- CompileOptions.h - tessel-compile's command line ---------*- C++ -*-===//
//
// The options tessel-compile parses, defined in CompileOptions.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DRIVER_COMPILEOPTIONS_H
#define TESSEL_LIB_DRIVER_COMPILEOPTIONS_H

#include "BatchOptions.h"

#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <string>

namespace mlir::tessel::compile_options {

extern llvm::cl::OptionCategory category;
extern llvm::cl::opt<std::string> inputFile;
extern llvm::cl::opt<std::string> outputFile;
extern llvm::cl::opt<std::string> targetName;
extern llvm::cl::opt<std::string> targetCpu;
extern llvm::cl::opt<std::string> targetFeatures;
extern llvm::cl::opt<char> optLevel;
extern llvm::cl::list<std::string> inputShapes;
extern llvm::cl::list<std::string> dimRange;
extern llvm::cl::list<std::string> specializeSizes;
extern llvm::cl::list<std::string> inputValues;
extern llvm::cl::opt<std::string> preprocess;
extern llvm::cl::opt<std::string> compileTo;
extern llvm::cl::opt<std::string> compileFrom;
extern llvm::cl::opt<std::string> emitKind;
extern llvm::cl::opt<uint64_t> weightsFileThreshold;
extern llvm::cl::opt<unsigned> codegenPartsOption;
extern llvm::cl::opt<std::string> progressMode;
extern llvm::cl::opt<unsigned> progressAfterMs;
extern llvm::cl::opt<bool> checkOnly;
extern llvm::cl::list<std::string> disabledOptimizations;
extern llvm::cl::list<std::string> passPlugins;
extern llvm::cl::list<std::string> insertedPasses;
extern llvm::cl::opt<bool> printTarget;
extern llvm::cl::opt<std::string> activationLayout;
extern llvm::cl::opt<std::string> quantizeKind;
extern llvm::cl::opt<std::string> precision;
extern llvm::cl::list<std::string> keepFp32;
extern llvm::cl::opt<std::string> accuracyBudget;
extern llvm::cl::opt<std::string> accuracyData;
extern llvm::cl::opt<bool> debugOutputs;
extern llvm::cl::opt<std::string> calibrationData;
extern llvm::cl::opt<std::string> calibrationMethod;
extern llvm::cl::opt<std::string> reportFile;

/// The options that shaped the code, as the descriptor records them.
std::string describeFlags(const BatchRequest &batchRequest,
                          const PaddedRequest &paddedRequest);

} // namespace mlir::tessel::compile_options

#endif // TESSEL_LIB_DRIVER_COMPILEOPTIONS_H
