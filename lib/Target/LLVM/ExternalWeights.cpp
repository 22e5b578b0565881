//===- ExternalWeights.cpp - Large weights in a file beside the artifact --===//
//
// A model's constants normally live in the artifact's read-only data. Past
// a size (--weights-file-threshold) they go to a weights file beside it
// instead: the shared object stays small (x86-64's small code model cannot
// address more than 2 GB of data anyway), and the runtime maps the file
// read-only, so that every session and process shares one copy in the page
// cache (abi.h, ABI 1.3; docs/runtime.md, "Weights files").
//
// This works on the module in the LLVM dialect, before translation, so that
// the weights are never copied into LLVM IR: each moved global's address
// becomes the runtime-filled base pointer plus its offset, and the data is
// written from the MLIR attribute straight to the file.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/LLVM/Artifact.h"

#include "tessel/Conversion/ConstantData.h"
#include "tessel/seal.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// Offsets in the file are multiples of this (a cache line; the file is
/// mapped at a page boundary).
constexpr uint64_t kAlignment = 64;

/// The constant data a global moves out with, or null when it stays.
DenseElementsAttr movableData(LLVM::GlobalOp global, uint64_t minBytes) {
  DenseElementsAttr data = getConstantBytes(global);
  return data && data.getRawData().size() >= minBytes ? data : nullptr;
}

} // namespace

void mlir::tessel::externalizeWeights(ModuleOp module, uint64_t minBytes,
                                      uint64_t minTotalBytes,
                                      ExternalWeights &out) {
  SmallVector<std::pair<LLVM::GlobalOp, DenseElementsAttr>> moving;
  uint64_t total = 0;
  for (auto global : module.getOps<LLVM::GlobalOp>())
    if (DenseElementsAttr data = movableData(global, minBytes)) {
      moving.emplace_back(global, data);
      total += data.getRawData().size();
    }
  if (moving.empty() || total < minTotalBytes)
    return;

  MLIRContext *ctx = module.getContext();
  OpBuilder builder(ctx);
  builder.setInsertionPointToStart(module.getBody());
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto base = LLVM::GlobalOp::create(builder, module.getLoc(), ptrTy,
                                     /*isConstant=*/false,
                                     LLVM::Linkage::Internal, kWeightsBaseName,
                                     /*value=*/Attribute());
  {
    Block *init = builder.createBlock(&base.getInitializerRegion());
    builder.setInsertionPointToStart(init);
    Value null = LLVM::ZeroOp::create(builder, module.getLoc(), ptrTy);
    LLVM::ReturnOp::create(builder, module.getLoc(), null);
  }

  llvm::StringMap<SmallVector<LLVM::AddressOfOp>> usesOf;
  module.walk([&](LLVM::AddressOfOp use) {
    usesOf[use.getGlobalName()].push_back(use);
  });
  uint64_t offset = 0;
  for (auto [global, data] : moving) {
    offset = llvm::alignTo(
        offset, std::max<uint64_t>(kAlignment, global.getAlignment().value_or(1)));
    out.tensors.push_back({offset, data});
    for (LLVM::AddressOfOp use : usesOf.lookup(global.getSymName())) {
      builder.setInsertionPoint(use);
      Location loc = use.getLoc();
      Value baseAddress = LLVM::AddressOfOp::create(builder, loc, base);
      // The runtime stores the base once, before any run: the load is
      // invariant, and LLVM may hoist it.
      auto loaded = LLVM::LoadOp::create(builder, loc, ptrTy, baseAddress,
                                         /*alignment=*/8, /*isVolatile=*/false,
                                         /*isNonTemporal=*/false,
                                         /*isInvariant=*/true);
      Value address = loaded;
      if (offset) { // an i64 index: offsets pass 2 GB in large models
        Value bytes = LLVM::ConstantOp::create(
            builder, loc, builder.getI64Type(), static_cast<int64_t>(offset));
        address = LLVM::GEPOp::create(builder, loc, ptrTy, builder.getI8Type(),
                                      loaded, ValueRange{bytes},
                                      LLVM::GEPNoWrapFlags::inbounds);
      }
      use.replaceAllUsesWith(address);
      use.erase();
    }
    offset += data.getRawData().size();
    global.erase();
  }
  out.size = offset;
}

LogicalResult mlir::tessel::writeWeightsFile(const ExternalWeights &weights,
                                             llvm::StringRef path,
                                             WeightsFileInfo &info,
                                             std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream file(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write the weights file '" + path.str() +
            "': " + ec.message();
    return failure();
  }
  // Streamed out through one chunk-sized buffer, each chunk hashed as it
  // goes (tessel_weights_checksum): no second copy of the weights, and no
  // reading the file back.
  std::vector<char> chunk;
  chunk.reserve(TESSEL_WEIGHTS_CHUNK);
  std::vector<uint64_t> hashes;
  auto flush = [&] {
    hashes.emplace_back();
    tessel_weights_chunk_hash(chunk.data(), chunk.size(), &hashes.back());
    file.write(chunk.data(), chunk.size());
    info.size += chunk.size();
    chunk.clear();
  };
  auto append = [&](const char *data, uint64_t size) {
    while (size) {
      uint64_t n = std::min<uint64_t>(size, TESSEL_WEIGHTS_CHUNK - chunk.size());
      if (data) {
        chunk.insert(chunk.end(), data, data + n);
        data += n;
      } else {
        chunk.resize(chunk.size() + n, 0);
      }
      size -= n;
      if (chunk.size() == TESSEL_WEIGHTS_CHUNK)
        flush();
    }
  };
  info.size = 0;
  uint64_t written = 0;
  for (const ExternalWeights::Tensor &tensor : weights.tensors) {
    append(nullptr, tensor.offset - written); // alignment padding
    ArrayRef<char> bytes = tensor.data.getRawData();
    append(bytes.data(), bytes.size());
    written = tensor.offset + bytes.size();
  }
  if (!chunk.empty())
    flush();
  info.checksum = tessel_xxh64(hashes.data(), hashes.size() * sizeof(uint64_t));
  file.close();
  if (file.has_error()) {
    error = "cannot write the weights file '" + path.str() +
            "': " + file.error().message();
    file.clear_error();
    return failure();
  }
  return success();
}
