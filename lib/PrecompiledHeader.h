//===- PrecompiledHeader.h - The MLIR headers most sources include --------===//
//
// Compiled once per build (lib/CMakeLists.txt, TESSEL_PRECOMPILED_HEADERS)
// and given to every library under lib/ ahead of its sources: reading these
// headers is much of a file's compile time (TileProduct.cpp, gcc 12 on Zen
// 3: 13.9 s, 13.5 s of it with -fsyntax-only, 3.1 s with this header
// precompiled; files with more code of their own gain less).
// Only upstream headers: a Tessel header here would rebuild everything
// whenever it changed. What a file uses it still includes itself.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
