//===- TensorConversion.cpp - ONNX types and tensors to MLIR --------------===//

#include "NodeImporter.h"

#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <iterator>

using namespace mlir;
using namespace mlir::tessel::onnx_import;

Type mlir::tessel::onnx_import::convertElementType(MLIRContext *ctx,
                                                   int32_t onnxType) {
  Builder b(ctx);
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::INT16:
    return b.getIntegerType(16);
  case onnx::TensorProto::INT32:
    return b.getIntegerType(32);
  case onnx::TensorProto::INT64:
    return b.getIntegerType(64);
  case onnx::TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case onnx::TensorProto::UINT16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case onnx::TensorProto::UINT32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case onnx::TensorProto::UINT64:
    return b.getIntegerType(64, /*isSigned=*/false);
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

std::string mlir::tessel::onnx_import::elementTypeName(int32_t onnxType) {
  if (onnx::TensorProto::DataType_IsValid(onnxType))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(onnxType));
  // Types newer than the libonnx Tessel may be built with.
  static const char *const newer[] = {
      "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
      "UINT4",        "INT4",           "FLOAT4E2M1"};
  if (onnxType >= 17 && onnxType < 17 + static_cast<int32_t>(std::size(newer)))
    return newer[onnxType - 17];
  return "data type " + std::to_string(onnxType);
}

namespace {

/// Copies typed repeated fields into a little-endian byte buffer of `width`
/// bytes per element.
template <typename Field>
std::vector<char> packField(const Field &field, unsigned width) {
  std::vector<char> bytes(field.size() * static_cast<size_t>(width));
  for (int i = 0; i < field.size(); ++i) {
    uint64_t v = static_cast<uint64_t>(field.Get(i));
    std::memcpy(bytes.data() + static_cast<size_t>(i) * width, &v, width);
  }
  return bytes;
}

} // namespace

FailureOr<ElementsAttr>
mlir::tessel::onnx_import::convertTensor(MLIRContext *ctx,
                                         const onnx::TensorProto &tensor,
                                         std::string &error,
                                         llvm::StringRef externalDataDir) {
  Type element = convertElementType(ctx, tensor.data_type());
  if (!element) {
    error = "tensor '" + tensor.name() + "' has unsupported element type " +
            elementTypeName(tensor.data_type());
    return failure();
  }
  bool external = tensor.data_location() == onnx::TensorProto::EXTERNAL;
  if (external && externalDataDir.empty()) {
    error = "tensor '" + tensor.name() +
            "' keeps its data in an external file, which only a graph "
            "initializer of a model read from a file may do";
    return failure();
  }
  SmallVector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0 || llvm::MulOverflow(count, d, count) ||
        count > (int64_t(1) << 40)) {
      error = "tensor '" + tensor.name() + "' has invalid dimensions";
      return failure();
    }
    shape.push_back(d);
  }
  auto type = RankedTensorType::get(shape, element);
  unsigned width = element.isInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;

  std::vector<char> bytes;
  if (external) {
    // Read in place (memory-mapped) and copied once, into the attribute.
    std::unique_ptr<llvm::MemoryBuffer> data =
        readExternalData(tensor, externalDataDir, error);
    if (!data)
      return failure();
    if (data->getBufferSize() != static_cast<size_t>(count) * width) {
      error = "tensor '" + tensor.name() + "' holds " +
              std::to_string(data->getBufferSize()) +
              " bytes of external data, but its shape needs " +
              std::to_string(static_cast<size_t>(count) * width);
      return failure();
    }
    if (!element.isInteger(1))
      return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(
          type, ArrayRef<char>(data->getBufferStart(), data->getBufferSize())));
    bytes.assign(data->getBufferStart(), data->getBufferEnd());
  } else if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if (!element.isInteger(1) && raw.size() == static_cast<size_t>(count) * width)
      return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(
          type, ArrayRef<char>(raw.data(), raw.size())));
    bytes.assign(raw.begin(), raw.end());
  } else {
    switch (tensor.data_type()) {
    case onnx::TensorProto::FLOAT:
      bytes.resize(tensor.float_data_size() * sizeof(float));
      if (!bytes.empty())
        std::memcpy(bytes.data(), tensor.float_data().data(), bytes.size());
      break;
    case onnx::TensorProto::DOUBLE:
      bytes.resize(tensor.double_data_size() * sizeof(double));
      if (!bytes.empty())
        std::memcpy(bytes.data(), tensor.double_data().data(), bytes.size());
      break;
    case onnx::TensorProto::INT64:
      bytes = packField(tensor.int64_data(), 8);
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      bytes = packField(tensor.uint64_data(), width);
      break;
    default: // int32_data carries every narrower type, and float16 bits.
      bytes = packField(tensor.int32_data(), width);
      break;
    }
  }
  if (bytes.size() != static_cast<size_t>(count) * width) {
    error = "tensor '" + tensor.name() + "' holds " +
            std::to_string(bytes.size()) + " bytes of data, but its shape needs " +
            std::to_string(static_cast<size_t>(count) * width);
    return failure();
  }
  if (element.isInteger(1)) {
    SmallVector<bool> values;
    for (char c : bytes)
      values.push_back(c != 0);
    return cast<ElementsAttr>(DenseElementsAttr::get(type, values));
  }
  return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(bytes.data(), bytes.size())));
}
