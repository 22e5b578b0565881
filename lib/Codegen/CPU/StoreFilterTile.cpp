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
  int64_t count = k.tile.positions;
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
  if (k.rowStores || k.planeStores) {
    // Each vector of filters x the tile's positions, transposed in
    // registers: one store of the positions per filter.
    Value position =
        k.planeStores
            ? arith::AddIOp::create(b, loc, e.mul(oh[0], conv.outWidth), ow[0])
                  .getResult()
            : Value();
    for (int64_t v = 0; v < filterVectors; ++v) {
      SmallVector<Value> rows;
      for (int64_t j = 0; j < count; ++j)
        rows.push_back(results[j * filterVectors + v]);
      SmallVector<Value> columns = transposeBlocks(b, loc, rows, k.lanes);
      for (auto [f, column] : llvm::enumerate(columns)) {
        Value filter = e.add(f0, v * k.lanes + f);
        SmallVector<Value> at =
            k.planeStores ? SmallVector<Value>{n, filter, position}
                          : SmallVector<Value>{n, filter, oh[0], ow[0]};
        out = vector::TransferWriteOp::create(b, loc, column, out, at, inBounds)
                  .getResult();
      }
    }
    return out;
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
