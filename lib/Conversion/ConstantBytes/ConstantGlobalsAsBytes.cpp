//===- ConstantGlobalsAsBytes.cpp - Weights as flat arrays of bytes -------===//
//
// A weight global in the LLVM dialect keeps its memref's nested array type.
// Translated, every innermost row becomes an LLVM constant of its own: a
// ViT-B/32 (352 MB of weights, most packed in panels of 8 or 16 floats) had
// millions, and its compile spent more time hashing, visiting, destroying
// and emitting them element by element than optimising its code. One
// `!llvm.array<N x i8>` with the same bytes is one constant, which the
// object writer copies out in one piece.
//
// The bytes do not change: MLIR holds dense data in the host's byte order,
// and the translation copies it as is into LLVM's constants in either form.
//
//===----------------------------------------------------------------------===//

#include "tessel/Conversion/ConstantData.h"
#include "tessel/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELCONSTANTGLOBALSASBYTESPASS
#include "tessel/Conversion/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

/// The alignment LLVM gives a global of 16 bytes or more that names none
/// (DataLayout::getPreferredAlign): an array of bytes keeps what an array of
/// its elements had.
constexpr uint64_t kMinAlignment = 16;

/// The data `global` is flattened with, or null when it keeps its type.
DenseElementsAttr flattenable(LLVM::GlobalOp global, uint64_t minBytes) {
  DenseElementsAttr data = tessel::getConstantBytes(global);
  if (!data || (data.getElementType().isInteger(8) &&
                data.getType().getRank() == 1)) // already bytes
    return nullptr;
  if (data.getRawData().size() < std::max<uint64_t>(minBytes, kMinAlignment))
    return nullptr;
  return data;
}

struct ConstantGlobalsAsBytesPass
    : tessel::impl::TesselConstantGlobalsAsBytesPassBase<
          ConstantGlobalsAsBytesPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Type byte = IntegerType::get(ctx, 8);
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      DenseElementsAttr data = flattenable(global, minBytes);
      if (!data)
        continue;
      ArrayRef<char> raw = data.getRawData();
      auto bytes =
          RankedTensorType::get({static_cast<int64_t>(raw.size())}, byte);
      global.setValueAttr(DenseElementsAttr::getFromRawBuffer(bytes, raw));
      global.setGlobalType(LLVM::LLVMArrayType::get(byte, raw.size()));
      global.setAlignment(
          std::max(global.getAlignment().value_or(0), kMinAlignment));
    }
  }
};

} // namespace
