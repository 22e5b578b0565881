//===- KernelGroupTest.cpp - The kernel model ----------------------------===//
//
// getKernelGroup on small linalg functions: which neighbours of a product
// join its kernel, read off the fusion groups the graph phase decided.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/KernelGroup.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tessel;

namespace {

class KernelGroupTest : public ::testing::Test {
protected:
  KernelGroupTest() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect,
                        linalg::LinalgDialect, tensor::TensorDialect>();
    // The tessel.* attributes are discardable; no need for the dialect.
    context.allowUnregisteredDialects();
  }

  /// Parses a function `@f(%a, %b, %bias)` whose body is `body`, and returns
  /// the kernel of its `linalg.matmul`.
  KernelGroup groupOf(StringRef body) {
    std::string source =
        ("#id = affine_map<(i, j) -> (i, j)>\n"
         "#row = affine_map<(i, j) -> (j)>\n"
         "func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, "
         "%bias: tensor<16xf32>, %r: tensor<4x16xf32>) -> tensor<4x16xf32> {\n"
         "  %e = tensor.empty() : tensor<4x16xf32>\n" +
         body + "}\n")
            .str();
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    linalg::MatmulOp matmul;
    module->walk([&](linalg::MatmulOp op) { matmul = op; });
    EXPECT_TRUE(matmul);
    return getKernelGroup(matmul);
  }

  /// The op producing the function's result.
  Operation *returned() {
    Operation *result = nullptr;
    module->walk([&](func::ReturnOp op) {
      result = op.getOperand(0).getDefiningOp();
    });
    return result;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

// A bias broadcast, the product and a ReLU, all in group 1: one kernel.
constexpr const char *kBiasProductRelu = R"(
  %init = linalg.generic {indexing_maps = [#row, #id],
      iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<16xf32>) outs(%e : tensor<4x16xf32>)
      attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<4x16xf32>
  %p = linalg.matmul {tessel.fusion_group = 1 : i64}
      ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
      outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id],
      iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>)
      attrs = {tessel.fusion_group = GROUP : i64} {
  ^bb0(%x: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
)";

std::string withEpilogueGroup(StringRef group) {
  std::string body = kBiasProductRelu;
  body.replace(body.find("GROUP"), 5, group.str());
  return body;
}

TEST_F(KernelGroupTest, OneGroupIsOneKernel) {
  KernelGroup kernel = groupOf(withEpilogueGroup("1"));
  ASSERT_TRUE(kernel.prologue);
  EXPECT_TRUE(isa<linalg::GenericOp>(kernel.prologue.getOperation()));
  EXPECT_EQ(kernel.epilogue.getOperation(), returned());
  EXPECT_TRUE(kernel.hasNeighbours());
}

TEST_F(KernelGroupTest, AnotherGroupStaysApart) {
  KernelGroup kernel = groupOf(withEpilogueGroup("2"));
  EXPECT_TRUE(kernel.prologue);
  EXPECT_FALSE(kernel.epilogue);
}

TEST_F(KernelGroupTest, ResultWithTwoUsersHasNoEpilogue) {
  std::string body = withEpilogueGroup("1");
  body.replace(body.find("return %y"), 9, "%s = arith.addf %p, %y : "
                                          "tensor<4x16xf32>\n  return %s");
  KernelGroup kernel = groupOf(body);
  EXPECT_TRUE(kernel.prologue);
  EXPECT_FALSE(kernel.epilogue);
}

// An epilogue that reads the product transposed does not run on its tiles.
TEST_F(KernelGroupTest, EpilogueMustReadPositionByPosition) {
  KernelGroup kernel = groupOf(R"(
  %z = arith.constant 0.0 : f32
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>)
      -> tensor<4x16xf32>
  %p = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
      outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %t = tensor.empty() : tensor<16x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, #id],
      iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x16xf32>) outs(%t : tensor<16x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<16x4xf32>
  %c = tensor.empty() : tensor<4x16xf32>
  return %c : tensor<4x16xf32>
)");
  ASSERT_TRUE(kernel.prologue);
  EXPECT_TRUE(isa<linalg::FillOp>(kernel.prologue.getOperation()));
  EXPECT_FALSE(kernel.epilogue);
}

// Ops without a group (hand-written linalg) constrain nothing; an output
// with another user is no prologue.
TEST_F(KernelGroupTest, SharedInitIsNoPrologue) {
  KernelGroup kernel = groupOf(R"(
  %z = arith.constant 0.0 : f32
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>)
      -> tensor<4x16xf32>
  %p = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
      outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id],
      iterator_types = ["parallel", "parallel"]}
      ins(%p, %init : tensor<4x16xf32>, tensor<4x16xf32>)
      outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: f32, %i: f32, %o: f32):
    %s = arith.addf %x, %i : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
)");
  EXPECT_FALSE(kernel.prologue);
  EXPECT_EQ(kernel.epilogue.getOperation(), returned());
}

} // namespace
