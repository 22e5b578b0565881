//===- PlanProductTilesTest.cpp - The matrix-product tile planner ---------===//
//
// planProductTiles on plain shapes: the register tile, its column lanes and
// the cache blocks tessel-vectorize-contractions gives products of each
// kind.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/TargetInfo.h"
#include "tessel/Codegen/CPU/Transforms.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tessel;

namespace {

ProductShape shape(std::optional<int64_t> rows, int64_t columns,
                   std::optional<int64_t> reduction) {
  ProductShape shape;
  shape.rows = rows;
  shape.columns = columns;
  shape.reduction = reduction;
  return shape;
}

CpuTargetInfo avx512() {
  CpuTargetInfo target;
  target.cpu = "znver4";
  target.vectorBits = 512;
  target.vectorRegisters = 32;
  target.fma = target.avx2 = target.avx512f = true;
  return target;
}

CpuTargetInfo avx2() {
  CpuTargetInfo target;
  target.cpu = "znver3";
  target.vectorBits = 256;
  target.vectorRegisters = 16;
  target.fma = target.avx2 = true;
  return target;
}

void expectBlocks(const ProductTilePlan &plan, int64_t rows, int64_t columns,
                  int64_t reduction) {
  ASSERT_TRUE(plan.cacheBlocks.has_value());
  EXPECT_EQ(plan.cacheBlocks->rows, rows);
  EXPECT_EQ(plan.cacheBlocks->columns, columns);
  EXPECT_EQ(plan.cacheBlocks->reduction, reduction);
}

// The lanes and accumulators the planner is given: the f32 micro-kernel's
// accumulator lanes are the f32 lanes the pipeline passes as vector-width.
TEST(PlanProductTiles, TargetLanesAreThePipelinesVectorWidth) {
  MLIRContext context;
  Type f32 = Float32Type::get(&context);
  for (const CpuTargetInfo &target : {avx512(), avx2()}) {
    MicroKernelChoice choice = selectMicroKernel(target, f32, f32, f32);
    EXPECT_EQ(choice.emitted, MicroKernelKind::F32Fma);
    EXPECT_EQ(choice.accumulatorLanes, target.getF32Lanes());
  }
  EXPECT_EQ(avx512().getProductAccumulators(), 16);
  EXPECT_EQ(avx2().getProductAccumulators(), 12);
}

// 1024^3 on AVX-512: 4 rows x 4 vectors, blocks of 128 rows, one register
// tile of columns and the whole reduction (8 MiB of operands).
TEST(PlanProductTiles, Gemm1024OnAvx512) {
  ProductTilePlan plan = planProductTiles(shape(1024, 1024, 1024), 16, 16, 4);
  EXPECT_EQ(plan.rows, 4);
  EXPECT_EQ(plan.columns, 64);
  EXPECT_EQ(plan.columnLanes, 16);
  expectBlocks(plan, 128, 64, 1024);
}

// A classifier's 1000 columns: no whole vector of 16 divides them, half
// vectors of 8 do (and no wider tile of them).
TEST(PlanProductTiles, ClassifierColumnsTakeHalfVectors) {
  ProductTilePlan plan =
      planProductTiles(shape(std::nullopt, 1000, 512), 16, 16, 4);
  EXPECT_EQ(plan.columnLanes, 8);
  EXPECT_EQ(plan.columns, 8);
  EXPECT_EQ(plan.rows, 1);
  EXPECT_FALSE(plan.cacheBlocks);
}

// 49 rows (a 7x7 feature map channels last): at 4 vectors only 1 row
// divides 49 (64 accumulator lanes); 2 vectors take 7 rows (224).
TEST(PlanProductTiles, FortyNineRowsTakeNarrowerColumns) {
  ProductTilePlan plan = planProductTiles(shape(49, 512, 512), 16, 16, 4);
  EXPECT_EQ(plan.rows, 7);
  EXPECT_EQ(plan.columns, 32);
  EXPECT_EQ(plan.columnLanes, 16);
  EXPECT_FALSE(plan.cacheBlocks);
}

// A matrix-vector product: one row of 4 vectors, and no cache blocks
// however large its matrix (16 MiB here).
TEST(PlanProductTiles, MatrixVectorHasOneRowAndNoBlocks) {
  ProductTilePlan plan =
      planProductTiles(shape(std::nullopt, 4096, 1024), 16, 16, 4);
  EXPECT_EQ(plan.rows, 1);
  EXPECT_EQ(plan.columns, 64);
  EXPECT_EQ(plan.columnLanes, 16);
  EXPECT_FALSE(plan.cacheBlocks);
}

// AVX2's 12 accumulators: 4 vectors would leave room for 3 rows only, so 2
// vectors x 6 rows; row blocks are multiples of 6 dividing 768.
TEST(PlanProductTiles, Avx2TakesSixRowsOfTwoVectors) {
  ProductTilePlan plan = planProductTiles(shape(768, 1024, 1024), 8, 12, 4);
  EXPECT_EQ(plan.rows, 6);
  EXPECT_EQ(plan.columns, 16);
  EXPECT_EQ(plan.columnLanes, 8);
  expectBlocks(plan, 96, 16, 1024);
}

// Rows that 6 does not divide (a layer's 256 filters): 4 rows of 8
// accumulators, unless the tiles may overlap (their accumulators start
// from their own fill or bias): then 6 rows, the last tile at row 250.
// Not with one column tile (the row loop would be the one split across
// threads) nor with blocks of the reduction (they accumulate into the
// output).
TEST(PlanProductTiles, OverlappingRowsTakeSixRows) {
  ProductShape conv = shape(256, 3136, 64);
  EXPECT_EQ(planProductTiles(conv, 8, 12, 4).rows, 4);
  conv.overlappingRows = true;
  ProductTilePlan plan = planProductTiles(conv, 8, 12, 4);
  EXPECT_EQ(plan.rows, 6);
  EXPECT_EQ(plan.columns, 16);
  EXPECT_FALSE(plan.cacheBlocks);

  ProductShape oneColumnTile = shape(256, 16, 64);
  oneColumnTile.overlappingRows = true;
  EXPECT_EQ(planProductTiles(oneColumnTile, 8, 12, 4).rows, 4);

  ProductShape blocked = shape(256, 3136, 2048);
  blocked.overlappingRows = true;
  plan = planProductTiles(blocked, 8, 12, 4);
  ASSERT_TRUE(plan.cacheBlocks.has_value());
  EXPECT_LT(plan.cacheBlocks->reduction, 2048);
  EXPECT_EQ(plan.rows, 4);
  EXPECT_EQ(plan.cacheBlocks->rows % plan.rows, 0);

  // Blocks of columns over the whole reduction: one block of all rows.
  ProductShape columnBlocks = shape(256, 784, 512);
  columnBlocks.overlappingRows = true;
  plan = planProductTiles(columnBlocks, 8, 12, 4);
  EXPECT_EQ(plan.rows, 6);
  expectBlocks(plan, 256, 16, 512);
}

// 50 columns (an attention block's keys), which no whole vector divides:
// tiles 10 columns wide (a vector and a quarter, split by LLVM into partial
// registers), unless the column tiles may overlap too: then whole vectors,
// the last tile overlapping the one before. Overlapping columns need
// overlapping rows (both need tiles that only write the output).
TEST(PlanProductTiles, OverlappingColumnsTakeWholeVectors) {
  ProductShape scores = shape(50, 50, 64);
  scores.overlappingRows = true;
  EXPECT_EQ(planProductTiles(scores, 8, 12, 4).columns, 10);
  scores.overlappingColumns = true;
  ProductTilePlan plan = planProductTiles(scores, 8, 12, 4);
  EXPECT_EQ(plan.columnLanes, 8);
  EXPECT_EQ(plan.columns % 8, 0);
  EXPECT_LE(plan.rows * (plan.columns / 8), 12);
  EXPECT_FALSE(plan.cacheBlocks);

  ProductShape rowsDivide = shape(50, 50, 64);
  rowsDivide.overlappingColumns = true;
  EXPECT_EQ(planProductTiles(rowsDivide, 8, 12, 4).columns, 10);

  // Columns that whole vectors divide keep dividing tiles.
  ProductShape divided = shape(50, 64, 64);
  divided.overlappingRows = true;
  divided.overlappingColumns = true;
  EXPECT_EQ(planProductTiles(divided, 8, 12, 4).columns, 16);
}

// Operands of at most 2 MiB run unblocked: 128x64 * 64x256 (96 KiB), and
// 512^3 at exactly 2 MiB.
TEST(PlanProductTiles, SmallProductsHaveNoBlocks) {
  ProductTilePlan small = planProductTiles(shape(128, 256, 64), 8, 12, 4);
  EXPECT_EQ(small.rows, 4);
  EXPECT_EQ(small.columns, 16);
  EXPECT_FALSE(small.cacheBlocks);
  ProductTilePlan threshold = planProductTiles(shape(512, 512, 512), 16, 16, 4);
  EXPECT_EQ(threshold.rows, 4);
  EXPECT_EQ(threshold.columns, 64);
  EXPECT_FALSE(threshold.cacheBlocks);
}

// A reduction over several loops gets no cache blocks.
TEST(PlanProductTiles, SeveralReductionLoopsHaveNoBlocks) {
  ProductTilePlan plan =
      planProductTiles(shape(1024, 1024, std::nullopt), 16, 16, 4);
  EXPECT_EQ(plan.rows, 4);
  EXPECT_EQ(plan.columns, 64);
  EXPECT_FALSE(plan.cacheBlocks);
}

// The blocking threshold is in bytes: 1024^3 takes 8 MiB of f32 operands,
// 4 MiB of bf16 ones (blocked) and 2 MiB of i8 ones (not).
TEST(PlanProductTiles, BlockingThresholdScalesWithElementSize) {
  expectBlocks(planProductTiles(shape(1024, 1024, 1024), 16, 16, 2), 128, 64,
               1024);
  ProductTilePlan bytes = planProductTiles(shape(1024, 1024, 1024), 16, 16, 1);
  EXPECT_EQ(bytes.rows, 4);
  EXPECT_EQ(bytes.columns, 64);
  EXPECT_FALSE(bytes.cacheBlocks);
}

} // namespace

namespace {
/// A core with `fmas` FMA units of latency 4 and `loads` load ports.
CpuTargetInfo core(double fmas, double loads) {
  CpuTargetInfo target = describeVectorTarget(16, 16);
  return withCoreThroughput(target, fmas, 4, loads);
}
} // namespace

// The cost model's step: bound by the FMA units, the load ports, or the
// FMA's latency plus one cycle, whichever is slowest.
TEST(TileCostModel, StepIsBoundByUnitsPortsOrLatency) {
  CpuTargetInfo twoUnits = core(2, 3);
  EXPECT_DOUBLE_EQ(estimateTileStepCycles(twoUnits, 16, 5), 8.0);
  EXPECT_DOUBLE_EQ(estimateTileStepCycles(twoUnits, 16, 30), 10.0);
  EXPECT_DOUBLE_EQ(estimateTileStepCycles(twoUnits, 4, 5), 5.0);
  EXPECT_DOUBLE_EQ(estimateTileStepCycles(twoUnits, 8, 6), 5.0);
  EXPECT_DOUBLE_EQ(estimateTileStepCycles(core(1, 2), 4, 5), 5.0);
  EXPECT_DOUBLE_EQ(estimateTileStepCycles(core(1, 2), 8, 9), 8.0);
}

// A 28 x 28 plane's pointwise convolution as [128, 512] x [512, 784]: only
// one-vector column tiles divide 784. Two FMA units: 4 rows (4
// accumulators) would idle them half the time; one unit: 4 accumulators
// just cover its latency and leave no cycle for the loads. 16 rows on both.
TEST(PlanProductTiles, RowsOfOneVectorTilesFollowTheCore) {
  ProductTilePlan two = planProductTiles(shape(128, 784, 512), 16, 16, 4,
                                         core(2, 3));
  EXPECT_EQ(two.rows, 16);
  EXPECT_EQ(two.columns, 16);
  ProductTilePlan one = planProductTiles(shape(128, 784, 512), 16, 16, 4,
                                         core(1, 2));
  EXPECT_EQ(one.rows, 16);
  EXPECT_EQ(one.columns, 16);
}

// Where the widest tile fills the accumulators (4 rows x 4 vectors), the
// cost model changes nothing on either core.
TEST(PlanProductTiles, FullTilesAreTheSameOnEveryCore) {
  for (CpuTargetInfo target : {core(2, 3), core(1, 2), core(2, 2)}) {
    ProductTilePlan plan =
        planProductTiles(shape(1024, 1024, 1024), 16, 16, 4, target);
    EXPECT_EQ(plan.rows, 4);
    EXPECT_EQ(plan.columns, 64);
  }
}
