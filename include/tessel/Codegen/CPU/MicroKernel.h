//===- MicroKernel.h - What runs on one register block ----------*- C++ -*-===//
//
// A code generator plans register (or tile-register) blocks and walks them;
// what multiplies and accumulates inside one block is a micro-kernel,
// chosen per ISA and element types by `selectMicroKernel` (TargetInfo.h)
// and emitted through this one interface. The product and convolution code
// generators never emit a multiply-add themselves: adding INT8-VNNI, BF16,
// AMX or a GPU mma kernel is a new MicroKernel here, not a new vectoriser.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_CPU_MICROKERNEL_H
#define TESSEL_CODEGEN_CPU_MICROKERNEL_H

#include "tessel/Codegen/CPU/TargetInfo.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {

/// The extent of a product (or of its per-batch matrices) that a
/// micro-kernel is chosen for: rows M, columns N, reduction K, and whether
/// its right-hand side is constant weights packed in the kernel's reduction
/// groups ([K/g, N, g], packGroupedWeights).
struct ProductExtent {
  int64_t rows = 0;
  int64_t columns = 0;
  int64_t reduction = 0;
  bool packedRhs = false;
  /// Whether the left-hand side is stored row by row along the reduction
  /// ([M, K], not transposed): kernels that read its rows themselves (the
  /// f16 kernel) need it.
  bool rowMajorLhs = true;
};

class MicroKernel {
public:
  explicit MicroKernel(MicroKernelKind kind) : kind(kind) {}
  virtual ~MicroKernel() = default;

  MicroKernelKind getKind() const { return kind; }

  /// Reduction steps one instruction sums into each accumulator lane: 1 for
  /// an FMA, 4 for VNNI's groups of i8, 2 for bf16 pairs. Register tiles
  /// take whole groups of the reduction.
  virtual int64_t getReductionGroup() const = 0;

  /// `acc + lhs * rhs` for one step of a register block: `acc` is one
  /// accumulator vector, `lhs` and `rhs` hold `getReductionGroup()` operand
  /// elements per accumulator lane (one of them typically a broadcast).
  virtual Value emitMultiplyAccumulate(OpBuilder &b, Location loc, Value lhs,
                                       Value rhs, Value acc) const = 0;

  /// Replaces `tile`, one register tile of a product (a structured
  /// contraction on tensors whose static shape is the tile), by vector code.
  /// Fails, changing nothing, when it cannot.
  virtual LogicalResult emitProductTile(RewriterBase &rewriter,
                                        linalg::LinalgOp tile) const = 0;

  /// Whether the kernel runs products of this extent (AMX tiles need whole
  /// tiles); the selection falls back to the next kernel when not.
  virtual bool coversProduct(const ProductExtent &extent) const {
    return true;
  }

  /// The register tile (rows, columns) the kernel itself takes for a
  /// product of `extent`, or none when the planner sizes it from the
  /// vector registers.
  virtual std::optional<std::pair<int64_t, int64_t>>
  getProductTile(const ProductExtent &extent) const {
    return std::nullopt;
  }

  /// Whether the kernel's register tile spans the whole reduction of a
  /// product of `extent` (the kernel walks it, carrying its accumulators:
  /// the f16 kernel's blocks of f16 sums), rather than one step of it (the
  /// accumulators then carried by the tiled loop).
  virtual bool walksReduction(const ProductExtent &extent) const {
    return false;
  }

private:
  MicroKernelKind kind;
};

/// The emitter of `kind`, or null when Tessel has none (yet).
const MicroKernel *getMicroKernel(MicroKernelKind kind);

/// The micro-kernel `target` runs `lhs x rhs -> acc` products on (the
/// `emitted` one of `selectMicroKernel`), or null.
const MicroKernel *getMicroKernel(const CpuTargetInfo &target, Type lhs,
                                  Type rhs, Type acc);

/// The micro-kernel `target` runs a product of `extent` on: the first of
/// `selectMicroKernel`'s emittable kernels that covers it, or null.
const MicroKernel *getProductMicroKernel(const CpuTargetInfo &target,
                                         Type lhs, Type rhs, Type acc,
                                         const ProductExtent &extent);

} // namespace mlir::tessel

#endif // TESSEL_CODEGEN_CPU_MICROKERNEL_H
