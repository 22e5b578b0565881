//===- AmxTiles.h - What AMX tiles take -------------------------*- C++ -*-===//
//
// The extents that AMX tile products cover (Sapphire Rapids and later: 8
// tile registers of at most 16 rows x 64 bytes): the AMX micro-kernels
// (lib/Codegen/CPU/AmxMicroKernel.cpp) run these and nothing else, and the
// graph passes that choose a product's precision ask the same question
// before they give it an element type only AMX multiplies fast
// (tessel-low-precision-products on a target whose vdpbf16ps is slower than
// its FP32 FMA). Header-only: no library dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_CPU_AMXTILES_H
#define TESSEL_CODEGEN_CPU_AMXTILES_H

#include <cstdint>

namespace mlir::tessel::amx_tiles {

/// Rows of a tile (at most), bytes of a tile row, 32-bit columns of an
/// accumulator tile, tile registers.
constexpr int64_t kRows = 16;
constexpr int64_t kRowBytes = 64;
constexpr int64_t kColumns = 16;
constexpr int64_t kRegisters = 8;

/// The fewest rows a tile of a product whose rows are not in 16s may have.
/// Assuming a tile product takes as long for fewer rows (not measured),
/// below 5 of 16 it would do less than the vector units: AMX-INT8 runs
/// 3.7x the VNNI multiply-adds at the reference kernels' efficiencies
/// (../shared/reference/amx-recipe). Measured: 7-row tiles, [49, 4608] x
/// [4608, 512], 0.39 ms against 0.61 on VNNI (Xeon EMR).
constexpr int64_t kFewestRows = 5;

/// The rows of each tile for a product of `rows` rows: 16 where they are
/// in 16s, else the largest divisor of `rows` from kFewestRows to 16 (a
/// 14 x 14 image's 196 rows in tiles of 14, a 7 x 7 one's 49 in tiles of
/// 7); 0 when none.
inline int64_t selectTileRows(int64_t rows) {
  for (int64_t r = kRows; r >= kFewestRows; --r)
    if (rows > 0 && rows % r == 0)
      return r;
  return 0;
}

/// Whether tiles cover a product of `rows` x `columns` over a reduction of
/// `reduction` elements of `elementBytes` bytes: rows in tiles of
/// selectTileRows, columns in 16s, the reduction in 64-byte tile rows.
inline bool coverProduct(int64_t rows, int64_t columns, int64_t reduction,
                         int64_t elementBytes) {
  return selectTileRows(rows) != 0 && columns % kColumns == 0 &&
         (reduction * elementBytes) % kRowBytes == 0;
}

/// The reduction of a convolution run as a product on its gathered windows
/// (KH * KW * C `taps` of `elementBytes` bytes each, already padded to the
/// kernel's groups): padded with zeros to whole 64-byte tile rows where
/// that adds at most a quarter to the work, so that the product is whole
/// tiles (ResNet's 7 x 7 stem over 3 channels: 147 taps, 160 in bf16 at 9%
/// more multiply-adds; 192 in 8 bits would be 31% more), else `taps`.
inline int64_t padReductionToTileRows(int64_t taps, int64_t elementBytes) {
  int64_t perRow = kRowBytes / elementBytes;
  int64_t padded = (taps + perRow - 1) / perRow * perRow;
  return 4 * padded <= 5 * taps ? padded : taps;
}

} // namespace mlir::tessel::amx_tiles

#endif // TESSEL_CODEGEN_CPU_AMXTILES_H
