//===- tessel/tensor_io.hpp - Tensor files: .npy and TensorProto -*- C++
//-*-===//
//
// Reads and writes tensors in NumPy's .npy format (1.0, little-endian) and in
// ONNX's TensorProto protobuf encoding (the `.pb` files of the ONNX test
// suite), without a protobuf dependency. Files are untrusted: every length is
// checked, and malformed input yields an error, never a crash or an
// allocation larger than the input.
//
// Functions return true on success. On failure they return false and set
// `error` to a phrase that does not repeat the file name (callers print
// `<file>: error: <error>`); outputs are then unspecified.
//
// Tensors are dense and row-major, elements little-endian; only the element
// types of tessel/abi.h are supported, and bool elements must be 0 or 1.
// Thread-safe: no function keeps state.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TENSOR_IO_HPP
#define TESSEL_TENSOR_IO_HPP

#include "tessel/runtime.h"

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace tessel::io {

/// The largest rank the readers accept.
constexpr size_t kMaxFileRank = 64;

/// An allocator for 64-byte aligned storage, so that tensor data read from a
/// file can be handed to compiled code as it is.
template <typename T> struct AlignedAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};

  AlignedAllocator() = default;
  template <typename U> AlignedAllocator(const AlignedAllocator<U> &) {}

  T *allocate(size_t count) {
    return static_cast<T *>(::operator new(count * sizeof(T), kAlignment));
  }
  void deallocate(T *pointer, size_t) {
    ::operator delete(pointer, kAlignment);
  }

  template <typename U> bool operator==(const AlignedAllocator<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const AlignedAllocator<U> &) const {
    return false;
  }
};

using AlignedBytes = std::vector<uint8_t, AlignedAllocator<uint8_t>>;

/// A tensor that owns its data.
struct HostTensor {
  std::string name; ///< the TensorProto's name; empty for .npy files
  int32_t dtype = TESSEL_DTYPE_INVALID;
  std::vector<int64_t> shape;
  AlignedBytes bytes; ///< dense, row-major, little-endian

  /// The number of elements (1 for rank 0).
  int64_t numElements() const;

  /// A view over this tensor's data and shape, valid while the tensor lives
  /// and is not resized.
  tessel_tensor_view view();
  /// A view for reading (tessel_tensor_view has no const form; do not write
  /// through it).
  tessel_tensor_view view() const;
};

/// Prints a tensor type as `float32[1,3,224,224]`.
std::string formatTensorType(int32_t dtype, const std::vector<int64_t> &shape);
std::string formatTensorType(const tessel_tensor_view &view);

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

/// Reads a whole file.
bool readFileBytes(const std::string &path, std::vector<uint8_t> &bytes,
                   std::string &error);

/// Writes (creating or truncating) a whole file.
bool writeFileBytes(const std::string &path, const void *data, size_t size,
                    std::string &error);

/// Reads a .npy file (content starting with "\x93NUMPY") or else an ONNX
/// TensorProto, whatever the file's extension.
bool readTensorFile(const std::string &path, HostTensor &out,
                    std::string &error);

//===----------------------------------------------------------------------===//
// NumPy .npy
//===----------------------------------------------------------------------===//

/// Parses .npy content (format 1.0, 2.0 or 3.0). Accepts the descrs of the
/// supported types in little-endian or native order ('<f4', '|b1', ...);
/// rejects big-endian data, fortran_order=True, and other types.
bool parseNpy(const uint8_t *data, size_t size, HostTensor &out,
              std::string &error);
bool readNpy(const std::string &path, HostTensor &out, std::string &error);

/// Encodes a tensor as .npy format 1.0 (header padded to 64 bytes, as NumPy
/// does). Fails for bfloat16, which NumPy has no type for.
bool encodeNpy(const tessel_tensor_view &tensor, std::vector<uint8_t> &out,
               std::string &error);
bool writeNpy(const std::string &path, const tessel_tensor_view &tensor,
              std::string &error);
bool writeNpy(const std::string &path, const HostTensor &tensor,
              std::string &error);

//===----------------------------------------------------------------------===//
// ONNX TensorProto
//===----------------------------------------------------------------------===//

/// Parses a serialized onnx.TensorProto: dims, data_type, name, and the data
/// from raw_data or from the typed field that carries the data_type
/// (float_data, int32_data, int64_data, double_data, uint64_data). Rejects
/// segments, strings, external data, unsupported data types, and data whose
/// size does not match the dims. Skips unknown fields.
bool parseTensorProto(const uint8_t *data, size_t size, HostTensor &out,
                      std::string &error);
bool readTensorProto(const std::string &path, HostTensor &out,
                     std::string &error);

/// Encodes a tensor as an onnx.TensorProto with dims, data_type, `name` and
/// raw_data.
bool encodeTensorProto(const tessel_tensor_view &tensor,
                       const std::string &name, std::vector<uint8_t> &out,
                       std::string &error);
bool writeTensorProto(const std::string &path, const tessel_tensor_view &tensor,
                      const std::string &name, std::string &error);

//===----------------------------------------------------------------------===//
// Elements: printing and comparing
//===----------------------------------------------------------------------===//

/// Converts IEEE half and bfloat16 bit patterns to float (exactly).
float halfToFloat(uint16_t bits);
float bfloat16ToFloat(uint16_t bits);

/// Returns element `index` of dense `data` of `dtype` as a double (exact for
/// every type except 64-bit integers beyond 2^53). NaN for an unknown dtype.
double elementAsDouble(const void *data, int32_t dtype, size_t index);

/// Prints up to `maxValues` elements as `[v0, v1, v2]`, ending with `, ...]`
/// when there are more. Floats use 6 significant digits, integers print
/// exactly, bools as true/false.
std::string formatValues(const tessel_tensor_view &tensor, size_t maxValues);

/// The result of comparing an actual tensor with an expected one.
struct Comparison {
  double maxAbsError = 0; ///< over pairs where neither is NaN
  double maxRelError = 0; ///< |a-e|/|e| over pairs where e is non-zero
  int64_t mismatches = 0;
  int64_t count = 0;
  bool ok() const { return mismatches == 0; }
};

/// Compares element-wise with NumPy's allclose rule: `a` matches `e` when
/// |a - e| <= atol + rtol * |e|, infinities match only themselves, and NaN
/// matches NaN only. Integers and bools are compared with the same rule, in
/// double. Fails when dtypes or shapes differ.
bool compareTensors(const tessel_tensor_view &actual,
                    const tessel_tensor_view &expected, double rtol,
                    double atol, Comparison &result, std::string &error);

} // namespace tessel::io

#endif // TESSEL_TENSOR_IO_HPP
