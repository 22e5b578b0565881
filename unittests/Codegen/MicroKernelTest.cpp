//===- MicroKernelTest.cpp - The micro-kernel interface -------------------===//
//
// Which micro-kernels have emitters, which one a target gets for each
// product's element types, and what the f32 FMA kernel emits.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/AmxTiles.h"
#include "tessel/Codegen/CPU/F16Blocks.h"
#include "tessel/Codegen/CPU/MicroKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tessel;

namespace {

class MicroKernelTest : public ::testing::Test {
protected:
  MicroKernelTest() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect,
                        linalg::LinalgDialect, tensor::TensorDialect,
                        vector::VectorDialect>();
  }
  MLIRContext context;
};

TEST_F(MicroKernelTest, F32FmaI8Bf16AndAmxInt8KernelsHaveEmitters) {
  ASSERT_NE(getMicroKernel(MicroKernelKind::F32Fma), nullptr);
  EXPECT_EQ(getMicroKernel(MicroKernelKind::F32Fma)->getKind(),
            MicroKernelKind::F32Fma);
  EXPECT_EQ(getMicroKernel(MicroKernelKind::F32Fma)->getReductionGroup(), 1);
  ASSERT_NE(getMicroKernel(MicroKernelKind::I8Vnni), nullptr);
  EXPECT_EQ(getMicroKernel(MicroKernelKind::I8Vnni)->getReductionGroup(), 4);
  ASSERT_NE(getMicroKernel(MicroKernelKind::I8Madd), nullptr);
  EXPECT_EQ(getMicroKernel(MicroKernelKind::I8Madd)->getKind(),
            MicroKernelKind::I8Madd);
  ASSERT_NE(getMicroKernel(MicroKernelKind::Bf16Dot), nullptr);
  EXPECT_EQ(getMicroKernel(MicroKernelKind::Bf16Dot)->getReductionGroup(), 2);
  ASSERT_NE(getMicroKernel(MicroKernelKind::AmxInt8), nullptr);
  EXPECT_EQ(getMicroKernel(MicroKernelKind::AmxInt8)->getReductionGroup(), 4);
  ASSERT_NE(getMicroKernel(MicroKernelKind::AmxBf16), nullptr);
  EXPECT_EQ(getMicroKernel(MicroKernelKind::AmxBf16)->getReductionGroup(), 2);
  ASSERT_NE(getMicroKernel(MicroKernelKind::F16Fma), nullptr);
  EXPECT_EQ(getMicroKernel(MicroKernelKind::F16Fma)->getReductionGroup(), 1);
  ASSERT_NE(getMicroKernel(MicroKernelKind::WidenedFma), nullptr);
  EXPECT_EQ(getMicroKernel(MicroKernelKind::WidenedFma)->getReductionGroup(),
            1);
  EXPECT_EQ(getMicroKernel(MicroKernelKind::None), nullptr);
  EXPECT_FALSE(isMicroKernelImplemented(MicroKernelKind::None));
}

TEST_F(MicroKernelTest, AmxTakesWholeTilesAndFallsBackToVnni) {
  Builder b(&context);
  Type i8 = b.getI8Type(), i32 = b.getI32Type();
  CpuTargetInfo amx = describeVectorTarget(16, 16, /*vnni=*/true,
                                           /*bf16=*/false, /*amx=*/true);
  EXPECT_EQ(selectMicroKernel(amx, i8, i8, i32).emitted,
            MicroKernelKind::AmxInt8);
  auto kindFor = [&](int64_t rows, int64_t columns, int64_t reduction,
                     bool packed) {
    const MicroKernel *kernel = getProductMicroKernel(
        amx, i8, i8, i32, ProductExtent{rows, columns, reduction, packed});
    return kernel ? kernel->getKind() : MicroKernelKind::None;
  };
  // Whole tiles of packed weights; rows in tiles of 5 to 16 (196 = 14 x
  // 14, 49 = 7 x 7).
  EXPECT_EQ(kindFor(64, 64, 256, true), MicroKernelKind::AmxInt8);
  EXPECT_EQ(kindFor(196, 64, 576, true), MicroKernelKind::AmxInt8);
  EXPECT_EQ(kindFor(49, 512, 4608, true), MicroKernelKind::AmxInt8);
  // Not whole tiles, or weights not packed: VNNI.
  EXPECT_EQ(kindFor(34, 64, 256, true), MicroKernelKind::I8Vnni);
  EXPECT_EQ(kindFor(64, 40, 256, true), MicroKernelKind::I8Vnni);
  EXPECT_EQ(kindFor(64, 64, 96, true), MicroKernelKind::I8Vnni);
  EXPECT_EQ(kindFor(64, 64, 256, false), MicroKernelKind::I8Vnni);
  // The register block: 2 x 2 tiles where the rows and columns allow.
  const MicroKernel *tiles = getMicroKernel(MicroKernelKind::AmxInt8);
  EXPECT_EQ(tiles->getProductTile(ProductExtent{64, 64, 256, true}),
            std::make_pair(int64_t(32), int64_t(32)));
  EXPECT_EQ(tiles->getProductTile(ProductExtent{196, 48, 576, true}),
            std::make_pair(int64_t(28), int64_t(16)));
  EXPECT_EQ(tiles->getProductTile(ProductExtent{49, 64, 576, true}),
            std::make_pair(int64_t(7), int64_t(32)));
  // Without AMX the product runs on VNNI whatever its extent.
  CpuTargetInfo vnni = describeVectorTarget(16, 16, /*vnni=*/true);
  const MicroKernel *kernel = getProductMicroKernel(
      vnni, i8, i8, i32, ProductExtent{64, 64, 256, true});
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->getKind(), MicroKernelKind::I8Vnni);
}

TEST_F(MicroKernelTest, TargetAndElementTypesChooseTheKernel) {
  Builder b(&context);
  CpuTargetInfo avx512 = describeVectorTarget(16, 16);
  EXPECT_EQ(avx512.vectorBits, 512u);
  EXPECT_EQ(avx512.vectorRegisters, 32u);
  const MicroKernel *f32 =
      getMicroKernel(avx512, b.getF32Type(), b.getF32Type(), b.getF32Type());
  ASSERT_NE(f32, nullptr);
  EXPECT_EQ(f32->getKind(), MicroKernelKind::F32Fma);
  // Mixed products have no kernel; i8 products need VNNI.
  EXPECT_EQ(getMicroKernel(avx512, b.getF32Type(), b.getF16Type(),
                           b.getF32Type()),
            nullptr);
  EXPECT_EQ(getMicroKernel(avx512, b.getI8Type(), b.getI8Type(),
                           b.getI32Type()),
            nullptr);
  CpuTargetInfo vnni = describeVectorTarget(16, 16, /*vnni=*/true);
  const MicroKernel *i8 =
      getMicroKernel(vnni, b.getI8Type(), b.getI8Type(), b.getI32Type());
  ASSERT_NE(i8, nullptr);
  EXPECT_EQ(i8->getKind(), MicroKernelKind::I8Vnni);
  // AVX-VNNI alone: vpdpbusd's VEX form, a kernel of its own.
  CpuTargetInfo avxVnni = describeVectorTarget(8, 12, /*vnni=*/true);
  MicroKernelChoice choice = selectMicroKernel(avxVnni, b.getI8Type(),
                                               b.getI8Type(), b.getI32Type());
  EXPECT_EQ(choice.best, MicroKernelKind::I8Vnni);
  EXPECT_EQ(choice.emitted, MicroKernelKind::I8Vnni);
  const MicroKernel *vex =
      getMicroKernel(avxVnni, b.getI8Type(), b.getI8Type(), b.getI32Type());
  ASSERT_NE(vex, nullptr);
  EXPECT_EQ(vex->getKind(), MicroKernelKind::I8Vnni);
  EXPECT_NE(vex, i8);
  // AVX2 without VNNI: vpmaddwd.
  CpuTargetInfo avx2 = describeVectorTarget(8, 12);
  const MicroKernel *madd =
      getMicroKernel(avx2, b.getI8Type(), b.getI8Type(), b.getI32Type());
  ASSERT_NE(madd, nullptr);
  EXPECT_EQ(madd->getKind(), MicroKernelKind::I8Madd);
  EXPECT_EQ(madd->getReductionGroup(), 4);
  EXPECT_TRUE(hasEightBitProductKernel(avx2));
  // SSE only (128-bit vectors): no 8-bit kernel.
  EXPECT_FALSE(hasEightBitProductKernel(describeVectorTarget(4, 16)));
}

TEST_F(MicroKernelTest, Bf16ProductsRunOnVdpbf16psOnlyWhereItBeatsTheFma) {
  Builder b(&context);
  Type bf16 = b.getBF16Type(), f32 = b.getF32Type();
  // AVX512-BF16 at its nominal rate (Zen 4: twice the FMA's multiply-adds).
  CpuTargetInfo zen4 = describeVectorTarget(16, 16, /*vnni=*/true,
                                            /*bf16=*/true);
  const MicroKernel *dot = getMicroKernel(zen4, bf16, bf16, f32);
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->getKind(), MicroKernelKind::Bf16Dot);
  EXPECT_EQ(dot->getReductionGroup(), 2);
  EXPECT_TRUE(hasBf16ProductKernel(zen4));
  // Half the FMA's rate (Sapphire and Emerald Rapids): no bf16 kernel
  // that beats the FMA; a model's own bf16 products run widened to f32.
  CpuTargetInfo spr = zen4;
  spr.bf16DotRate = 0.5;
  EXPECT_EQ(selectMicroKernel(spr, bf16, bf16, f32).best,
            MicroKernelKind::WidenedFma);
  EXPECT_FALSE(hasBf16ProductKernel(spr));
  // With AMX-BF16 (Sapphire and Emerald Rapids): tiles, for whole tiles
  // only (the reduction in 32s: 64-byte rows of bf16), and for the others
  // only the widened FMA (tessel-low-precision-products leaves those
  // products f32).
  CpuTargetInfo sprAmx = describeVectorTarget(
      16, 16, /*vnni=*/true, /*bf16=*/true, /*amx=*/true, /*amxBf16=*/true);
  sprAmx.bf16DotRate = 0.5;
  MicroKernelChoice tiles = selectMicroKernel(sprAmx, bf16, bf16, f32);
  EXPECT_EQ(tiles.emitted, MicroKernelKind::AmxBf16);
  ASSERT_EQ(tiles.emittable.size(), 2u);
  EXPECT_EQ(tiles.emittable[1], MicroKernelKind::WidenedFma);
  EXPECT_TRUE(hasBf16ProductKernel(sprAmx));
  const MicroKernel *amx = getMicroKernel(MicroKernelKind::AmxBf16);
  EXPECT_TRUE(amx->coversProduct(ProductExtent{32, 32, 64, true}));
  EXPECT_TRUE(amx->coversProduct(ProductExtent{49, 512, 4608, true}));
  EXPECT_FALSE(amx->coversProduct(ProductExtent{32, 32, 48, true}));
  EXPECT_FALSE(amx->coversProduct(ProductExtent{32, 24, 64, true}));
  EXPECT_FALSE(amx->coversProduct(ProductExtent{32, 32, 64, false}));
  EXPECT_EQ(getProductMicroKernel(sprAmx, bf16, bf16, f32,
                                  ProductExtent{32, 32, 48, true})
                ->getKind(),
            MicroKernelKind::WidenedFma);
  // The same rule the graph pass asks (AmxTiles.h), and the padding of a
  // convolution's gathered windows: 147 taps (148 in pairs) to 160, 72 not
  // (96 would be a third more work).
  EXPECT_TRUE(amx_tiles::coverProduct(196, 64, 576, 2));
  EXPECT_FALSE(amx_tiles::coverProduct(3, 64, 576, 2));
  EXPECT_EQ(amx_tiles::padReductionToTileRows(148, 2), 160);
  EXPECT_EQ(amx_tiles::padReductionToTileRows(72, 2), 72);
  EXPECT_EQ(amx_tiles::padReductionToTileRows(576, 2), 576);
  // Without AVX512-BF16 (and never on 256-bit vectors here): none.
  EXPECT_FALSE(hasBf16ProductKernel(describeVectorTarget(16, 16)));
  EXPECT_FALSE(hasBf16ProductKernel(
      describeVectorTarget(8, 12, /*vnni=*/false, /*bf16=*/true)));
}

TEST_F(MicroKernelTest, F16ProductsRunOnAvx512Fp16InBlocksElseWidened) {
  Builder b(&context);
  Type f16 = b.getF16Type(), f32 = b.getF32Type();
  // AVX512-FP16: vfmadd231ph for columns in 16s and reductions in 8s,
  // walking the reduction itself; the widened FMA for the others.
  CpuTargetInfo spr = describeVectorTarget(16, 16, /*vnni=*/true,
                                           /*bf16=*/true, /*amx=*/true,
                                           /*amxBf16=*/true, /*fp16=*/true);
  MicroKernelChoice choice = selectMicroKernel(spr, f16, f16, f32);
  EXPECT_EQ(choice.emitted, MicroKernelKind::F16Fma);
  ASSERT_EQ(choice.emittable.size(), 2u);
  EXPECT_EQ(choice.emittable[1], MicroKernelKind::WidenedFma);
  EXPECT_TRUE(hasF16ProductKernel(spr));
  const MicroKernel *fp16 = getMicroKernel(MicroKernelKind::F16Fma);
  EXPECT_TRUE(fp16->coversProduct(ProductExtent{49, 512, 4608, false}));
  EXPECT_TRUE(fp16->walksReduction(ProductExtent{49, 512, 4608, false}));
  EXPECT_EQ(fp16->getProductTile(ProductExtent{49, 512, 4608, false}),
            std::make_pair(int64_t(7), int64_t(32)));
  EXPECT_FALSE(fp16->coversProduct(ProductExtent{32, 24, 64, false}));
  EXPECT_FALSE(fp16->coversProduct(ProductExtent{32, 32, 36, false}));
  // A transposed left-hand side: the widened FMA.
  EXPECT_FALSE(fp16->coversProduct(
      ProductExtent{32, 32, 64, false, /*rowMajorLhs=*/false}));
  EXPECT_EQ(getProductMicroKernel(spr, f16, f16, f32,
                                  ProductExtent{32, 24, 64, false})
                ->getKind(),
            MicroKernelKind::WidenedFma);
  // Without AVX512-FP16: widened on AVX2 and AVX-512 (F16C), none on SSE.
  EXPECT_EQ(selectMicroKernel(describeVectorTarget(16, 16), f16, f16, f32)
                .emitted,
            MicroKernelKind::WidenedFma);
  EXPECT_EQ(selectMicroKernel(describeVectorTarget(8, 12), f16, f16, f32)
                .emitted,
            MicroKernelKind::WidenedFma);
  EXPECT_EQ(selectMicroKernel(describeVectorTarget(4, 16), f16, f16, f32)
                .emitted,
            MicroKernelKind::None);
  EXPECT_FALSE(hasF16ProductKernel(describeVectorTarget(16, 16)));
  EXPECT_FALSE(isFasterThanFp32(MicroKernelKind::WidenedFma));
  EXPECT_TRUE(isFasterThanFp32(MicroKernelKind::F16Fma));
  // The rule the graph pass asks (F16Blocks.h).
  EXPECT_EQ(f16_blocks::selectTile(3136, 64), std::make_pair(int64_t(7),
                                                             int64_t(32)));
  EXPECT_EQ(f16_blocks::selectTile(12, 16), std::make_pair(int64_t(6),
                                                           int64_t(16)));
  EXPECT_EQ(f16_blocks::selectTile(12, 24).first, 0);
  EXPECT_EQ(f16_blocks::selectReductionBlock(576), 64);
  EXPECT_EQ(f16_blocks::selectReductionBlock(72), 8);
  EXPECT_EQ(f16_blocks::selectReductionBlock(36), 0);
  EXPECT_EQ(f16_blocks::padReduction(147), 160);
  EXPECT_EQ(f16_blocks::padReduction(27), 32);
  EXPECT_EQ(f16_blocks::padReduction(36), 40);
  EXPECT_FALSE(f16_blocks::paysOff(4, 16, 32));
  EXPECT_TRUE(f16_blocks::paysOff(4, 16, 64));
}

TEST_F(MicroKernelTest, F32FmaMultipliesAndAccumulatesWithVectorFma) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      "func.func @f(%a: vector<8xf32>, %b: vector<8xf32>, %c: vector<8xf32>)"
      " -> vector<8xf32> { return %c : vector<8xf32> }",
      &context);
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  Block &body = func.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  OpBuilder b(ret);
  Value acc = getMicroKernel(MicroKernelKind::F32Fma)
                  ->emitMultiplyAccumulate(b, func.getLoc(), body.getArgument(0),
                                           body.getArgument(1),
                                           body.getArgument(2));
  ret->setOperand(0, acc);
  auto fma = acc.getDefiningOp<vector::FMAOp>();
  ASSERT_TRUE(fma);
  EXPECT_EQ(fma.getAcc(), body.getArgument(2));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(MicroKernelTest, F32FmaTileBecomesOneContraction) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      "func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, "
      "%c: tensor<4x16xf32>) -> tensor<4x16xf32> {\n"
      "  %p = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)"
      " outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>\n"
      "  return %p : tensor<4x16xf32>\n}",
      &context);
  ASSERT_TRUE(module);
  linalg::MatmulOp matmul;
  module->walk([&](linalg::MatmulOp op) { matmul = op; });
  IRRewriter rewriter(&context);
  ASSERT_TRUE(succeeded(getMicroKernel(MicroKernelKind::F32Fma)
                            ->emitProductTile(rewriter, matmul)));
  int contractions = 0, structured = 0;
  module->walk([&](vector::ContractionOp) { ++contractions; });
  module->walk([&](linalg::LinalgOp) { ++structured; });
  EXPECT_EQ(contractions, 1);
  EXPECT_EQ(structured, 0);
  EXPECT_TRUE(succeeded(verify(*module)));
}

} // namespace
