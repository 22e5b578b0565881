//===- StoreFilterTile.cpp - The over-filters epilogue and stores ---------===//
//
// The last step of the convolution kernel vectorized over filters: the
// fused epilogue run on a tile's finished accumulators, and their stores,
// either along the filters or, transposed in registers, along the tile's
// row (or the output's plane).
//
//===----------------------------------------------------------------------===//

#include "ConvolutionOverFilters.h"
#include "TransposeInRegisters.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tessel::cpu;

Value mlir::tessel::cpu::readAlongFilters(ConvLoopEmitter &e,
                                          const FilterKernel &k,
                                          const FilterTileSite &site,
                                          Value tensor, int64_t j, int64_t v) {
  OpBuilder &b = e.b;
  SmallVector<bool> inBounds = {true};
  return vector::TransferReadOp::create(
      b, e.loc, k.vecType, tensor,
      k.conv.at(site.n, e.add(site.f0, v * k.lanes), site.oh[j], site.ow[j]),
      k.alongFilters, e.pad(), /*mask=*/Value(), b.getBoolArrayAttr(inBounds));
}

Value mlir::tessel::cpu::storeFilterTile(ConvLoopEmitter &e,
                                         const FilterKernel &k,
                                         const FilterTileSite &site,
                                         ArrayRef<Value> summed, Value out) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  const Conv2D &conv = k.conv;
  int64_t filterVectors = k.tile.filterVectors;
  int64_t count = site.count(k.tile);
  SmallVector<bool> inBounds = {true};
  Value n = site.n, f0 = site.f0;
  ArrayRef<Value> oh = site.oh, ow = site.ow;

  SmallVector<Value> results;
  for (int64_t j = 0; j < count; ++j)
    for (int64_t v = 0; v < filterVectors; ++v) {
      Value value = summed[j * filterVectors + v];
      if (k.epilogue)
        value = applyEpilogue(b, loc, *k.epilogue, value, [&](Value tensor) {
          return readAlongFilters(e, k, site, tensor, j, v);
        });
      results.push_back(value);
    }
  // The whole tile is one write into `out`, [filters x positions] or
  // [positions x filters], where its positions are consecutive: before
  // bufferization, each write of a chain on one tensor costs its analysis
  // time against all the others (with one write per vector, ResNet-18's
  // padded convolutions took 160 s to bufferize); tessel-lower-vectors
  // unrolls it into the vector stores after.
  auto zerosOf = [&](VectorType type) -> Value {
    return arith::ConstantOp::create(
        e.entry, loc, type,
        DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
  };
  auto writeTile = [&](SmallVector<Value> vectors, ArrayRef<Value> at,
                       AffineMap map) {
    auto vecType = cast<VectorType>(vectors.front().getType());
    auto tileType = VectorType::get(
        {int64_t(vectors.size()), vecType.getNumElements()},
        vecType.getElementType());
    Value tile = zerosOf(tileType);
    for (auto [i, vector] : llvm::enumerate(vectors))
      tile = vector::InsertOp::create(b, loc, vector, tile, int64_t(i));
    return vector::TransferWriteOp::create(
               b, loc, tile, out, at, AffineMapAttr::get(map),
               b.getBoolArrayAttr({true, true}))
        .getResult();
  };
  MLIRContext *ctx = b.getContext();
  if (k.rowStores || k.planeStores) {
    // Each vector of filters x the tile's positions, transposed in
    // registers: one row of positions per filter.
    SmallVector<Value> columns;
    for (int64_t v = 0; v < filterVectors; ++v) {
      SmallVector<Value> rows;
      for (int64_t j = 0; j < count; ++j)
        rows.push_back(results[j * filterVectors + v]);
      llvm::append_range(columns, transposeBlocks(b, loc, rows, k.lanes));
    }
    if (k.planeStores) {
      Value position =
          arith::AddIOp::create(b, loc, e.mul(oh[0], conv.outWidth), ow[0]);
      return writeTile(columns, {n, f0, position},
                       AffineMap::getMinorIdentityMap(3, 2, ctx));
    }
    return writeTile(columns, {n, f0, oh[0], ow[0]},
                     AffineMap::get(4, 0,
                                    {getAffineDimExpr(1, ctx),
                                     getAffineDimExpr(3, ctx)},
                                    ctx));
  }
  if (conv.channelsLast && k.tile.rowSegment) {
    // Channels last, the positions of a row segment x the filters are
    // contiguous [columns, filters]: one row of the block's filters per
    // position.
    auto rowType = VectorType::get({k.block}, k.vecType.getElementType());
    SmallVector<Value> rows;
    for (int64_t j = 0; j < count; ++j) {
      Value row = results[j * filterVectors];
      if (filterVectors > 1) {
        row = zerosOf(rowType);
        for (int64_t v = 0; v < filterVectors; ++v)
          row = vector::InsertStridedSliceOp::create(
              b, loc, results[j * filterVectors + v], row,
              ArrayRef<int64_t>{v * k.lanes}, ArrayRef<int64_t>{1});
      }
      rows.push_back(row);
    }
    return writeTile(rows, conv.at(n, f0, oh[0], ow[0]),
                     AffineMap::getMinorIdentityMap(4, 2, ctx));
  }
  for (int64_t j = 0; j < count; ++j)
    for (int64_t v = 0; v < filterVectors; ++v)
      out = vector::TransferWriteOp::create(
                b, loc, results[j * filterVectors + v], out,
                conv.at(n, e.add(f0, v * k.lanes), oh[j], ow[j]),
                k.alongFilters, b.getBoolArrayAttr(inBounds))
                .getResult();
  return out;
}
