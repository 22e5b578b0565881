//===- ParallelCodegen.cpp - Machine code for module parts on threads -----===//
//
// LLVM's optimisation, instruction selection and register allocation work
// on each function alone. A model with many kernels (each its own
// function since tessel-outline-kernels) is split into a few modules that
// are compiled to object files on threads and linked together. The
// partition depends only on the module, not on the host: the artifact is
// the same on any machine.
//
// The parts are split before LLVM's -O2 and each optimised on its thread
// too: the kernels are noinline functions that share nothing but the
// weights, so whole-module optimisation had little to see across them
// (DenseNet-121, Zen 3: translation and -O2 took 8.5 s on one thread, of
// which the translation 1.1 s).
//
// Not llvm::SplitModule: it spreads the globals over the parts, and each
// part but one must travel as bitcode to a thread's own LLVMContext, where
// writing and reading a model's weights cost about what the threads saved
// (DenseNet-121, 32 MB of weights, Zen 3: machine code 8 s in one part;
// 6.3 s in 4 SplitModule parts on 2 cores and 12 s on one; 5-6 s with the
// data kept in the first part).
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/LLVM/Artifact.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <thread>

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// A part gets at least this many functions, and there are at most
/// kMaxParts: a part costs a bitcode round trip of its functions.
constexpr unsigned kMinFunctionsPerPart = 48;
constexpr unsigned kMaxParts = 4;

} // namespace

unsigned mlir::tessel::codegenParts(const llvm::Module &module) {
  unsigned functions = 0;
  for (const llvm::Function &f : module)
    functions += !f.isDeclaration();
  return std::clamp(functions / kMinFunctionsPerPart, 1u, kMaxParts);
}

LogicalResult mlir::tessel::emitObjectFiles(
    std::unique_ptr<llvm::Module> module, llvm::TargetMachine &machine,
    llvm::ArrayRef<std::string> paths, std::optional<unsigned> optLevel,
    std::string &error) {
  size_t numParts = paths.size();
  if (numParts == 1) {
    if (optLevel)
      optimizeModule(*module, machine, *optLevel);
    return emitObjectFile(*module, machine, paths.front(), error);
  }

  // Every part may use what another defines: local symbols become hidden
  // ones (direct calls and PC-relative addresses, as before).
  for (llvm::GlobalValue &value : module->global_values())
    if (value.hasLocalLinkage()) {
      // An external symbol needs a name (LLVM makes it unique).
      if (!value.hasName())
        value.setName("tessel_part_local");
      value.setLinkage(llvm::GlobalValue::ExternalLinkage);
      value.setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
  // Functions go to the parts in turn; the data (the weights) stays in part
  // 0, which is compiled in this context: only the other parts' functions
  // travel as bitcode to their threads' contexts.
  llvm::DenseMap<const llvm::GlobalValue *, size_t> partOf;
  size_t next = 0;
  for (const llvm::Function &f : *module)
    if (!f.isDeclaration())
      partOf[&f] = next++ % numParts;
  auto clonePart = [&](size_t part) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> clone =
        llvm::CloneModule(*module, map, [&](const llvm::GlobalValue *v) {
          auto it = partOf.find(v);
          return it == partOf.end() ? part == 0 : it->second == part;
        });
    // A part declares every global of the module; an unused hidden
    // declaration still becomes an undefined symbol without a type, which
    // the linker refuses beside a thread-local definition (the runtime
    // services' slot). Unused declarations go.
    llvm::SmallVector<llvm::GlobalValue *> unused;
    for (llvm::GlobalValue &value : clone->global_values())
      if (value.isDeclaration() && value.use_empty())
        unused.push_back(&value);
    for (llvm::GlobalValue *value : unused)
      value->eraseFromParent();
    return clone;
  };
  std::vector<llvm::SmallString<0>> bitcode(numParts);
  for (size_t part = 1; part < numParts; ++part) {
    llvm::raw_svector_ostream os(bitcode[part]);
    llvm::WriteBitcodeToFile(*clonePart(part), os);
  }
  std::unique_ptr<llvm::Module> first = clonePart(0);
  module.reset();

  std::vector<std::string> errors(numParts);
  auto compile = [&](size_t part) {
    llvm::LLVMContext context;
    llvm::Expected<std::unique_ptr<llvm::Module>> parsed =
        llvm::parseBitcodeFile(
            llvm::MemoryBufferRef(
                llvm::StringRef(bitcode[part].data(), bitcode[part].size()),
                "part"),
            context);
    if (!parsed) {
      errors[part] = llvm::toString(parsed.takeError());
      return;
    }
    std::unique_ptr<llvm::TargetMachine> partMachine(
        machine.getTarget().createTargetMachine(
            machine.getTargetTriple(), machine.getTargetCPU(),
            machine.getTargetFeatureString(), machine.Options,
            machine.getRelocationModel(), machine.getCodeModel(),
            machine.getOptLevel()));
    if (!partMachine) {
      errors[part] = "cannot create a target machine for a code part";
      return;
    }
    if (optLevel)
      optimizeModule(**parsed, *partMachine, *optLevel);
    (void)emitObjectFile(**parsed, *partMachine, paths[part], errors[part]);
  };
  std::vector<std::thread> threads;
  for (size_t part = 1; part < numParts; ++part)
    threads.emplace_back(compile, part);
  if (optLevel)
    optimizeModule(*first, machine, *optLevel);
  (void)emitObjectFile(*first, machine, paths[0], errors[0]);
  for (std::thread &thread : threads)
    thread.join();
  for (const std::string &message : errors)
    if (!message.empty()) {
      error = message;
      return failure();
    }
  return success();
}
