//===- MicroKernels.cpp - The micro-kernels Tessel emits ------------------===//
//
// f32 FMA: a `vector.fma` per step, and a product's register tile
// vectorized into one `vector.contract` that tessel-lower-vectors turns into
// outer products, then FMAs (a multiply and an add without FMA3).
//
// i8 VNNI: `vpdpbusd` sums four u8 x s8 products into each i32 lane. Each
// row's 4 left-hand bytes are broadcast to every lane; each lane needs its
// column's 4 right-hand bytes together: weights packed at compile time as
// [K/4, N, 4] (packGroupedWeights; the tile then spans the whole reduction
// and the kernel loops over its groups; with more columns than the tile's
// it reads them stored panel by panel, [N/NR, K/4, NR * 4], one contiguous
// run per tile), else 4 rows interleaved in registers at every group. A signed left-hand side is made unsigned by
// adding 128 (flipping the top bit), and 128 times the right-hand values,
// summed in one more accumulator per column vector, is subtracted once.
// The same kernel writes AVX-VNNI's VEX `vpdpbusd` on 256-bit targets, and
// on AVX2 without VNNI (i8 madd) the same sums as two `vpmaddwd` of the
// even and odd bytes widened to 16 bits, and two adds.
//
// bf16 (AVX512-BF16): `vdpbf16ps` sums two bf16 x bf16 products into each
// f32 lane, on the same register tiles (groups of 2: weights packed
// [K/2, N, 2], each row's pair broadcast as one 32-bit word).
//
// Widened FMA: f16 or bf16 operands extended to f32 in registers, then the
// f32 kernel (16-bit storage at FP32's rate).
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/MicroKernel.h"

#include "GroupedOperands.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <vector>

using namespace mlir;
using namespace mlir::tessel;
using mlir::tessel::cpu::int8Signedness;
using mlir::tessel::cpu::panelRuns;

namespace {

class F32FmaMicroKernel final : public MicroKernel {
public:
  F32FmaMicroKernel() : MicroKernel(MicroKernelKind::F32Fma) {}

  int64_t getReductionGroup() const override { return 1; }

  Value emitMultiplyAccumulate(OpBuilder &b, Location loc, Value lhs,
                               Value rhs, Value acc) const override {
    return vector::FMAOp::create(b, loc, lhs, rhs, acc);
  }

  LogicalResult emitProductTile(RewriterBase &rewriter,
                                linalg::LinalgOp tile) const override {
    rewriter.setInsertionPoint(tile);
    FailureOr<linalg::VectorizationResult> vectorized = linalg::vectorize(
        rewriter, tile, /*inputVectorSizes=*/{},
        /*inputScalableVecDims=*/{}, /*vectorizeNDExtract=*/false,
        /*flatten1DDepthwiseConv=*/false,
        /*assumeDynamicDimsMatchVecSizes=*/false,
        /*createNamedContraction=*/true);
    if (failed(vectorized))
      return failure();
    rewriter.replaceOp(tile, vectorized->replacements);
    return success();
  }
};

/// f16 or bf16 operands extended to f32 in registers, then the f32 FMA:
/// the product's register tile vectorizes as the f32 kernel's (its
/// `vector.contract` reads the narrow values and extends them), and a step
/// extends its operands before the `vector.fma`.
class WidenedFmaMicroKernel final : public MicroKernel {
public:
  WidenedFmaMicroKernel() : MicroKernel(MicroKernelKind::WidenedFma) {}

  int64_t getReductionGroup() const override { return 1; }

  Value emitMultiplyAccumulate(OpBuilder &b, Location loc, Value lhs,
                               Value rhs, Value acc) const override {
    auto widen = [&](Value v) -> Value {
      auto type = cast<VectorType>(v.getType());
      Type accElement = getElementTypeOrSelf(acc.getType());
      if (type.getElementType() == accElement)
        return v;
      return arith::ExtFOp::create(b, loc, type.clone(accElement), v);
    };
    return vector::FMAOp::create(b, loc, widen(lhs), widen(rhs), acc);
  }

  /// As the f32 kernel; a batched tile (its batch loops of one iteration)
  /// as a matmul of its matrices first: a batched contraction of mixed
  /// element types does not lower.
  LogicalResult emitProductTile(RewriterBase &rewriter,
                                linalg::LinalgOp tile) const override;
};

LogicalResult
WidenedFmaMicroKernel::emitProductTile(RewriterBase &rewriter,
                                       linalg::LinalgOp tile) const {
  const MicroKernel *f32 = getMicroKernel(MicroKernelKind::F32Fma);
  if (tile.getNumLoops() == 3 || !tile.hasPureTensorSemantics() ||
      !cpu::isUnitBatchMatmul(tile))
    return f32->emitProductTile(rewriter, tile);
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  Value out = tile.getDpsInits()[0];
  auto matmul = linalg::MatmulOp::create(
      rewriter, loc,
      ValueRange{cpu::asMatrix(rewriter, loc, tile.getDpsInputs()[0]),
                 cpu::asMatrix(rewriter, loc, tile.getDpsInputs()[1])},
      ValueRange{cpu::asMatrix(rewriter, loc, out)});
  // Inserted into the batched output first: vectorizing the matmul
  // replaces this use by its result.
  Value result = cpu::intoBatched(rewriter, loc, matmul.getResult(0), out);
  if (failed(f32->emitProductTile(rewriter, matmul))) {
    if (Operation *insert = result.getDefiningOp(); insert != matmul)
      rewriter.eraseOp(insert);
    rewriter.eraseOp(matmul);
    return failure();
  }
  rewriter.replaceOp(tile, result);
  return success();
}

} // namespace

/// Whether the left- and right-hand sides of an i8 x i8 -> i32 product
/// extend signed: from a named op's cast, or the extensions in a generic's
/// body (`out + ext(a) * ext(b)`). None for anything else.
std::optional<std::pair<bool, bool>>
mlir::tessel::cpu::int8Signedness(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  auto elementType = [](Value v) { return getElementTypeOrSelf(v.getType()); };
  if (!elementType(op.getDpsInputs()[0]).isInteger(8) ||
      !elementType(op.getDpsInputs()[1]).isInteger(8) ||
      !elementType(op.getDpsInits()[0]).isInteger(32))
    return std::nullopt;
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation())) {
    bool isSigned = matmul.getCast() == linalg::TypeFn::cast_signed;
    return std::make_pair(isSigned, isSigned);
  }
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  // Upstream's contraction check has placed the multiply of the inputs and
  // the add into the output; besides those (a multiply-add, not an `or` of
  // `and`s), exactly one extension of each input.
  Block &body = generic.getRegion().front();
  std::optional<bool> signs[2];
  for (Operation &inner : body.without_terminator()) {
    if (isa<arith::ExtSIOp, arith::ExtUIOp>(inner)) {
      auto arg = dyn_cast<BlockArgument>(inner.getOperand(0));
      if (!arg || arg.getOwner() != &body || arg.getArgNumber() > 1 ||
          signs[arg.getArgNumber()])
        return std::nullopt;
      signs[arg.getArgNumber()] = isa<arith::ExtSIOp>(inner);
    } else if (!isa<arith::MulIOp, arith::AddIOp>(inner)) {
      return std::nullopt;
    }
  }
  if (!signs[0] || !signs[1] || body.getOperations().size() != 5)
    return std::nullopt;
  return std::make_pair(*signs[0], *signs[1]);
}

/// The rows of groups (4 bytes, 2 bf16) that a packed register tile reads,
/// `rhs` being its slice [K/g, NR, g] of the constant weights [K/g, N, g]:
/// read instead from the same weights stored panel by panel,
/// [N/NR, K/g, NR * g]
/// (one more constant, made here; the first loses its readers), so that
/// the tile's reduction walks one contiguous run instead of NR * g values
/// every N * g (with N * g bytes of 2 KiB or more, a new page every group
/// or two: the hardware prefetchers and the TLB fall behind). A 2-D slice
/// [K, NR] of weights [K, N] (the f16 kernel's) is read from panels of
/// `interleave` rows interleaved per column, [N/NR, K/i, NR * i] (i = 1:
/// the rows as they are), as the tile's [K/i, NR * i]. Null when `rhs` is
/// not such a slice.
Value mlir::tessel::cpu::panelRuns(RewriterBase &rewriter, Location loc,
                                  Value rhs, int64_t panelWidth,
                                  int64_t interleave) {
  // Through nested slices (a column block, then the tile in it): whole
  // along the groups and the bytes, their column offsets summed.
  auto sliceType = dyn_cast<RankedTensorType>(rhs.getType());
  if (!sliceType || (sliceType.getRank() != 3 && sliceType.getRank() != 2))
    return Value();
  int64_t rank = sliceType.getRank();
  SmallVector<OpFoldResult> columnOffsets;
  Value source = rhs;
  while (auto slice = source.getDefiningOp<tensor::ExtractSliceOp>()) {
    RankedTensorType from = slice.getSourceType();
    if (!slice.hasUnitStride() || from.getRank() != rank ||
        slice.getResultType().getRank() != rank ||
        slice.getResultType().getDimSize(0) != from.getDimSize(0) ||
        (rank == 3 &&
         slice.getResultType().getDimSize(2) != from.getDimSize(2)))
      return Value();
    columnOffsets.push_back(slice.getMixedOffsets()[1]);
    source = slice.getSource();
  }
  // (Interleaving rows is worth a copy even of a tile that spans every
  // column.)
  DenseElementsAttr weights;
  if ((columnOffsets.empty() && interleave == 1) ||
      !matchPattern(source, m_Constant(&weights)) || weights.isSplat())
    return Value();
  if (columnOffsets.empty())
    columnOffsets.push_back(rewriter.getIndexAttr(0));
  auto type = cast<RankedTensorType>(weights.getType());
  int64_t groups = type.getDimSize(0), columns = type.getDimSize(1),
          group = rank == 3 ? type.getDimSize(2) : 1;
  // Rows interleaved: the same copy, each group of `interleave` rows
  // transposed first ([K/i, i, N] -> [K/i, N, i]).
  std::vector<char> interleaved;
  if (rank == 2 && interleave > 1) {
    if (groups % interleave != 0)
      return Value();
    size_t bytes = type.getElementTypeBitWidth() / 8;
    ArrayRef<char> raw = weights.getRawData();
    interleaved.resize(raw.size());
    for (int64_t k = 0; k < groups; ++k)
      for (int64_t c = 0; c < columns; ++c)
        std::copy_n(raw.data() + (k * columns + c) * bytes, bytes,
                    interleaved.data() +
                        (((k / interleave) * columns + c) * interleave +
                         k % interleave) *
                            bytes);
    groups /= interleave;
    group = interleave;
  }
  int64_t tileWidth = sliceType.getDimSize(1);
  int64_t width = panelWidth ? panelWidth : tileWidth;
  if (columns % width != 0 || tileWidth % width != 0 ||
      (!panelWidth && columns == width && interleave == 1))
    return Value();
  int64_t panels = columns / width;
  ArrayRef<char> raw =
      interleaved.empty() ? weights.getRawData() : ArrayRef<char>(interleaved);
  size_t bytes = type.getElementTypeBitWidth() / 8;
  std::vector<char> panelled(raw.size());
  int64_t run = width * group;
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t g = 0; g < groups; ++g)
      std::copy_n(raw.data() + (g * columns + p * width) * group * bytes,
                  run * bytes,
                  panelled.data() + (p * groups + g) * run * bytes);
  auto panelType = RankedTensorType::get({panels, groups, run},
                                         type.getElementType());
  Value constant;
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointAfter(source.getDefiningOp());
    constant = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::getFromRawBuffer(panelType, panelled));
  }
  // The tile's panel: its first column / NR.
  Value first = getValueOrCreateConstantIndexOp(rewriter, loc,
                                                columnOffsets.front());
  for (OpFoldResult offset : ArrayRef(columnOffsets).drop_front())
    first = arith::AddIOp::create(
        rewriter, loc, first,
        getValueOrCreateConstantIndexOp(rewriter, loc, offset));
  Value panel = arith::DivUIOp::create(
      rewriter, loc, first,
      arith::ConstantIndexOp::create(rewriter, loc, width));
  OpFoldResult zero = rewriter.getIndexAttr(0), one = rewriter.getIndexAttr(1);
  int64_t tilePanels = tileWidth / width;
  Value runs = tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get({tilePanels, groups, run},
                                           type.getElementType()),
      constant, ArrayRef<OpFoldResult>{panel, zero, zero},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(tilePanels),
                             rewriter.getIndexAttr(groups),
                             rewriter.getIndexAttr(run)},
      ArrayRef<OpFoldResult>{one, one, one});
  if (panelWidth)
    return runs;
  return tensor::CollapseShapeOp::create(
      rewriter, loc, runs, SmallVector<ReassociationIndices>{{0, 1}, {2}});
}

bool mlir::tessel::cpu::isUnitBatchMatmul(linalg::LinalgOp tile) {
  if (tile.getNumDpsInputs() != 2 || tile.getNumDpsInits() != 1 ||
      tile.getNumLoops() < 3 || !linalg::isaContractionOpInterface(tile))
    return false;
  MLIRContext *ctx = tile.getContext();
  unsigned loops = tile.getNumLoops(), batch = loops - 3;
  SmallVector<int64_t> ranges = tile.getStaticLoopRanges();
  SmallVector<AffineExpr> b;
  for (unsigned i = 0; i < batch; ++i) {
    if (ranges[i] != 1)
      return false;
    b.push_back(getAffineDimExpr(i, ctx));
  }
  AffineExpr m = getAffineDimExpr(batch, ctx);
  AffineExpr n = getAffineDimExpr(batch + 1, ctx);
  AffineExpr k = getAffineDimExpr(batch + 2, ctx);
  auto map = [&](AffineExpr x, AffineExpr y, bool batched) {
    SmallVector<AffineExpr> results;
    if (batched)
      results.append(b.begin(), b.end());
    results.append({x, y});
    return AffineMap::get(loops, 0, results, ctx);
  };
  SmallVector<AffineMap> maps = tile.getIndexingMapsArray();
  return maps[0] == map(m, k, true) &&
         (maps[1] == map(k, n, true) || maps[1] == map(k, n, false)) &&
         maps[2] == map(m, n, true);
}

/// Offsets 0, sizes 1 but the last two (`type`'s), strides 1.
static void matrixSlice(OpBuilder &b, RankedTensorType type,
                        SmallVectorImpl<OpFoldResult> &offsets,
                        SmallVectorImpl<OpFoldResult> &sizes,
                        SmallVectorImpl<OpFoldResult> &strides) {
  int64_t rank = type.getRank();
  offsets.assign(rank, b.getIndexAttr(0));
  sizes.assign(rank, b.getIndexAttr(1));
  strides.assign(rank, b.getIndexAttr(1));
  sizes[rank - 2] = b.getIndexAttr(type.getDimSize(rank - 2));
  sizes[rank - 1] = b.getIndexAttr(type.getDimSize(rank - 1));
}

Value mlir::tessel::cpu::asMatrix(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == 2)
    return value;
  SmallVector<OpFoldResult> offsets, sizes, strides;
  matrixSlice(b, type, offsets, sizes, strides);
  auto matrix = RankedTensorType::get(type.getShape().take_back(2),
                                      type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, matrix, value, offsets, sizes,
                                        strides);
}

Value mlir::tessel::cpu::intoBatched(OpBuilder &b, Location loc, Value result,
                                     Value batched) {
  auto type = cast<RankedTensorType>(batched.getType());
  if (result.getType() == type)
    return result;
  SmallVector<OpFoldResult> offsets, sizes, strides;
  matrixSlice(b, type, offsets, sizes, strides);
  return tensor::InsertSliceOp::create(b, loc, result, batched, offsets, sizes,
                                       strides);
}

bool mlir::tessel::cpu::isBf16Product(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return false;
  auto elementType = [](Value v) { return getElementTypeOrSelf(v.getType()); };
  if (!elementType(op.getDpsInputs()[0]).isBF16() ||
      !elementType(op.getDpsInputs()[1]).isBF16() ||
      !elementType(op.getDpsInits()[0]).isF32())
    return false;
  if (isa<linalg::MatmulOp>(op.getOperation()))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !linalg::isaContractionOpInterface(op))
    return false;
  Block &body = generic.getRegion().front();
  int64_t extensions = 0;
  for (Operation &inner : body.without_terminator()) {
    if (auto ext = dyn_cast<arith::ExtFOp>(inner)) {
      auto arg = dyn_cast<BlockArgument>(ext.getIn());
      if (!arg || arg.getOwner() != &body || arg.getArgNumber() > 1)
        return false;
      ++extensions;
    } else if (!isa<arith::MulFOp, arith::AddFOp>(inner)) {
      return false;
    }
  }
  return extensions == 2 && body.getOperations().size() == 5;
}

namespace {

/// One x86 instruction as side-effect-free inline assembly: an
/// `llvm.call_intrinsic` has unknown memory effects, which bufferization's
/// deallocation refuses, and no upstream op is vpdpbusd or vpmaddwd.
Value emitInstruction(OpBuilder &b, Location loc, Type result,
                      ValueRange operands, StringRef assembly,
                      StringRef constraints) {
  return LLVM::InlineAsmOp::create(
             b, loc, result, operands, b.getStringAttr(assembly),
             b.getStringAttr(constraints), /*has_side_effects=*/nullptr,
             /*is_align_stack=*/nullptr, LLVM::TailCallKindAttr(),
             /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr)
      .getResult(0);
}

/// A micro-kernel that sums `group` products per accumulator lane, its
/// right-hand side's `group` values per lane together: each row's `group`
/// left-hand values (one 32-bit word) are broadcast to every lane. The
/// register tile is one of two forms: (m, n, k) over [M, K] x [K, N], one
/// group of reduction steps (the right-hand rows interleaved in registers);
/// or (m, n, k0, k1) over [M, K/g, g] x [K/g, N, g] (packGroupedWeights), the
/// whole reduction, whose loop over the groups the kernel emits itself.
class GroupedDotMicroKernel : public MicroKernel {
public:
  GroupedDotMicroKernel(MicroKernelKind kind, int64_t group)
      : MicroKernel(kind), group(group) {}

  int64_t getReductionGroup() const override { return group; }

  LogicalResult emitProductTile(RewriterBase &rewriter,
                                linalg::LinalgOp tile) const override;

protected:
  /// Whether the kernel takes `tile`'s element types and extensions; sets
  /// `signedLhs` for a left-hand side that must be made unsigned first
  /// (8-bit: vpdpbusd's u8 operand).
  virtual bool matchOperands(linalg::LinalgOp tile, bool &signedLhs) const = 0;
  /// The widest accumulator vector for `columns` (0: none fits).
  virtual int64_t selectLanes(int64_t columns) const = 0;

private:
  int64_t group;
};

class I8VnniMicroKernel final : public GroupedDotMicroKernel {
public:
  /// How the 4 u8 x s8 products per lane are summed.
  enum class Form {
    /// AVX512-VNNI `vpdpbusd` (EVEX): 512- or 256-bit vectors.
    Evex,
    /// AVX-VNNI `{vex} vpdpbusd`: 256-bit vectors, registers 0-15.
    Vex,
    /// AVX2: `vpmaddwd` on the even and on the odd bytes, widened to 16
    /// bits, and `vpaddd`; 256-bit vectors.
    Madd,
  };

  explicit I8VnniMicroKernel(Form form)
      : GroupedDotMicroKernel(form == Form::Madd ? MicroKernelKind::I8Madd
                                                 : MicroKernelKind::I8Vnni,
                              4),
        form(form) {}

  /// `acc + lhs . rhs` per i32 lane: `lhs` the u8 and `rhs` the s8 bytes,
  /// 4 per lane (vector<16xi32>, vector<64xi8> with AVX-512; 8 and 32 with
  /// 256-bit vectors).
  Value emitMultiplyAccumulate(OpBuilder &b, Location loc, Value lhs,
                               Value rhs, Value acc) const override {
    // AT&T operand order: the s8 source, the u8 source, the accumulator
    // (tied to the result).
    if (form == Form::Evex)
      return emitInstruction(b, loc, acc.getType(), {lhs, rhs, acc},
                             "vpdpbusd $2, $1, $0", "=v,v,v,0");
    if (form == Form::Vex)
      return emitInstruction(b, loc, acc.getType(), {lhs, rhs, acc},
                             "{vex} vpdpbusd $2, $1, $0", "=x,x,x,0");
    // Each i32 lane's 4 bytes as two 16-bit halves: u8 bytes 0 and 2
    // zero-extended (and 0x00ff), 1 and 3 (logical shift right by 8); s8
    // bytes 0 and 2 sign-extended (shift left, then arithmetic right, by 8),
    // 1 and 3 (arithmetic right by 8). vpmaddwd sums each lane's two 16-bit
    // products exactly (|u8 * s8| <= 32640). The splits of a row's
    // broadcast and of a column vector are the same values for every pair
    // that reads them, and LLVM computes each once.
    auto words = cast<VectorType>(acc.getType());
    auto halves = VectorType::get({2 * words.getNumElements()},
                                  b.getIntegerType(16));
    auto splat = [&](int64_t v) {
      return arith::ConstantOp::create(
                 b, loc,
                 DenseElementsAttr::get(halves, b.getIntegerAttr(
                                                    b.getIntegerType(16), v)))
          .getResult();
    };
    Value eight = splat(8);
    Value u = vector::BitCastOp::create(b, loc, halves, lhs);
    Value s = vector::BitCastOp::create(b, loc, halves, rhs);
    Value uEven = arith::AndIOp::create(b, loc, u, splat(0xff));
    Value uOdd = arith::ShRUIOp::create(b, loc, u, eight);
    Value sEven = arith::ShRSIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, s, eight), eight);
    Value sOdd = arith::ShRSIOp::create(b, loc, s, eight);
    Value even = emitInstruction(b, loc, words, {uEven, sEven},
                                 "vpmaddwd $2, $1, $0", "=x,x,x");
    Value odd = emitInstruction(b, loc, words, {uOdd, sOdd},
                                "vpmaddwd $2, $1, $0", "=x,x,x");
    return arith::AddIOp::create(
        b, loc, acc, arith::AddIOp::create(b, loc, even, odd));
  }

protected:
  bool matchOperands(linalg::LinalgOp tile, bool &signedLhs) const override {
    std::optional<std::pair<bool, bool>> signs = int8Signedness(tile);
    // The right-hand side must be signed (vpdpbusd's s8 operand).
    if (!signs || !signs->second)
      return false;
    signedLhs = signs->first;
    return true;
  }

  int64_t selectLanes(int64_t columns) const override {
    // 512-bit vectors only in the EVEX form.
    return form == Form::Evex && columns % 16 == 0 ? 16
           : columns % 8 == 0                      ? 8
                                                   : 0;
  }

private:
  Form form;
};

/// bf16 x bf16 -> f32 with AVX512-BF16 `vdpbf16ps`: each f32 lane adds the
/// products of its 2 bf16 pairs (512- or 256-bit vectors).
class Bf16DotMicroKernel final : public GroupedDotMicroKernel {
public:
  Bf16DotMicroKernel()
      : GroupedDotMicroKernel(MicroKernelKind::Bf16Dot, 2) {}

  /// `acc + lhs . rhs` per f32 lane: `lhs` and `rhs` hold 2 bf16 per lane
  /// (vector<32xbf16> with vector<16xf32>).
  Value emitMultiplyAccumulate(OpBuilder &b, Location loc, Value lhs,
                               Value rhs, Value acc) const override {
    // The pairs as 32-bit words (LLVM's inline assembly takes integer
    // vectors of any width); AT&T order as vpdpbusd.
    auto words = VectorType::get(cast<VectorType>(acc.getType()).getShape(),
                                 b.getI32Type());
    return emitInstruction(b, loc, acc.getType(),
                           {vector::BitCastOp::create(b, loc, words, lhs),
                            vector::BitCastOp::create(b, loc, words, rhs), acc},
                           "vdpbf16ps $2, $1, $0", "=v,v,v,0");
  }

protected:
  bool matchOperands(linalg::LinalgOp tile, bool &signedLhs) const override {
    signedLhs = false;
    return cpu::isBf16Product(tile);
  }

  int64_t selectLanes(int64_t columns) const override {
    return columns % 16 == 0 ? 16 : columns % 8 == 0 ? 8 : 0;
  }
};

LogicalResult
GroupedDotMicroKernel::emitProductTile(RewriterBase &rewriter,
                                       linalg::LinalgOp tile) const {
  bool signedLhs = false;
  if (!matchOperands(tile, signedLhs) || !tile.hasPureTensorSemantics() ||
      tile.hasDynamicShape())
    return failure();
  MLIRContext *ctx = tile.getContext();
  SmallVector<int64_t> ranges = tile.getStaticLoopRanges();
  bool packed;
  if (tile.getNumLoops() == 3) {
    if (tile.getIndexingMapsArray() !=
            linalg::MatmulOp::getDefaultIndexingMaps(ctx) ||
        ranges[2] != group)
      return failure();
    packed = false;
  } else if (tile.getNumLoops() == 4) {
    AffineExpr m, n, k0, k1;
    bindDims(ctx, m, n, k0, k1);
    SmallVector<AffineMap> grouped = {AffineMap::get(4, 0, {m, k0, k1}, ctx),
                                      AffineMap::get(4, 0, {k0, n, k1}, ctx),
                                      AffineMap::get(4, 0, {m, n}, ctx)};
    if (tile.getIndexingMapsArray() != grouped || ranges[3] != group)
      return failure();
    packed = true;
  } else {
    return failure();
  }
  int64_t rows = ranges[0], columns = ranges[1];
  int64_t groups = packed ? ranges[2] : 1;
  int64_t lanes = selectLanes(columns);
  if (lanes == 0)
    return failure();
  int64_t vectors = columns / lanes;

  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  Value lhs = tile.getDpsInputs()[0], rhs = tile.getDpsInputs()[1];
  Value out = tile.getDpsInits()[0];
  Type element = getElementTypeOrSelf(lhs.getType());
  Type accElement = getElementTypeOrSelf(out.getType());
  Type i32 = rewriter.getI32Type();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  // `group` operand values per accumulator lane.
  auto operands = VectorType::get({group * lanes}, element);
  auto accumulators = VectorType::get({lanes}, accElement);
  Value zeroElement = arith::ConstantOp::create(
      rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(element)));
  Value zeroAcc = arith::ConstantOp::create(
      rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(accElement)));
  SmallVector<bool> inBounds = {true};
  // Packed: each group's [NR, g] values are one contiguous run.
  Value rhsRuns;
  if (packed) {
    rhsRuns = panelRuns(rewriter, loc, rhs);
    if (!rhsRuns)
      rhsRuns = tensor::CollapseShapeOp::create(
          rewriter, loc, rhs, SmallVector<ReassociationIndices>{{0}, {1, 2}});
  }

  // The accumulators (row major, then column vector) and, for a signed
  // left-hand side, 128 x the right-hand values summed per column vector:
  // the left-hand bytes are made unsigned by adding 128 (xor 0x80), and
  // that sum is subtracted once at the end.
  Value flip, flipGroup;
  SmallVector<Value> accs;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < vectors; ++v)
      accs.push_back(vector::TransferReadOp::create(
          rewriter, loc, accumulators, out,
          ValueRange{index(r), index(v * lanes)}, zeroAcc, inBounds));
  if (signedLhs) {
    Attribute minus128 = rewriter.getIntegerAttr(element, -128);
    flip = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(operands, minus128));
    flipGroup = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(VectorType::get({group}, element), minus128));
    Value zeros = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(accumulators, rewriter.getZeroAttr(accElement)));
    for (int64_t v = 0; v < vectors; ++v)
      accs.push_back(zeros);
  }

  // One group of reduction steps, at group `g` (packed) or the tile's.
  auto step = [&](OpBuilder &b, Value g, ValueRange carried) {
    SmallVector<Value> next(carried.begin(), carried.end());
    SmallVector<Value> rhsGroups;
    if (packed) {
      for (int64_t v = 0; v < vectors; ++v)
        rhsGroups.push_back(vector::TransferReadOp::create(
            b, loc, operands, rhsRuns, ValueRange{g, index(group * lanes * v)},
            zeroElement, inBounds));
    } else {
      // The group's rows, interleaved so that each column's values are
      // together: interleave(r0, r1) for 2; for 4,
      // interleave(interleave(r0, r2), interleave(r1, r3)).
      SmallVector<Value> rowsOfRhs;
      for (int64_t r = 0; r < group; ++r)
        rowsOfRhs.push_back(vector::TransferReadOp::create(
            b, loc, VectorType::get({columns}, element), rhs,
            ValueRange{index(r), index(0)}, zeroElement, inBounds));
      for (int64_t v = 0; v < vectors; ++v) {
        SmallVector<Value> parts;
        for (Value row : rowsOfRhs)
          parts.push_back(vector::ExtractStridedSliceOp::create(
              b, loc, row, ArrayRef<int64_t>{v * lanes},
              ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1}));
        if (group == 2) {
          rhsGroups.push_back(
              vector::InterleaveOp::create(b, loc, parts[0], parts[1]));
          continue;
        }
        Value even = vector::InterleaveOp::create(b, loc, parts[0], parts[2]);
        Value odd = vector::InterleaveOp::create(b, loc, parts[1], parts[3]);
        rhsGroups.push_back(vector::InterleaveOp::create(b, loc, even, odd));
      }
    }
    if (signedLhs)
      for (int64_t v = 0; v < vectors; ++v) {
        Value &corr = next[rows * vectors + v];
        corr = emitMultiplyAccumulate(b, loc, flip, rhsGroups[v], corr);
      }
    for (int64_t r = 0; r < rows; ++r) {
      SmallVector<Value> at = {index(r)};
      if (packed)
        at.push_back(g);
      at.push_back(index(0));
      Value values = vector::TransferReadOp::create(
          b, loc, VectorType::get({group}, element), lhs, at, zeroElement,
          inBounds);
      if (signedLhs)
        values = arith::XOrIOp::create(b, loc, values, flipGroup);
      // The row's group as one 32-bit word, broadcast to every lane.
      Value word = vector::ExtractOp::create(
          b, loc,
          vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), values),
          ArrayRef<int64_t>{0});
      Value lhsGroup = vector::BitCastOp::create(
          b, loc, operands,
          vector::BroadcastOp::create(b, loc, VectorType::get({lanes}, i32),
                                      word));
      for (int64_t v = 0; v < vectors; ++v) {
        Value &acc = next[r * vectors + v];
        acc = emitMultiplyAccumulate(b, loc, lhsGroup, rhsGroups[v], acc);
      }
    }
    return next;
  };
  if (packed) {
    auto loop = scf::ForOp::create(
        rewriter, loc, index(0), index(groups), index(1), accs,
        [&](OpBuilder &b, Location, Value g, ValueRange carried) {
          scf::YieldOp::create(b, loc, step(b, g, carried));
        });
    accs.assign(loop.getResults().begin(), loop.getResults().end());
  } else {
    accs = step(rewriter, Value(), accs);
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < vectors; ++v) {
      Value acc = accs[r * vectors + v];
      if (signedLhs)
        acc = arith::SubIOp::create(rewriter, loc, acc,
                                    accs[rows * vectors + v]);
      out = vector::TransferWriteOp::create(
                rewriter, loc, acc, out, ValueRange{index(r), index(v * lanes)},
                inBounds)
                .getResult();
    }
  rewriter.replaceOp(tile, out);
  return success();
}

} // namespace

const MicroKernel *mlir::tessel::getMicroKernel(MicroKernelKind kind) {
  static const F32FmaMicroKernel f32Fma;
  static const I8VnniMicroKernel i8Vnni(I8VnniMicroKernel::Form::Evex);
  static const I8VnniMicroKernel i8Madd(I8VnniMicroKernel::Form::Madd);
  static const Bf16DotMicroKernel bf16Dot;
  static const WidenedFmaMicroKernel widenedFma;
  switch (kind) {
  case MicroKernelKind::F32Fma:
    return &f32Fma;
  case MicroKernelKind::I8Vnni:
    return &i8Vnni;
  case MicroKernelKind::I8Madd:
    return &i8Madd;
  case MicroKernelKind::Bf16Dot:
    return &bf16Dot;
  case MicroKernelKind::AmxInt8:
    return cpu::getAmxInt8MicroKernel();
  case MicroKernelKind::AmxBf16:
    return cpu::getAmxBf16MicroKernel();
  case MicroKernelKind::WidenedFma:
    return &widenedFma;
  case MicroKernelKind::F16Fma:
    return cpu::getF16FmaMicroKernel();
  case MicroKernelKind::None:
    return nullptr;
  }
  llvm_unreachable("unknown micro-kernel kind");
}

/// The emitter of `kind` for `target`'s form of it.
static const MicroKernel *getMicroKernelFor(const CpuTargetInfo &target,
                                            MicroKernelKind kind) {
  // AVX-VNNI alone: vpdpbusd's VEX form.
  static const I8VnniMicroKernel i8AvxVnni(I8VnniMicroKernel::Form::Vex);
  if (kind == MicroKernelKind::I8Vnni && !target.avx512Vnni)
    return &i8AvxVnni;
  return getMicroKernel(kind);
}

const MicroKernel *mlir::tessel::getMicroKernel(const CpuTargetInfo &target,
                                                Type lhs, Type rhs, Type acc) {
  return getMicroKernelFor(target,
                           selectMicroKernel(target, lhs, rhs, acc).emitted);
}

const MicroKernel *mlir::tessel::getProductMicroKernel(
    const CpuTargetInfo &target, Type lhs, Type rhs, Type acc,
    const ProductExtent &extent) {
  for (MicroKernelKind kind :
       selectMicroKernel(target, lhs, rhs, acc).emittable)
    if (const MicroKernel *kernel = getMicroKernelFor(target, kind);
        kernel && kernel->coversProduct(extent))
      return kernel;
  return nullptr;
}

bool mlir::tessel::isMicroKernelImplemented(MicroKernelKind kind) {
  return getMicroKernel(kind) != nullptr;
}
