//===- tensor_proto.cpp - ONNX TensorProto files --------------------------===//
//
// Field numbers from onnx/onnx.proto (message TensorProto):
//   1 dims (repeated int64)      2 data_type (int32)     3 segment (message)
//   4 float_data (repeated float, packed)     5 int32_data (repeated int32)
//   6 string_data (repeated bytes)            7 int64_data (repeated int64)
//   8 name (string)              9 raw_data (bytes)      10 double_data
//   11 uint64_data               12 doc_string          13 external_data
//   14 data_location (enum; 1 = EXTERNAL)
// Repeated numeric fields may come packed or one value per field.
//
//===----------------------------------------------------------------------===//

#include "internal.h"
#include "protobuf.h"

#include <cstring>

namespace tessel::io {

namespace {

using protobuf::Reader;

enum Field : uint32_t {
  kDims = 1,
  kDataType = 2,
  kSegment = 3,
  kFloatData = 4,
  kInt32Data = 5,
  kStringData = 6,
  kInt64Data = 7,
  kName = 8,
  kRawData = 9,
  kDoubleData = 10,
  kUint64Data = 11,
  kDocString = 12,
  kExternalData = 13,
  kDataLocation = 14,
};

/// Everything read from the message, before it is checked as a whole.
struct Fields {
  std::vector<int64_t> dims;
  uint64_t dataType = 0;
  std::string name;
  bool haveRaw = false;
  const uint8_t *raw = nullptr;
  size_t rawSize = 0;
  std::vector<uint32_t> floatBits;
  std::vector<uint64_t> doubleBits;
  std::vector<int32_t> int32s;
  std::vector<int64_t> int64s;
  std::vector<uint64_t> uint64s;
};

const char *fieldName(uint32_t field) {
  switch (field) {
  case kDims:
    return "dims";
  case kFloatData:
    return "float_data";
  case kInt32Data:
    return "int32_data";
  case kInt64Data:
    return "int64_data";
  case kDoubleData:
    return "double_data";
  case kUint64Data:
    return "uint64_data";
  default:
    return "a field";
  }
}

/// Reads a repeated varint field, packed (wire type 2) or not (0), calling
/// `add` for each value.
template <typename Add>
bool readVarints(Reader &reader, uint32_t field, uint32_t wireType, Add add,
                 std::string &error) {
  uint64_t value;
  if (wireType == protobuf::kVarint) {
    if (!reader.readVarint(value))
      return false;
    return add(value);
  }
  if (wireType != protobuf::kLengthDelimited) {
    error = std::string(fieldName(field)) + " has wire type " +
            std::to_string(wireType) + ", expected 0 or 2";
    return false;
  }
  const uint8_t *data;
  size_t size;
  if (!reader.readBytes(data, size))
    return false;
  Reader packed(data, data + size);
  while (!packed.atEnd()) {
    if (!packed.readVarint(value)) {
      error = std::string("malformed packed ") + fieldName(field);
      return false;
    }
    if (!add(value))
      return false;
  }
  return true;
}

/// Reads a repeated fixed-width field (float_data, double_data), packed or
/// not, as raw bits: T is uint32_t or uint64_t.
template <typename T>
bool readFixed(Reader &reader, uint32_t field, uint32_t wireType,
               std::vector<T> &out, std::string &error) {
  constexpr uint32_t kSingle =
      sizeof(T) == 4 ? protobuf::kFixed32 : protobuf::kFixed64;
  if (wireType == kSingle) {
    T value;
    bool ok;
    if constexpr (sizeof(T) == 4)
      ok = reader.readFixed32(value);
    else
      ok = reader.readFixed64(value);
    if (ok)
      out.push_back(value);
    return ok;
  }
  if (wireType != protobuf::kLengthDelimited) {
    error = std::string(fieldName(field)) + " has wire type " +
            std::to_string(wireType) + ", expected " + std::to_string(kSingle) +
            " or 2";
    return false;
  }
  const uint8_t *data;
  size_t size;
  if (!reader.readBytes(data, size))
    return false;
  if (size % sizeof(T) != 0) {
    error = std::string("packed ") + fieldName(field) + " has " +
            std::to_string(size) + " bytes, not a multiple of " +
            std::to_string(sizeof(T));
    return false;
  }
  size_t first = out.size();
  out.resize(first + size / sizeof(T));
  if (size > 0)
    std::memcpy(out.data() + first, data, size);
  return true;
}

bool expectWireType(uint32_t wireType, uint32_t expected, const char *field,
                    std::string &error) {
  if (wireType == expected)
    return true;
  error = std::string(field) + " has wire type " + std::to_string(wireType) +
          ", expected " + std::to_string(expected);
  return false;
}

/// Reads every field of the message into `fields`.
bool readFields(const uint8_t *data, size_t size, Fields &fields,
                std::string &error) {
  Reader reader(data, data + size);
  const char *truncated = "truncated or malformed protobuf";
  while (!reader.atEnd()) {
    uint32_t field, wireType;
    if (!reader.readTag(field, wireType)) {
      error = std::string(truncated) + " (bad field key)";
      return false;
    }
    error.clear();
    bool ok = true;
    switch (field) {
    case kDims:
      ok = readVarints(
          reader, field, wireType,
          [&](uint64_t value) {
            if (int64_t(value) < 0) {
              error = "negative extent " + std::to_string(int64_t(value)) +
                      " in dims";
              return false;
            }
            if (fields.dims.size() == kMaxFileRank) {
              error = "more than " + std::to_string(kMaxFileRank) + " dims";
              return false;
            }
            fields.dims.push_back(int64_t(value));
            return true;
          },
          error);
      break;
    case kDataType:
      ok = expectWireType(wireType, protobuf::kVarint, "data_type", error) &&
           reader.readVarint(fields.dataType);
      break;
    case kFloatData:
      ok = readFixed(reader, field, wireType, fields.floatBits, error);
      break;
    case kDoubleData:
      ok = readFixed(reader, field, wireType, fields.doubleBits, error);
      break;
    case kInt32Data:
      ok = readVarints(
          reader, field, wireType,
          [&](uint64_t value) {
            // int32 values are sign-extended to 64 bits on the wire.
            fields.int32s.push_back(int32_t(uint32_t(value)));
            return true;
          },
          error);
      break;
    case kInt64Data:
      ok = readVarints(
          reader, field, wireType,
          [&](uint64_t value) {
            fields.int64s.push_back(int64_t(value));
            return true;
          },
          error);
      break;
    case kUint64Data:
      ok = readVarints(
          reader, field, wireType,
          [&](uint64_t value) {
            fields.uint64s.push_back(value);
            return true;
          },
          error);
      break;
    case kName:
    case kRawData: {
      const uint8_t *bytes;
      size_t length;
      ok = expectWireType(wireType, protobuf::kLengthDelimited,
                          field == kName ? "name" : "raw_data", error) &&
           reader.readBytes(bytes, length);
      if (ok && field == kName)
        fields.name.assign(reinterpret_cast<const char *>(bytes), length);
      if (ok && field == kRawData) {
        fields.haveRaw = true;
        fields.raw = bytes;
        fields.rawSize = length;
      }
      break;
    }
    case kSegment:
      error = "segmented tensors (field 'segment') are not supported";
      return false;
    case kStringData:
      error = "string tensors are not supported";
      return false;
    case kExternalData:
      error = "tensors with external data are not supported";
      return false;
    case kDataLocation: {
      uint64_t location = 0;
      ok =
          expectWireType(wireType, protobuf::kVarint, "data_location", error) &&
          reader.readVarint(location);
      if (ok && location != 0) {
        error = "tensors with external data are not supported";
        return false;
      }
      break;
    }
    default: // doc_string, and fields unknown to this reader
      ok = reader.skip(wireType);
      if (!ok && (wireType == protobuf::kStartGroup ||
                  wireType == protobuf::kEndGroup)) {
        error = "field " + std::to_string(field) +
                " uses the unsupported group wire type";
        return false;
      }
      break;
    }
    if (!ok) {
      if (error.empty())
        error = std::string(truncated) + " in field " + std::to_string(field);
      return false;
    }
  }
  return true;
}

const char *onnxTypeName(uint64_t dataType) {
  switch (dataType) {
  case 8:
    return "string";
  case 14:
    return "complex64";
  case 15:
    return "complex128";
  case 17:
    return "float8e4m3fn";
  case 18:
    return "float8e4m3fnuz";
  case 19:
    return "float8e5m2";
  case 20:
    return "float8e5m2fnuz";
  case 21:
    return "uint4";
  case 22:
    return "int4";
  case 23:
    return "float4e2m1";
  default:
    return nullptr;
  }
}

/// The typed field that carries values of `dtype`, when there is no raw_data.
uint32_t typedFieldFor(int32_t dtype) {
  switch (dtype) {
  case TESSEL_DTYPE_F32:
    return kFloatData;
  case TESSEL_DTYPE_F64:
    return kDoubleData;
  case TESSEL_DTYPE_I64:
    return kInt64Data;
  case TESSEL_DTYPE_U32:
  case TESSEL_DTYPE_U64:
    return kUint64Data;
  default: // int8/16/32, uint8/16, bool, float16, bfloat16
    return kInt32Data;
  }
}

size_t typedCount(const Fields &fields, uint32_t field) {
  switch (field) {
  case kFloatData:
    return fields.floatBits.size();
  case kDoubleData:
    return fields.doubleBits.size();
  case kInt32Data:
    return fields.int32s.size();
  case kInt64Data:
    return fields.int64s.size();
  default:
    return fields.uint64s.size();
  }
}

/// Stores `value` as element `index` of `dtype`, failing when it is out of
/// the type's range.
bool storeInteger(int64_t value, int32_t dtype, size_t index,
                  AlignedBytes &bytes, std::string &error) {
  int64_t low = 0, high = 0;
  switch (dtype) {
  case TESSEL_DTYPE_I8:
    low = INT8_MIN, high = INT8_MAX;
    break;
  case TESSEL_DTYPE_U8:
    high = UINT8_MAX;
    break;
  case TESSEL_DTYPE_BOOL:
    high = 1;
    break;
  case TESSEL_DTYPE_I16:
    low = INT16_MIN, high = INT16_MAX;
    break;
  case TESSEL_DTYPE_U16:
  case TESSEL_DTYPE_F16:
  case TESSEL_DTYPE_BF16:
    high = UINT16_MAX;
    break;
  case TESSEL_DTYPE_I32:
    low = INT32_MIN, high = INT32_MAX;
    break;
  case TESSEL_DTYPE_U32:
    high = UINT32_MAX;
    break;
  default:
    low = INT64_MIN, high = INT64_MAX;
    break;
  }
  if (value < low || value > high) {
    error = "value " + std::to_string(value) + " at index " +
            std::to_string(index) + " is out of range for " +
            tessel_dtype_name(dtype);
    return false;
  }
  size_t size = tessel_dtype_size(dtype);
  // Little-endian: the low bytes of the value are the element.
  std::memcpy(bytes.data() + index * size, &value, size);
  return true;
}

/// Fills `bytes` (already sized) from the typed field.
bool convertTyped(const Fields &fields, int32_t dtype, uint32_t field,
                  AlignedBytes &bytes, std::string &error) {
  if (bytes.empty())
    return true;
  switch (field) {
  case kFloatData:
    std::memcpy(bytes.data(), fields.floatBits.data(), bytes.size());
    return true;
  case kDoubleData:
    std::memcpy(bytes.data(), fields.doubleBits.data(), bytes.size());
    return true;
  case kInt64Data:
    std::memcpy(bytes.data(), fields.int64s.data(), bytes.size());
    return true;
  case kInt32Data:
    for (size_t i = 0; i < fields.int32s.size(); ++i)
      if (!storeInteger(fields.int32s[i], dtype, i, bytes, error))
        return false;
    return true;
  default: // uint64_data
    if (dtype == TESSEL_DTYPE_U64) {
      std::memcpy(bytes.data(), fields.uint64s.data(), bytes.size());
      return true;
    }
    for (size_t i = 0; i < fields.uint64s.size(); ++i) {
      if (fields.uint64s[i] > UINT32_MAX) {
        error = "value " + std::to_string(fields.uint64s[i]) + " at index " +
                std::to_string(i) + " is out of range for uint32";
        return false;
      }
      if (!storeInteger(int64_t(fields.uint64s[i]), dtype, i, bytes, error))
        return false;
    }
    return true;
  }
}

} // namespace

bool parseTensorProto(const uint8_t *data, size_t size, HostTensor &out,
                      std::string &error) {
  Fields fields;
  if (!readFields(data, size, fields, error))
    return false;

  if (fields.dataType == 0) {
    error = "the TensorProto has no data_type";
    return false;
  }
  int32_t dtype = fields.dataType <= INT32_MAX ? int32_t(fields.dataType) : 0;
  size_t elementSize = tessel_dtype_size(dtype);
  if (elementSize == 0) {
    const char *name = onnxTypeName(fields.dataType);
    error = "unsupported data_type " + std::to_string(fields.dataType) +
            (name ? std::string(" (") + name + ")" : std::string());
    return false;
  }
  uint64_t count = 0, bytes = 0;
  if (!checkedSizes(fields.dims, elementSize, count, bytes, error))
    return false;
  std::string type = formatTensorType(dtype, fields.dims);

  // Exactly one source of data: raw_data, or the field for this type.
  uint32_t expectedField = typedFieldFor(dtype);
  for (uint32_t field :
       {kFloatData, kDoubleData, kInt32Data, kInt64Data, kUint64Data}) {
    if (typedCount(fields, field) == 0)
      continue;
    if (fields.haveRaw) {
      error =
          std::string("both raw_data and ") + fieldName(field) + " hold values";
      return false;
    }
    if (field != expectedField) {
      error = std::string(fieldName(field)) + " holds values, but a " +
              tessel_dtype_name(dtype) + " tensor keeps them in " +
              fieldName(expectedField);
      return false;
    }
  }

  out.bytes.clear();
  if (fields.haveRaw) {
    if (fields.rawSize != bytes) {
      error = "raw_data has " + std::to_string(fields.rawSize) +
              " bytes, but " + type + " needs " + std::to_string(bytes);
      return false;
    }
    if (dtype == TESSEL_DTYPE_BOOL &&
        !checkBoolBytes(fields.raw, fields.rawSize, error))
      return false;
    out.bytes.assign(fields.raw, fields.raw + fields.rawSize);
  } else {
    size_t values = typedCount(fields, expectedField);
    if (values != count) {
      error = std::string(fieldName(expectedField)) + " has " +
              std::to_string(values) + " values, but " + type + " needs " +
              std::to_string(count);
      return false;
    }
    out.bytes.resize(size_t(bytes));
    if (!convertTyped(fields, dtype, expectedField, out.bytes, error))
      return false;
  }
  out.name = std::move(fields.name);
  out.dtype = dtype;
  out.shape = std::move(fields.dims);
  return true;
}

bool encodeTensorProto(const tessel_tensor_view &tensor,
                       const std::string &name, std::vector<uint8_t> &out,
                       std::string &error) {
  if (!checkWritableView(tensor, error))
    return false;
  out.clear();
  if (tensor.rank > 0) {
    std::vector<uint8_t> packed;
    for (int32_t i = 0; i < tensor.rank; ++i)
      protobuf::writeVarint(packed, uint64_t(tensor.shape[i]));
    protobuf::writeBytes(out, kDims, packed.data(), packed.size());
  }
  protobuf::writeTag(out, kDataType, protobuf::kVarint);
  protobuf::writeVarint(out, uint64_t(tensor.dtype));
  if (!name.empty())
    protobuf::writeBytes(out, kName, name.data(), name.size());
  protobuf::writeBytes(out, kRawData, tensor.data, tensor.size_bytes);
  return true;
}

} // namespace tessel::io
