//===- F16Blocks.h - What the AVX512-FP16 kernel takes ----------*- C++ -*-===//
//
// The extents that the f16 micro-kernel (lib/Codegen/CPU/F16MicroKernel.cpp)
// runs: f16 x f16 products on AVX512-FP16's `vfmadd231ph` (32 lanes, twice
// the FP32 FMA's multiply-adds per instruction) that sum a short block of
// the reduction in f16 and add each block's sums into f32 accumulators, so
// that the rounding error grows with the block, not with the whole
// reduction. The graph pass that gives products f16 operands
// (tessel-low-precision-products{element=f16}) asks the same question, and
// leaves the others f32. Header-only: no library dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_CPU_F16BLOCKS_H
#define TESSEL_CODEGEN_CPU_F16BLOCKS_H

#include <cstdint>
#include <utility>

namespace mlir::tessel::f16_blocks {

/// The longest and shortest reduction block summed in f16. 64 steps: with
/// constant weights each lane sums every other step (pairs of steps
/// interleaved), so its f16 sum rounds at most 32 times before the f32 sum
/// takes it; converting and adding a block's sums then takes about a fifth
/// as many instructions as its multiply-adds (on the shuffle port too: in
/// ResNet-18's 56 x 56 layers 15% of the samples, against the FMAs' 31%,
/// perf on Xeon EMR). Below 8 steps the conversions would eat the gain.
constexpr int64_t kLongestBlock = 64;
constexpr int64_t kShortestBlock = 8;

/// The reduction block for a reduction of `reduction` steps: the longest
/// power of two from kShortestBlock to kLongestBlock that divides it, else
/// 0.
inline int64_t selectReductionBlock(int64_t reduction) {
  for (int64_t block = kLongestBlock; block >= kShortestBlock; block /= 2)
    if (reduction > 0 && reduction % block == 0)
      return block;
  return 0;
}

/// The largest divisor of `rows` from 1 to `most`.
inline int64_t largestDivisor(int64_t rows, int64_t most) {
  for (int64_t r = most; r > 1; --r)
    if (rows % r == 0)
      return r;
  return 1;
}

/// The register tile (rows, columns) for a product of `rows` x `columns`:
/// 32 columns (a row's 16 column pairs per 32-lane vector, two vectors) in
/// up to 7 rows, or 16 columns in up to 8: the f16 sums, as many f32 sums
/// and the right-hand vectors within 31 of AVX-512's 32 registers (the
/// last holds the broadcast row value). Rows: the largest divisor of the
/// product's (a 7 x 7 image's 49 rows in 7s, a 56 x 56 one's 3136 too).
/// (0, 0) when the columns are not in 16s.
inline std::pair<int64_t, int64_t> selectTile(int64_t rows,
                                              int64_t columns) {
  if (rows <= 0 || columns <= 0 || columns % 16 != 0)
    return {0, 0};
  if (columns % 32 == 0)
    return {largestDivisor(rows, 7), 32};
  return {largestDivisor(rows, 8), 16};
}

/// Whether the kernel covers a product of `rows` x `columns` over
/// `reduction` steps: columns in 16s and the reduction in 8s.
inline bool coverProduct(int64_t rows, int64_t columns, int64_t reduction) {
  return selectTile(rows, columns).first != 0 &&
         selectReductionBlock(reduction) != 0;
}

/// The shortest reduction worth moving from f32 to f16 (the graph pass's
/// choice; a model's own f16 products run on the kernel whatever their
/// reduction): one longest block. Shorter ones convert and add their f16
/// sums nearly as often as they multiply, and their casts to and from f16
/// cost memory traffic the products do not win back: MobileNetV2's 1 x 1
/// convolutions over 16 to 96 channels ran 1.05x slower in f16 than in f32
/// (Xeon EMR).
constexpr int64_t kShortestWorthwhileReduction = kLongestBlock;

/// Whether moving a product of this extent from f32 to f16 pays:
/// coverProduct, over at least kShortestWorthwhileReduction steps.
inline bool paysOff(int64_t rows, int64_t columns, int64_t reduction) {
  return coverProduct(rows, columns, reduction) &&
         reduction >= kShortestWorthwhileReduction;
}

/// A convolution's gathered windows (KH * KW * C `taps`) padded with zeros
/// to the kernel's blocks: to 32s where that adds at most a quarter, else
/// to 8s (ResNet's 7 x 7 stem over 3 channels: 147 taps, 160).
inline int64_t padReduction(int64_t taps) {
  int64_t blocks = (taps + 31) / 32 * 32;
  if (4 * blocks <= 5 * taps)
    return blocks;
  return (taps + kShortestBlock - 1) / kShortestBlock * kShortestBlock;
}

} // namespace mlir::tessel::f16_blocks

#endif // TESSEL_CODEGEN_CPU_F16BLOCKS_H
