//===- TargetInfo.h - The CPU target description from LLVM ------*- C++ -*-===//
//
// Fills code generation's CpuTargetInfo (tessel/Codegen/CPU/TargetInfo.h)
// from LLVM's subtarget: the one place where `--target-cpu` and
// `--target-features` become vector widths, register counts and
// multiply-add instructions.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_LLVM_TARGETINFO_H
#define TESSEL_TARGET_LLVM_TARGETINFO_H

#include "tessel/Codegen/CPU/TargetInfo.h"
#include "tessel/Target/LLVM/Artifact.h"

namespace mlir::tessel {

/// Describes the CPU a target machine generates code for.
CpuTargetInfo getCpuTargetInfo(const llvm::TargetMachine &machine);

/// Creates the target machine for `target` ("host" resolved) and describes
/// it; on failure `error` says why (an unknown CPU name, for one).
FailureOr<CpuTargetInfo> resolveCpuTargetInfo(const CpuTarget &target,
                                              std::string &error);

} // namespace mlir::tessel

#endif // TESSEL_TARGET_LLVM_TARGETINFO_H
