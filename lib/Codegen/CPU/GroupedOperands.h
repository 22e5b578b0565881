//===- GroupedOperands.h - Operands of the grouped-dot kernels --*- C++ -*-===//
//
// Internal to TesselCodegenCPU: what the 8-bit and bf16 micro-kernels
// (MicroKernels.cpp, AmxMicroKernel.cpp) read of a product's tile.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_GROUPEDOPERANDS_H
#define TESSEL_LIB_CODEGEN_CPU_GROUPEDOPERANDS_H

#include "tessel/Codegen/CPU/MicroKernel.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <utility>

namespace mlir::tessel::cpu {

/// Whether the left- and right-hand sides of an i8 x i8 -> i32 product
/// extend signed: from a named op's cast, or the extensions in a generic's
/// body (`out + ext(a) * ext(b)`). None for anything else.
std::optional<std::pair<bool, bool>> int8Signedness(linalg::LinalgOp op);

/// Whether `op` is bf16 x bf16 -> f32: a named matmul of those types, or a
/// generic `out + extf(a) * extf(b)`.
bool isBf16Product(linalg::LinalgOp op);

/// The rows of groups (4 bytes, 2 bf16) that a packed register tile reads,
/// `rhs` being its slice [K/g, NR, g] of the constant weights [K/g, N, g]:
/// read instead from the same weights stored panel by panel,
/// [N/NR, K/g, NR * g], as the tile's panel [K/g, NR * g]. With a
/// `panelWidth` W dividing NR, stored in panels of W columns,
/// [N/W, K/g, W * g], as the tile's NR/W panels [NR/W, K/g, W * g]. A 2-D
/// slice [K, NR] of weights [K, N]: from [N/NR, K/i, NR * i], each group
/// of `interleave` rows interleaved per column, as [K/i, NR * i]. Null
/// when `rhs` is not such a slice.
Value panelRuns(RewriterBase &rewriter, Location loc, Value rhs,
                int64_t panelWidth = 0, int64_t interleave = 1);

/// Whether `tile` is `out[b.., m, n] += lhs[b.., m, k] * rhs[b.., k, n]`
/// (a named matmul or batch_matmul, or their generics, any casts) with
/// every batch loop `b` of one iteration (the planner tiles them by 1); the
/// right-hand side may have no batch dimensions (shared weights).
bool isUnitBatchMatmul(linalg::LinalgOp tile);
/// `value`, a tile operand of rank >= 2 whose leading dimensions are 1, as
/// a matrix (a rank-reducing slice; `value` itself at rank 2).
Value asMatrix(OpBuilder &b, Location loc, Value value);
/// The matrix `result` inserted into `batched` (which asMatrix viewed), or
/// `result` when they are the same shape.
Value intoBatched(OpBuilder &b, Location loc, Value result, Value batched);

/// i8 x i8 -> i32 on AMX tiles (AmxMicroKernel.cpp).
const MicroKernel *getAmxInt8MicroKernel();
/// bf16 x bf16 -> f32 on AMX tiles (AmxMicroKernel.cpp).
const MicroKernel *getAmxBf16MicroKernel();
/// f16 x f16 -> f32 on AVX512-FP16, f16 sums per reduction block
/// (F16MicroKernel.cpp).
const MicroKernel *getF16FmaMicroKernel();

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_GROUPEDOPERANDS_H
