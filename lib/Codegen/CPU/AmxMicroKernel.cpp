//===- AmxMicroKernel.cpp - i8 and bf16 products on AMX tiles -------------===//
//
// AMX-INT8 (Sapphire Rapids and later): `tdpb[su][su]d` multiplies a tile of
// 16 rows x 64 bytes of the left-hand side by one of 16 rows (groups of 4
// reduction steps) x 16 columns x 4 bytes of the right-hand side and adds
// into 16 x 16 i32 accumulators, 16 x 16 x 64 multiply-adds per
// instruction, any signedness of either side. AMX-BF16's `tdpbf16ps` does
// the same with bf16 pairs (groups of 2) into f32 accumulators, 16 x 16 x
// 32 multiply-adds per instruction; both kernels are this one emitter. The
// register block is 2 x 2 tiles where the product allows (4 accumulators,
// 2 left- and 2 right-hand tiles: all 8 tile registers), and the kernel
// walks the whole reduction 64 bytes a step with the accumulators carried
// in tile registers; constant weights are read from panels of 16 columns
// [N/16, K/4, 64] (bf16: [N/16, K/2, 32]), each right-hand tile 1 KiB of
// contiguous bytes (../shared/reference/amx-recipe: 45-55% of the AMX
// peak, 2.2-4x vpdpbusd's).
//
// The amx ops read and write memory: the tile's tensors are read through
// `bufferization.to_buffer` (read-only, any layout: no copy) flattened to
// one dimension with their strides, which bufferization resolves; the
// accumulators are stored to a buffer of the sums (in the workspace after
// tessel-plan-memory) and written back to the output tensor as vectors, as
// the VNNI kernel writes its accumulators, so fused epilogues read them
// alike.
//
//===----------------------------------------------------------------------===//

#include "GroupedOperands.h"

#include "tessel/Codegen/CPU/AmxTiles.h"
#include "tessel/Codegen/CPU/MicroKernel.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

using amx_tiles::selectTileRows;
constexpr int64_t kTileRows = amx_tiles::kRows;
constexpr int64_t kTileBytes = amx_tiles::kRowBytes;
constexpr int64_t kTileColumns = amx_tiles::kColumns;
constexpr int64_t kTileRegisters = amx_tiles::kRegisters;

/// A tensor's buffer as one dimension from its first element, and the
/// strides (in elements) of its dimensions.
struct FlatView {
  Value flat;
  SmallVector<Value> strides;
};

FlatView flatten(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  // Any layout: bufferization casts the buffer it assigns to this type
  // without copying it.
  auto anyLayout = StridedLayoutAttr::get(
      ctx, ShapedType::kDynamic,
      SmallVector<int64_t>(rank, ShapedType::kDynamic));
  auto bufferType =
      MemRefType::get(type.getShape(), type.getElementType(), anyLayout);
  Value buffer = bufferization::ToBufferOp::create(b, loc, bufferType, tensor,
                                                   /*read_only=*/true);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  // Tiles step through rows with their own stride; the innermost elements
  // of a row are contiguous in every buffer Tessel bufferizes (row-major
  // allocations and their subviews).
  auto flatType = MemRefType::get(
      {type.getNumElements()}, type.getElementType(),
      StridedLayoutAttr::get(ctx, ShapedType::kDynamic, {1}));
  Value flat = memref::ReinterpretCastOp::create(
      b, loc, flatType, metadata.getBaseBuffer(), metadata.getOffset(),
      ArrayRef<OpFoldResult>{b.getIndexAttr(type.getNumElements())},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  FlatView view{flat, {}};
  for (Value stride : metadata.getStrides())
    view.strides.push_back(stride);
  return view;
}

/// Whether `value`, the output tile a product starts from, is zero: a fill
/// or splat of zero (integer or +0.0), or a slice of one, also through the
/// loops that tile the product (each output tile is read once, before it
/// is written).
bool isZero(Value value) {
  for (int depth = 0; depth < 8; ++depth) {
    if (matchPattern(value, m_Zero()) || matchPattern(value, m_PosZeroFloat()))
      return true;
    if (auto fill = value.getDefiningOp<linalg::FillOp>())
      return matchPattern(fill.getInputs()[0], m_Zero()) ||
             matchPattern(fill.getInputs()[0], m_PosZeroFloat());
    if (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>()) {
      value = slice.getSource();
      continue;
    }
    auto arg = dyn_cast<BlockArgument>(value);
    auto loop =
        arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : nullptr;
    if (!loop || arg.getArgNumber() == 0)
      return false;
    value = loop.getInitArgs()[arg.getArgNumber() - 1];
  }
  return false;
}

/// `out` (a zero tile, isZero) without its zero fill, whose zeros the
/// accumulators start from and the tile's writes cover: the fill's
/// destination (or the same slice of it) instead of the fill's result; or,
/// when loops that tile the product carry the fill, with their outermost
/// init set to its destination (each iteration reads its own tile only
/// before writing it). The fill, left without readers, is erased later.
Value skipZeroFill(RewriterBase &rewriter, Value out) {
  if (auto fill = out.getDefiningOp<linalg::FillOp>())
    return fill.getOutputs()[0];
  auto slice = out.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice)
    return out;
  if (auto fill = slice.getSource().getDefiningOp<linalg::FillOp>())
    return tensor::ExtractSliceOp::create(
        rewriter, slice.getLoc(), slice.getResultType(), fill.getOutputs()[0],
        slice.getMixedOffsets(), slice.getMixedSizes(),
        slice.getMixedStrides());
  OpOperand *init = nullptr;
  Value carried = slice.getSource();
  while (auto arg = dyn_cast<BlockArgument>(carried)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() == 0)
      return out;
    // Read by slices, written by slice inserts, handed to inner loops.
    for (OpOperand &use : arg.getUses()) {
      Operation *user = use.getOwner();
      auto insert = dyn_cast<tensor::InsertSliceOp>(user);
      if (!isa<tensor::ExtractSliceOp, scf::ForOp>(user) &&
          !(insert && insert.getDest() == arg))
        return out;
    }
    init = &loop.getInitArgsMutable()[arg.getArgNumber() - 1];
    carried = init->get();
  }
  auto fill = carried.getDefiningOp<linalg::FillOp>();
  if (!init || !fill || !carried.hasOneUse())
    return out;
  rewriter.modifyOpInPlace(init->getOwner(),
                           [&] { init->set(fill.getOutputs()[0]); });
  return out;
}

/// AMX-INT8 (`kind` AmxInt8: i8 x i8 -> i32, groups of 4) or AMX-BF16
/// (AmxBf16: bf16 x bf16 -> f32, pairs).
class AmxMicroKernel final : public MicroKernel {
public:
  explicit AmxMicroKernel(MicroKernelKind kind) : MicroKernel(kind) {}

  bool isInteger() const { return getKind() == MicroKernelKind::AmxInt8; }
  int64_t getReductionGroup() const override { return isInteger() ? 4 : 2; }
  /// Bytes of one operand element.
  int64_t elementBytes() const { return isInteger() ? 1 : 2; }

  /// A tile register cannot multiply one vector: a single step runs on the
  /// vector kernel of the same types (no code generator asks: convolutions
  /// take group-1 kernels, and products whole tiles).
  Value emitMultiplyAccumulate(OpBuilder &b, Location loc, Value lhs,
                               Value rhs, Value acc) const override {
    return getMicroKernel(isInteger() ? MicroKernelKind::I8Vnni
                                      : MicroKernelKind::Bf16Dot)
        ->emitMultiplyAccumulate(b, loc, lhs, rhs, acc);
  }

  /// Whole tiles of packed weights (amx_tiles::coverProduct): columns in
  /// 16s, the reduction in 64-byte rows (64 i8, 32 bf16), rows in tiles of
  /// selectTileRows.
  bool coversProduct(const ProductExtent &extent) const override {
    return extent.packedRhs &&
           amx_tiles::coverProduct(extent.rows, extent.columns,
                                   extent.reduction, elementBytes());
  }

  /// 2 x 2 tiles where the product has them, else 2 x 1 or 1 x 2 or 1 x 1.
  std::optional<std::pair<int64_t, int64_t>>
  getProductTile(const ProductExtent &extent) const override {
    int64_t tileRows = selectTileRows(extent.rows);
    int64_t rows =
        extent.rows % (2 * tileRows) == 0 ? 2 * tileRows : tileRows;
    int64_t columns = extent.columns % (2 * kTileColumns) == 0
                          ? 2 * kTileColumns
                          : kTileColumns;
    return std::make_pair(rows, columns);
  }

  LogicalResult emitProductTile(RewriterBase &rewriter,
                                linalg::LinalgOp tile) const override;
};

LogicalResult
AmxMicroKernel::emitProductTile(RewriterBase &rewriter,
                                linalg::LinalgOp tile) const {
  // i8: the signedness of each side (the instruction's); bf16: none.
  std::optional<std::pair<bool, bool>> signs;
  if (isInteger()) {
    signs = cpu::int8Signedness(tile);
    if (!signs)
      return failure();
  } else if (!cpu::isBf16Product(tile)) {
    return failure();
  }
  int64_t group = getReductionGroup();
  if (!tile.hasPureTensorSemantics() || tile.hasDynamicShape() ||
      tile.getNumLoops() != 4)
    return failure();
  MLIRContext *ctx = tile.getContext();
  AffineExpr m, n, k0, k1;
  bindDims(ctx, m, n, k0, k1);
  SmallVector<AffineMap> grouped = {AffineMap::get(4, 0, {m, k0, k1}, ctx),
                                    AffineMap::get(4, 0, {k0, n, k1}, ctx),
                                    AffineMap::get(4, 0, {m, n}, ctx)};
  SmallVector<int64_t> ranges = tile.getStaticLoopRanges();
  if (tile.getIndexingMapsArray() != grouped || ranges[3] != group)
    return failure();
  // Rows in one tile of up to 16, or two of up to 16 each.
  int64_t rows = ranges[0], columns = ranges[1], groups = ranges[2];
  int64_t tileRows = rows <= kTileRows ? 1 : 2;
  int64_t rowsPerTile = rows / tileRows;
  int64_t tileColumns = columns / kTileColumns;
  // 64 bytes of the reduction a step: 16 groups (of 4 i8 or 2 bf16).
  int64_t stepGroups = kTileBytes / (group * elementBytes());
  if (rows % tileRows != 0 || rowsPerTile > kTileRows ||
      columns % kTileColumns != 0 || groups % stepGroups != 0 ||
      tileRows * tileColumns + tileRows + tileColumns > kTileRegisters)
    return failure();

  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  Value lhs = tile.getDpsInputs()[0], rhs = tile.getDpsInputs()[1];
  Value out = tile.getDpsInits()[0];
  Type element = isInteger() ? Type(rewriter.getI8Type())
                             : Type(rewriter.getBF16Type());
  Type sum = isInteger() ? Type(rewriter.getI32Type())
                         : Type(rewriter.getF32Type());
  int64_t rowElements = kTileBytes / elementBytes();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  // The right-hand tile is 16 groups of 4 bytes always; the left-hand and
  // accumulator tiles have the tile's rows.
  auto lhsTile = amx::TileType::get({rowsPerTile, rowElements}, element);
  auto rhsTile = amx::TileType::get({kTileRows, rowElements}, element);
  auto accumulatorTile =
      amx::TileType::get({rowsPerTile, kTileColumns}, sum);
  auto rowVector = VectorType::get({kTileColumns}, sum);
  Value zero32 = arith::ConstantOp::create(rewriter, loc, sum,
                                           rewriter.getZeroAttr(sum));
  SmallVector<bool> inBounds = {true};

  // The tile's weights: its panels of 16 columns [NR/16, K/4, 64] (each
  // right-hand tile 1 KiB of contiguous bytes), else its slice [K/4, NR,
  // 4] of the packed weights.
  Value weights = cpu::panelRuns(rewriter, loc, rhs, kTileColumns);
  bool panel = weights != nullptr;
  if (!panel)
    weights = rhs;
  FlatView a = flatten(rewriter, loc, lhs);
  FlatView b = flatten(rewriter, loc, weights);
  // Between two right-hand tiles, and between two of a tile's rows.
  Value tileStride = panel ? b.strides[0]
                           : arith::MulIOp::create(rewriter, loc,
                                                   b.strides[1],
                                                   index(kTileColumns))
                                 .getResult();
  Value groupStride = panel ? b.strides[1] : b.strides[0];
  auto scaled = [&](OpBuilder &builder, int64_t by, Value stride) {
    return arith::MulIOp::create(
               builder, loc, stride,
               arith::ConstantIndexOp::create(builder, loc, by))
        .getResult();
  };

  // The accumulators: zero, or the output tile's values.
  SmallVector<Value> accumulators;
  if (isZero(out)) {
    // The accumulators start from zero themselves: the tile's fill (fused
    // with the product into its loops) need not write its zeros first.
    out = skipZeroFill(rewriter, out);
    for (int64_t t = 0; t < tileRows * tileColumns; ++t)
      accumulators.push_back(
          amx::TileZeroOp::create(rewriter, loc, accumulatorTile));
  } else {
    // Loaded from the output tile's buffer (read before the tile's writes
    // into it).
    FlatView c = flatten(rewriter, loc, out);
    for (int64_t i = 0; i < tileRows; ++i)
      for (int64_t j = 0; j < tileColumns; ++j) {
        Value at = arith::AddIOp::create(
            rewriter, loc, scaled(rewriter, i * rowsPerTile, c.strides[0]),
            scaled(rewriter, j * kTileColumns, c.strides[1]));
        accumulators.push_back(amx::TileLoadOp::create(
            rewriter, loc, accumulatorTile, c.flat, ValueRange{at},
            c.strides[0]));
      }
  }

  // The reduction, 64 bytes (16 groups) a step.
  auto loop = scf::ForOp::create(
      rewriter, loc, index(0), index(groups), index(stepGroups), accumulators,
      [&](OpBuilder &builder, Location, Value g, ValueRange carried) {
        Value lhsColumn = arith::MulIOp::create(builder, loc, g, a.strides[1]);
        Value rhsRow = arith::MulIOp::create(builder, loc, g, groupStride);
        SmallVector<Value> lhsTiles, rhsTiles;
        for (int64_t i = 0; i < tileRows; ++i) {
          Value at = arith::AddIOp::create(
              builder, loc,
              scaled(builder, i * rowsPerTile, a.strides[0]),
              lhsColumn);
          lhsTiles.push_back(amx::TileLoadOp::create(
              builder, loc, lhsTile, a.flat, ValueRange{at},
              a.strides[0]));
        }
        for (int64_t j = 0; j < tileColumns; ++j) {
          Value at = arith::AddIOp::create(
              builder, loc, scaled(builder, j, tileStride), rhsRow);
          rhsTiles.push_back(amx::TileLoadOp::create(
              builder, loc, rhsTile, b.flat, ValueRange{at}, groupStride));
        }
        SmallVector<Value> next;
        for (int64_t i = 0; i < tileRows; ++i)
          for (int64_t j = 0; j < tileColumns; ++j)
            next.push_back(
                isInteger()
                    ? amx::TileMulIOp::create(
                          builder, loc, accumulatorTile, lhsTiles[i],
                          rhsTiles[j], carried[i * tileColumns + j],
                          /*isZextLhs=*/!signs->first,
                          /*isZextRhs=*/!signs->second)
                          .getResult()
                    : amx::TileMulFOp::create(builder, loc, accumulatorTile,
                                              lhsTiles[i], rhsTiles[j],
                                              carried[i * tileColumns + j])
                          .getResult());
        scf::YieldOp::create(builder, loc, next);
      });

  // The accumulators to vectors (a row of 16 columns each) through a
  // buffer, then into the output tile, row by row. The buffer is allocated
  // per tile here; tessel-plan-memory gives each iteration of the parallel
  // loop around the tile its own slice of one buffer in the workspace (or
  // hoists it out of sequential loops): no allocation per tile. (A stack
  // buffer in an alloca scope returns every row at once: LLVM read all of
  // them before the first write and spilled half of them.)
  // Rows of 64 bytes, each on its own cache line.
  Value block = memref::AllocOp::create(
      rewriter, loc, MemRefType::get({rows, columns}, sum),
      /*alignment=*/rewriter.getI64IntegerAttr(64));
  for (int64_t i = 0; i < tileRows; ++i)
    for (int64_t j = 0; j < tileColumns; ++j)
      amx::TileStoreOp::create(
          rewriter, loc, block,
          ValueRange{index(i * rowsPerTile), index(j * kTileColumns)},
          loop.getResult(i * tileColumns + j));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < tileColumns; ++j) {
      SmallVector<Value, 2> at = {index(r), index(j * kTileColumns)};
      Value row = vector::TransferReadOp::create(rewriter, loc, rowVector,
                                                 block, at, zero32, inBounds);
      out = vector::TransferWriteOp::create(rewriter, loc, row, out, at,
                                            inBounds)
                .getResult();
    }
  rewriter.replaceOp(tile, out);
  return success();
}

} // namespace

const MicroKernel *mlir::tessel::cpu::getAmxInt8MicroKernel() {
  static const AmxMicroKernel kernel(MicroKernelKind::AmxInt8);
  return &kernel;
}

const MicroKernel *mlir::tessel::cpu::getAmxBf16MicroKernel() {
  static const AmxMicroKernel kernel(MicroKernelKind::AmxBf16);
  return &kernel;
}
