//===- Descriptor.cpp - The artifact's descriptor and entry point ---------===//
//
// Adds to the translated model what makes it an artifact (abi.h): the entry
// point `tessel_model_entry(services, inputs, outputs, workspace)` over the
// bare-pointer `tessel_model_main`, the `tessel_model_desc` constant, and the
// one exported symbol, `tessel_model_v1`.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/LLVM/Artifact.h"

#include "tessel/Conversion/EntryABI.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/abi.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Transforms/IPO/ConstantMerge.h"

#include <cstddef>

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// Builds the descriptor's pieces inside one LLVM module.
class DescriptorBuilder {
public:
  DescriptorBuilder(llvm::Module &module)
      : module(module), ctx(module.getContext()),
        ptrTy(llvm::PointerType::get(ctx, 0)), i16(llvm::Type::getInt16Ty(ctx)),
        i32(llvm::Type::getInt32Ty(ctx)), i64(llvm::Type::getInt64Ty(ctx)) {}

  llvm::Constant *string(llvm::StringRef s, const llvm::Twine &name) {
    llvm::Constant *data = llvm::ConstantDataArray::getString(ctx, s);
    auto *global =
        new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                                 llvm::GlobalValue::PrivateLinkage, data, name);
    global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return global;
  }

  llvm::StructType *tensorDescType() {
    return llvm::StructType::get(ctx, {ptrTy, i32, i32, ptrTy});
  }

  llvm::StructType *modelDescType() {
    return llvm::StructType::get(
        ctx, {i32,   i16,   i16,   ptrTy, ptrTy, ptrTy, ptrTy, ptrTy, ptrTy,
              i32,   i32,   ptrTy, ptrTy, ptrTy, ptrTy, i64,   i64,   i64,
              ptrTy, i32,   ptrTy, i64,   i64,   ptrTy, i64,   i64,   ptrTy,
              i32,   ptrTy, i64,   i64,   ptrTy, ptrTy, ptrTy, i32,   ptrTy});
  }

  llvm::StructType *batchEntryType() {
    return llvm::StructType::get(ctx, {i64, ptrTy, i64});
  }

  llvm::StructType *paddedEntryType() {
    return llvm::StructType::get(ctx, {i64, i64, ptrTy, i64});
  }

  /// A private array of int32_t.
  llvm::Constant *i32Table(llvm::ArrayRef<int32_t> values,
                           const llvm::Twine &name) {
    std::vector<llvm::Constant *> items;
    for (int32_t v : values)
      items.push_back(llvm::ConstantInt::get(i32, v, /*isSigned=*/true));
    auto *tableTy = llvm::ArrayType::get(i32, items.size());
    return new llvm::GlobalVariable(
        module, tableTy, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantArray::get(tableTy, items), name);
  }

  /// A private array of tessel_tensor_desc.
  llvm::Constant *tensorTable(llvm::ArrayRef<TensorSignature> tensors,
                              llvm::StringRef prefix) {
    llvm::StructType *descTy = tensorDescType();
    std::vector<llvm::Constant *> entries;
    for (auto [i, t] : llvm::enumerate(tensors)) {
      std::vector<llvm::Constant *> dims;
      for (int64_t d : t.shape)
        dims.push_back(llvm::ConstantInt::get(i64, d));
      auto *shapeTy = llvm::ArrayType::get(i64, dims.size());
      auto *shape = new llvm::GlobalVariable(
          module, shapeTy, true, llvm::GlobalValue::PrivateLinkage,
          llvm::ConstantArray::get(shapeTy, dims),
          prefix + "_shape" + llvm::Twine(i));
      entries.push_back(llvm::ConstantStruct::get(
          descTy, {string(t.name, prefix + "_name" + llvm::Twine(i)),
                   llvm::ConstantInt::get(i32, t.dtype),
                   llvm::ConstantInt::get(i32, t.shape.size()), shape}));
    }
    auto *tableTy = llvm::ArrayType::get(descTy, entries.size());
    return new llvm::GlobalVariable(
        module, tableTy, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantArray::get(tableTy, entries), prefix + "_table");
  }

  /// The `input_values` table: per input, null or its fixed value's bytes.
  llvm::Constant *fixedValueTable(llvm::ArrayRef<TensorSignature> inputs) {
    std::vector<llvm::Constant *> entries;
    for (auto [i, t] : llvm::enumerate(inputs)) {
      if (!t.fixedValue) {
        entries.push_back(llvm::ConstantPointerNull::get(ptrTy));
        continue;
      }
      llvm::Constant *data = llvm::ConstantDataArray::get(
          ctx, llvm::ArrayRef<uint8_t>(*t.fixedValue));
      auto *global =
          new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                                   llvm::GlobalValue::PrivateLinkage, data,
                                   "tessel_input_value" + llvm::Twine(i));
      global->setAlignment(llvm::Align(8));
      entries.push_back(global);
    }
    auto *tableTy = llvm::ArrayType::get(ptrTy, entries.size());
    return new llvm::GlobalVariable(
        module, tableTy, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantArray::get(tableTy, entries), "tessel_input_values");
  }

  llvm::Module &module;
  llvm::LLVMContext &ctx;
  llvm::PointerType *ptrTy;
  llvm::IntegerType *i16, *i32, *i64;
};

/// Checks that the LLVM layout of the descriptor is abi.h's, field by field.
LogicalResult checkLayout(const llvm::DataLayout &layout,
                          llvm::StructType *tensorTy, llvm::StructType *descTy,
                          llvm::StructType *batchEntryTy,
                          llvm::StructType *paddedEntryTy, std::string &error) {
  const size_t tensorOffsets[] = {
      offsetof(tessel_tensor_desc, name), offsetof(tessel_tensor_desc, dtype),
      offsetof(tessel_tensor_desc, rank), offsetof(tessel_tensor_desc, shape)};
  const size_t descOffsets[] = {
      offsetof(tessel_model_desc, struct_size),
      offsetof(tessel_model_desc, abi_major),
      offsetof(tessel_model_desc, abi_minor),
      offsetof(tessel_model_desc, model_name),
      offsetof(tessel_model_desc, compiler_version),
      offsetof(tessel_model_desc, compile_flags),
      offsetof(tessel_model_desc, target),
      offsetof(tessel_model_desc, target_cpu),
      offsetof(tessel_model_desc, target_features),
      offsetof(tessel_model_desc, num_inputs),
      offsetof(tessel_model_desc, num_outputs),
      offsetof(tessel_model_desc, inputs),
      offsetof(tessel_model_desc, outputs),
      offsetof(tessel_model_desc, entry_name),
      offsetof(tessel_model_desc, entry),
      offsetof(tessel_model_desc, workspace_size),
      offsetof(tessel_model_desc, workspace_alignment),
      offsetof(tessel_model_desc, weights_size),
      offsetof(tessel_model_desc, input_values),
      offsetof(tessel_model_desc, flags),
      offsetof(tessel_model_desc, weights_file),
      offsetof(tessel_model_desc, weights_file_size),
      offsetof(tessel_model_desc, weights_file_checksum),
      offsetof(tessel_model_desc, weights_base),
      offsetof(tessel_model_desc, batch_min),
      offsetof(tessel_model_desc, batch_max),
      offsetof(tessel_model_desc, batch_name),
      offsetof(tessel_model_desc, num_batch_entries),
      offsetof(tessel_model_desc, batch_entries),
      offsetof(tessel_model_desc, padded_min),
      offsetof(tessel_model_desc, padded_max),
      offsetof(tessel_model_desc, padded_name),
      offsetof(tessel_model_desc, padded_input_dims),
      offsetof(tessel_model_desc, padded_output_dims),
      offsetof(tessel_model_desc, num_padded_entries),
      offsetof(tessel_model_desc, padded_entries)};
  const size_t batchEntryOffsets[] = {
      offsetof(tessel_batch_entry, batch), offsetof(tessel_batch_entry, entry),
      offsetof(tessel_batch_entry, workspace_size)};
  const size_t paddedEntryOffsets[] = {
      offsetof(tessel_padded_entry, length),
      offsetof(tessel_padded_entry, batch),
      offsetof(tessel_padded_entry, entry),
      offsetof(tessel_padded_entry, workspace_size)};
  auto check = [&](llvm::StructType *ty, llvm::ArrayRef<size_t> offsets,
                   size_t size) {
    const llvm::StructLayout *sl = layout.getStructLayout(ty);
    if (sl->getSizeInBytes() != size || ty->getNumElements() != offsets.size())
      return false;
    for (auto [i, offset] : llvm::enumerate(offsets))
      if (sl->getElementOffset(i) != offset)
        return false;
    return true;
  };
  if (!check(tensorTy, tensorOffsets, sizeof(tessel_tensor_desc)) ||
      !check(descTy, descOffsets, sizeof(tessel_model_desc)) ||
      !check(batchEntryTy, batchEntryOffsets, sizeof(tessel_batch_entry)) ||
      !check(paddedEntryTy, paddedEntryOffsets, sizeof(tessel_padded_entry))) {
    error = "the target's data layout does not match the artifact ABI "
            "(abi.h) of this compiler";
    return failure();
  }
  return success();
}

/// Whether `module` runs AMX tile instructions (the intrinsics the amx
/// dialect lowers to): the runtime must ask Linux for the tile state first.
bool usesAmx(const llvm::Module &module) {
  for (const llvm::Function &function : module)
    if (function.isIntrinsic() &&
        (function.getName().starts_with("llvm.x86.tile") ||
         function.getName().starts_with("llvm.x86.tdp")))
      return true;
  return false;
}

/// A model's code translated to LLVM IR: its main function (pointers to
/// the inputs, with a padded dimension one to the valid length, the
/// outputs, then the workspace when it takes one) and the thread-local slot
/// its parallel loops read the services from, if any.
struct TranslatedModel {
  std::unique_ptr<llvm::Module> module;
  ModelSignature signature;
  uint64_t workspaceSize = 0;
  llvm::Function *main = nullptr;
  llvm::GlobalVariable *servicesSlot = nullptr;
  /// With a padded dimension, the build's length; 0 otherwise.
  int64_t length = 0;
};

FailureOr<TranslatedModel> translateModel(ModuleOp module,
                                          llvm::LLVMContext &llvmContext,
                                          llvm::TargetMachine &machine,
                                          int64_t length) {
  TranslatedModel out;
  out.length = length;
  FailureOr<ModelSignature> signature = readSignature(module);
  if (failed(signature))
    return failure();
  out.signature = std::move(*signature);
  if (auto size = module->getAttrOfType<IntegerAttr>(kWorkspaceSizeAttrName))
    out.workspaceSize = size.getValue().getZExtValue();
  // The tessel.* attributes have served; LLVM IR has no place for them.
  for (StringRef name :
       {kSignatureAttrName, kModelNameAttrName, kWorkspaceSizeAttrName})
    module->removeAttr(name);
  // A kernel (tessel-outline-kernels) stays a function of its own: inlined
  // into the entry, LLVM would again optimise one function as large as the
  // model.
  module.walk([](LLVM::LLVMFuncOp function) {
    if (function->removeAttr(kKernelAttrName))
      function.setNoInline(true);
  });
  out.module = translateModuleToLLVMIR(module, llvmContext, out.signature.name);
  if (!out.module) {
    module.emitError() << "translation to LLVM IR failed";
    return failure();
  }
  out.module->setTargetTriple(machine.getTargetTriple());
  out.module->setDataLayout(machine.createDataLayout());
  out.main = out.module->getFunction(kEntryFunctionName);
  size_t numBuffers = out.signature.inputs.size() +
                      out.signature.outputs.size() + (length > 0 ? 1 : 0);
  bool takesWorkspace = out.workspaceSize > 0;
  if (!out.main ||
      out.main->arg_size() != numBuffers + (takesWorkspace ? 1 : 0)) {
    module.emitError() << "the module lacks '" << kEntryFunctionName
                       << "' taking one pointer per input and output"
                       << (length > 0 ? ", the valid length" : "")
                       << (takesWorkspace ? " and the workspace" : "");
    return failure();
  }
  out.servicesSlot =
      out.module->getGlobalVariable(kServicesSlotName, /*AllowInternal=*/true);
  // Only tessel_model_v1 leaves the artifact.
  for (llvm::Function &f : *out.module)
    if (!f.isDeclaration())
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &global : out.module->globals())
    if (!global.isDeclaration())
      global.setLinkage(llvm::GlobalValue::InternalLinkage);
  return out;
}

/// A pointer to the valid length of a padded dimension for `entry`'s call:
/// the services' `valid_length` (ABI 1.5), or the build's `length` when
/// the caller's services end before it.
llvm::Value *validLength(DescriptorBuilder &b, llvm::IRBuilder<> &ir,
                         llvm::Function *entry, int64_t length) {
  llvm::LLVMContext &llvmContext = b.ctx;
  llvm::Value *slot = ir.CreateAlloca(b.i64, nullptr, "valid_length");
  ir.CreateStore(llvm::ConstantInt::get(b.i64, length), slot);
  llvm::Value *services = entry->getArg(0);
  auto *read = llvm::BasicBlock::Create(llvmContext, "read_length", entry);
  auto *check = llvm::BasicBlock::Create(llvmContext, "check_length", entry);
  auto *done = llvm::BasicBlock::Create(llvmContext, "length", entry);
  ir.CreateCondBr(ir.CreateIsNotNull(services), check, done);
  ir.SetInsertPoint(check);
  llvm::Value *size = ir.CreateLoad(b.i32, services, "struct_size");
  constexpr uint64_t kEnd =
      offsetof(tessel_runtime_services, valid_length) + sizeof(int64_t);
  ir.CreateCondBr(ir.CreateICmpUGE(size, llvm::ConstantInt::get(b.i32, kEnd)),
                  read, done);
  ir.SetInsertPoint(read);
  llvm::Value *at = ir.CreateConstInBoundsGEP1_64(
      ir.getInt8Ty(), services,
      offsetof(tessel_runtime_services, valid_length));
  ir.CreateStore(ir.CreateLoad(b.i64, at, "valid"), slot);
  ir.CreateBr(done);
  ir.SetInsertPoint(done);
  return slot;
}

/// `entry(services, inputs, outputs, workspace) -> i32` over `model`'s main
/// function (in `b`'s module): loads the buffers' pointers, stores the
/// services where the parallel loops find them, and with a weights file
/// runs nothing before the runtime has mapped it.
llvm::Function *createEntry(DescriptorBuilder &b, const TranslatedModel &model,
                            llvm::GlobalVariable *weightsBase,
                            const llvm::Twine &name) {
  llvm::LLVMContext &llvmContext = b.ctx;
  auto *entryTy = llvm::FunctionType::get(
      b.i32, {b.ptrTy, b.ptrTy, b.ptrTy, b.ptrTy}, false);
  auto *entry = llvm::Function::Create(
      entryTy, llvm::GlobalValue::InternalLinkage, name, b.module);
  llvm::IRBuilder<> ir(llvm::BasicBlock::Create(llvmContext, "entry", entry));
  std::vector<llvm::Value *> args;
  auto loadTable = [&](llvm::Value *table, size_t count, const char *what) {
    for (size_t i = 0; i < count; ++i) {
      llvm::Value *at = ir.CreateConstInBoundsGEP1_64(b.ptrTy, table, i);
      args.push_back(ir.CreateLoad(b.ptrTy, at, what));
    }
  };
  loadTable(entry->getArg(1), model.signature.inputs.size(), "input");
  if (model.length > 0)
    args.push_back(validLength(b, ir, entry, model.length));
  loadTable(entry->getArg(2), model.signature.outputs.size(), "output");
  if (model.workspaceSize > 0)
    args.push_back(entry->getArg(3));
  // Parallel loops find the runtime's services in a thread-local slot
  // (tessel-parallelize-loops).
  if (model.servicesSlot)
    ir.CreateStore(entry->getArg(0), model.servicesSlot);
  if (weightsBase) {
    llvm::Value *mapped =
        ir.CreateIsNotNull(ir.CreateLoad(b.ptrTy, weightsBase, "weights"));
    auto *run = llvm::BasicBlock::Create(llvmContext, "run", entry);
    auto *unmapped = llvm::BasicBlock::Create(llvmContext, "unmapped", entry);
    ir.CreateCondBr(mapped, run, unmapped);
    ir.SetInsertPoint(unmapped);
    ir.CreateRet(llvm::ConstantInt::get(b.i32, TESSEL_ENTRY_WEIGHTS_UNMAPPED));
    ir.SetInsertPoint(run);
  }
  ir.CreateCall(model.main, args);
  ir.CreateRet(llvm::ConstantInt::get(b.i32, 0));
  return entry;
}

/// Whether `variant`'s interface is `base`'s at `variantBuild`'s batch
/// (dimension 0, with a dynamic batch) and length (the padded dimensions).
bool matchesBuild(const ModelSignature &variant, const ModelSignature &base,
                  const DynamicBatch &shapes,
                  const DynamicBatch::Build &variantBuild) {
  auto same = [&](llvm::ArrayRef<TensorSignature> a,
                  llvm::ArrayRef<TensorSignature> b,
                  llvm::ArrayRef<int32_t> paddedDims) {
    if (a.size() != b.size())
      return false;
    for (auto [i, x, y] : llvm::enumerate(a, b)) {
      if (x.name != y.name || x.dtype != y.dtype || x.fixedValue ||
          y.fixedValue || x.shape.size() != y.shape.size())
        return false;
      int32_t padded = i < paddedDims.size() ? paddedDims[i] : -1;
      for (auto [d, extent] : llvm::enumerate(y.shape)) {
        int64_t expected = extent;
        if (shapes.max > 0 && d == 0) {
          if (extent != 1)
            return false;
          expected = variantBuild.batch;
        }
        if (int64_t(d) == padded) {
          if (extent != shapes.padded.length)
            return false;
          expected = variantBuild.length;
        }
        if (x.shape[d] != expected)
          return false;
      }
    }
    return true;
  };
  return same(variant.inputs, base.inputs, shapes.padded.inputDims) &&
         same(variant.outputs, base.outputs, shapes.padded.outputDims);
}

} // namespace

std::string
mlir::tessel::getEnabledTargetFeatures(const llvm::TargetMachine &machine) {
  const llvm::MCSubtargetInfo *sti = machine.getMCSubtargetInfo();
  std::string features;
  for (const llvm::SubtargetFeatureKV &kv : sti->getAllProcessorFeatures())
    if (sti->getFeatureBits().test(kv.Value))
      features += (features.empty() ? "+" : ",+") + std::string(kv.Key);
  return features;
}

std::unique_ptr<llvm::Module> mlir::tessel::translateToArtifactModule(
    ModuleOp module, llvm::LLVMContext &llvmContext,
    llvm::TargetMachine &machine, const ArtifactInfo &info,
    uint64_t *weightsBytes, const DynamicBatch *batch) {
  bool padded = batch && batch->padded.max > 0;
  bool dynamicBatch = batch && batch->max > 0;
  FailureOr<TranslatedModel> base = translateModel(
      module, llvmContext, machine, padded ? batch->padded.length : 0);
  if (failed(base))
    return nullptr;
  std::unique_ptr<llvm::Module> llvmModule = std::move(base->module);
  const ModelSignature &signature = base->signature;
  const llvm::DataLayout &layout = llvmModule->getDataLayout();
  DescriptorBuilder b(*llvmModule);
  std::string layoutError;
  if (failed(checkLayout(layout, b.tensorDescType(), b.modelDescType(),
                         b.batchEntryType(), b.paddedEntryType(),
                         layoutError))) {
    module.emitError() << layoutError;
    return nullptr;
  }

  llvm::GlobalVariable *weightsBase =
      info.weightsFile.name.empty()
          ? nullptr
          : llvmModule->getGlobalVariable(kWeightsBaseName,
                                          /*AllowInternal=*/true);
  if (!info.weightsFile.name.empty() && !weightsBase) {
    module.emitError() << "a weights file is named but the module has no '"
                       << kWeightsBaseName << "'";
    return nullptr;
  }
  llvm::Function *entry =
      createEntry(b, *base, weightsBase, "tessel_model_entry");

  // A dynamic batch or a padded dimension: the code of every other build,
  // linked in, each with its own main function, services slot and entry.
  // The 1.4 table holds the builds of the shortest length.
  std::vector<llvm::Constant *> batchEntries, paddedEntries;
  if (batch) {
    if (weightsBase) {
      module.emitError() << "a dynamic batch or padded dimension keeps its "
                            "weights in the artifact (no weights file)";
      return nullptr;
    }
    struct Entry {
      DynamicBatch::Build build;
      llvm::Function *fn;
      uint64_t workspace;
    };
    std::vector<Entry> entries = {
        {{1, padded ? batch->padded.length : 0, module},
         entry,
         base->workspaceSize}};
    // Weights the builds share become one constant (ConstantMerge below).
    auto unnamedConstants = [](llvm::Module &m) {
      for (llvm::GlobalVariable &global : m.globals())
        if (global.isConstant() && global.hasLocalLinkage())
          global.setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    };
    unnamedConstants(*llvmModule);
    for (DynamicBatch::Build build : batch->variants) {
      std::string what = "the build of batch " + std::to_string(build.batch) +
                         (padded ? " and length " + std::to_string(build.length)
                                 : std::string());
      FailureOr<TranslatedModel> variant =
          translateModel(build.module, llvmContext, machine, build.length);
      if (failed(variant))
        return nullptr;
      if (!matchesBuild(variant->signature, signature, *batch, build)) {
        build.module.emitError()
            << what << " does not have the inputs and outputs of the first "
            << "build at that batch and length";
        return nullptr;
      }
      std::string suffix =
          "_b" + std::to_string(build.batch) +
          (padded ? "_l" + std::to_string(build.length) : std::string());
      variant->main->setName(kEntryFunctionName + suffix);
      if (variant->servicesSlot)
        variant->servicesSlot->setName(kServicesSlotName + suffix);
      // The linker takes the local symbols something references only.
      variant->main->setLinkage(llvm::GlobalValue::ExternalLinkage);
      std::string mainName = variant->main->getName().str();
      std::string slotName = variant->servicesSlot
                                 ? variant->servicesSlot->getName().str()
                                 : std::string();
      unnamedConstants(*variant->module);
      if (llvm::Linker::linkModules(*llvmModule, std::move(variant->module))) {
        module.emitError() << "linking " << what << " failed";
        return nullptr;
      }
      // The linked module's copies.
      variant->main = llvmModule->getFunction(mainName);
      variant->main->setLinkage(llvm::GlobalValue::InternalLinkage);
      variant->servicesSlot =
          slotName.empty()
              ? nullptr
              : llvmModule->getGlobalVariable(slotName, /*AllowInternal=*/true);
      entries.push_back(
          {build,
           createEntry(b, *variant, nullptr, "tessel_model_entry" + suffix),
           variant->workspaceSize});
    }
    llvm::sort(entries, [](const Entry &x, const Entry &y) {
      return std::make_pair(x.build.length, x.build.batch) <
             std::make_pair(y.build.length, y.build.batch);
    });
    for (const Entry &e : entries) {
      if (dynamicBatch && e.build.length == entries.front().build.length)
        batchEntries.push_back(llvm::ConstantStruct::get(
            b.batchEntryType(),
            {llvm::ConstantInt::get(b.i64, e.build.batch), e.fn,
             llvm::ConstantInt::get(b.i64, e.workspace)}));
      if (padded)
        paddedEntries.push_back(llvm::ConstantStruct::get(
            b.paddedEntryType(),
            {llvm::ConstantInt::get(b.i64, e.build.length),
             llvm::ConstantInt::get(b.i64, e.build.batch), e.fn,
             llvm::ConstantInt::get(b.i64, e.workspace)}));
    }
    llvm::ModuleAnalysisManager analyses;
    llvm::ConstantMergePass().run(*llvmModule, analyses);
  }

  // Constant data in the module is the model's weights.
  uint64_t weightsSize = 0;
  for (llvm::GlobalVariable &global : llvmModule->globals())
    if (global.isConstant() && global.hasInitializer())
      weightsSize += layout.getTypeAllocSize(global.getValueType());
  if (weightsBytes)
    *weightsBytes = weightsSize;

  auto entryTable = [&](llvm::StructType *type,
                        llvm::ArrayRef<llvm::Constant *> items,
                        const char *name) -> llvm::Constant * {
    if (items.empty())
      return llvm::ConstantPointerNull::get(b.ptrTy);
    auto *tableTy = llvm::ArrayType::get(type, items.size());
    return new llvm::GlobalVariable(
        *llvmModule, tableTy, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantArray::get(tableTy, items), name);
  };
  llvm::Constant *null = llvm::ConstantPointerNull::get(b.ptrTy);

  const llvm::TargetMachine &tm = machine;
  std::vector<llvm::Constant *> fields = {
      llvm::ConstantInt::get(b.i32, sizeof(tessel_model_desc)),
      llvm::ConstantInt::get(b.i16, TESSEL_ABI_MAJOR),
      llvm::ConstantInt::get(b.i16, TESSEL_ABI_MINOR),
      b.string(signature.name, "tessel_model_name"),
      b.string(info.compilerVersion, "tessel_compiler_version"),
      b.string(info.compileFlags, "tessel_compile_flags"),
      b.string("cpu", "tessel_target"),
      b.string(tm.getTargetCPU(), "tessel_target_cpu"),
      b.string(getEnabledTargetFeatures(tm), "tessel_target_features"),
      llvm::ConstantInt::get(b.i32, signature.inputs.size()),
      llvm::ConstantInt::get(b.i32, signature.outputs.size()),
      b.tensorTable(signature.inputs, "tessel_inputs"),
      b.tensorTable(signature.outputs, "tessel_outputs"),
      b.string("tessel_model_entry", "tessel_entry_name"), entry,
      llvm::ConstantInt::get(b.i64, base->workspaceSize),
      llvm::ConstantInt::get(b.i64, 64),
      llvm::ConstantInt::get(b.i64, weightsSize),
      b.fixedValueTable(signature.inputs),
      // No op Tessel compiles is random, so no artifact is
      // TESSEL_MODEL_NONDETERMINISTIC (abi.h) yet.
      llvm::ConstantInt::get(b.i32,
                             usesAmx(*llvmModule) ? TESSEL_MODEL_USES_AMX : 0u),
      weightsBase ? b.string(info.weightsFile.name, "tessel_weights_file")
                  : llvm::ConstantPointerNull::get(b.ptrTy),
      llvm::ConstantInt::get(b.i64, info.weightsFile.size),
      llvm::ConstantInt::get(b.i64, info.weightsFile.checksum),
      weightsBase ? static_cast<llvm::Constant *>(weightsBase)
                  : llvm::ConstantPointerNull::get(b.ptrTy),
      llvm::ConstantInt::get(b.i64, dynamicBatch ? batch->min : 0),
      llvm::ConstantInt::get(b.i64, dynamicBatch ? batch->max : 0),
      dynamicBatch ? b.string(batch->name, "tessel_batch_name") : null,
      llvm::ConstantInt::get(b.i32, batchEntries.size()),
      entryTable(b.batchEntryType(), batchEntries, "tessel_batch_entries"),
      llvm::ConstantInt::get(b.i64, padded ? batch->padded.min : 0),
      llvm::ConstantInt::get(b.i64, padded ? batch->padded.max : 0),
      padded ? b.string(batch->padded.name, "tessel_padded_name") : null,
      padded ? b.i32Table(batch->padded.inputDims, "tessel_padded_inputs")
             : null,
      padded ? b.i32Table(batch->padded.outputDims, "tessel_padded_outputs")
             : null,
      llvm::ConstantInt::get(b.i32, paddedEntries.size()),
      entryTable(b.paddedEntryType(), paddedEntries, "tessel_padded_entries")};
  auto *desc = new llvm::GlobalVariable(
      *llvmModule, b.modelDescType(), true, llvm::GlobalValue::InternalLinkage,
      llvm::ConstantStruct::get(b.modelDescType(), fields),
      "tessel_model_desc");

  auto *getterTy = llvm::FunctionType::get(b.ptrTy, false);
  auto *getter =
      llvm::Function::Create(getterTy, llvm::GlobalValue::ExternalLinkage,
                             TESSEL_MODEL_SYMBOL, *llvmModule);
  getter->setVisibility(llvm::GlobalValue::DefaultVisibility);
  llvm::IRBuilder<> ir(llvm::BasicBlock::Create(llvmContext, "entry", getter));
  ir.CreateRet(desc);
  return llvmModule;
}
