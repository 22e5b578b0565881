//===- npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Format (numpy/lib/format.py): the magic "\x93NUMPY", a major and a minor
// version byte, the header length (2 bytes little-endian in 1.0, 4 bytes in
// 2.0 and 3.0), then the header: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and ending in '\n'. The data follows.
//
//===----------------------------------------------------------------------===//

#include "internal.h"

#include <cstring>

namespace tessel::io {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

/// The header fields this reader needs.
struct NpyHeader {
  std::string descr;
  bool haveDescr = false;
  bool fortranOrder = false;
  bool haveFortranOrder = false;
  std::vector<int64_t> shape;
  bool haveShape = false;
};

/// A parser for the dict literal NumPy writes: string keys, and values that
/// are strings, True/False, or tuples of non-negative integers.
class HeaderParser {
public:
  HeaderParser(const char *begin, const char *end) : cursor(begin), end(end) {}

  bool parse(NpyHeader &header, std::string &error) {
    if (!consume('{'))
      return fail("the header is not a dict", error);
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail("expected a quoted key in the header", error);
      if (!consume(':'))
        return fail("expected ':' after '" + key + "' in the header", error);
      if (!parseValue(key, header, error))
        return false;
      if (!consume(',')) {
        if (consume('}'))
          break;
        return fail("expected ',' or '}' in the header", error);
      }
    }
    skipSpace();
    if (cursor != end)
      return fail("unexpected text after the header dict", error);
    if (!header.haveDescr || !header.haveFortranOrder || !header.haveShape)
      return fail("the header lacks 'descr', 'fortran_order' or 'shape'",
                  error);
    return true;
  }

private:
  const char *cursor;
  const char *end;

  static bool fail(const std::string &what, std::string &error) {
    error = what;
    return false;
  }

  void skipSpace() {
    while (cursor != end && (*cursor == ' ' || *cursor == '\t' ||
                             *cursor == '\n' || *cursor == '\r'))
      ++cursor;
  }

  bool consume(char c) {
    skipSpace();
    if (cursor == end || *cursor != c)
      return false;
    ++cursor;
    return true;
  }

  bool consumeWord(const char *word) {
    skipSpace();
    size_t length = std::strlen(word);
    if (size_t(end - cursor) < length || std::memcmp(cursor, word, length) != 0)
      return false;
    cursor += length;
    return true;
  }

  /// A quoted string without escapes (NumPy never writes any in these keys
  /// and values).
  bool parseString(std::string &out) {
    skipSpace();
    if (cursor == end || (*cursor != '\'' && *cursor != '"'))
      return false;
    char quote = *cursor++;
    const char *start = cursor;
    while (cursor != end && *cursor != quote) {
      if (*cursor == '\\')
        return false;
      ++cursor;
    }
    if (cursor == end)
      return false;
    out.assign(start, cursor);
    ++cursor;
    return true;
  }

  bool parseInteger(int64_t &out) {
    skipSpace();
    if (cursor == end || *cursor < '0' || *cursor > '9')
      return false;
    uint64_t value = 0;
    while (cursor != end && *cursor >= '0' && *cursor <= '9') {
      uint64_t digit = uint64_t(*cursor++ - '0');
      if (value > (uint64_t(INT64_MAX) - digit) / 10)
        return false;
      value = value * 10 + digit;
    }
    if (cursor != end && *cursor == 'L') // Python 2 longs
      ++cursor;
    out = int64_t(value);
    return true;
  }

  bool parseShape(std::vector<int64_t> &shape, std::string &error) {
    if (!consume('('))
      return fail("'shape' is not a tuple", error);
    shape.clear();
    while (!consume(')')) {
      int64_t extent;
      if (!parseInteger(extent))
        return fail("'shape' holds something other than a non-negative "
                    "integer that fits in int64",
                    error);
      if (shape.size() == kMaxFileRank)
        return fail("'shape' has more than " + std::to_string(kMaxFileRank) +
                        " dimensions",
                    error);
      shape.push_back(extent);
      if (!consume(',')) {
        if (consume(')'))
          break;
        return fail("expected ',' or ')' in 'shape'", error);
      }
    }
    return true;
  }

  bool parseValue(const std::string &key, NpyHeader &header,
                  std::string &error) {
    if (key == "descr") {
      if (!parseString(header.descr)) {
        skipSpace();
        return fail(cursor != end && *cursor == '['
                        ? "structured arrays are not supported"
                        : "'descr' is not a string",
                    error);
      }
      header.haveDescr = true;
      return true;
    }
    if (key == "fortran_order") {
      if (consumeWord("True"))
        header.fortranOrder = true;
      else if (consumeWord("False"))
        header.fortranOrder = false;
      else
        return fail("'fortran_order' is neither True nor False", error);
      header.haveFortranOrder = true;
      return true;
    }
    if (key == "shape") {
      header.haveShape = true;
      return parseShape(header.shape, error);
    }
    return fail("unexpected key '" + key + "' in the header", error);
  }
};

/// Maps a descr such as '<f4' to a dtype.
bool dtypeFromDescr(const std::string &descr, int32_t &dtype,
                    std::string &error) {
  static const struct {
    const char *code;
    int32_t dtype;
  } kTypes[] = {
      {"f2", TESSEL_DTYPE_F16}, {"f4", TESSEL_DTYPE_F32},
      {"f8", TESSEL_DTYPE_F64}, {"i1", TESSEL_DTYPE_I8},
      {"i2", TESSEL_DTYPE_I16}, {"i4", TESSEL_DTYPE_I32},
      {"i8", TESSEL_DTYPE_I64}, {"u1", TESSEL_DTYPE_U8},
      {"u2", TESSEL_DTYPE_U16}, {"u4", TESSEL_DTYPE_U32},
      {"u8", TESSEL_DTYPE_U64}, {"b1", TESSEL_DTYPE_BOOL},
  };
  if (descr.size() == 3) {
    char order = descr[0];
    std::string code = descr.substr(1);
    for (const auto &type : kTypes) {
      if (code != type.code)
        continue;
      bool singleByte = tessel_dtype_size(type.dtype) == 1;
      if (order == '<' || order == '=' ||
          (singleByte && (order == '|' || order == '>'))) {
        dtype = type.dtype;
        return true;
      }
      if (order == '>') {
        error = "big-endian data ('" + descr +
                "') is not supported; save it as little-endian, e.g. "
                "a.astype(a.dtype.newbyteorder('<'))";
        return false;
      }
      break;
    }
  }
  error = "unsupported dtype '" + descr + "'";
  return false;
}

const char *descrFor(int32_t dtype) {
  switch (dtype) {
  case TESSEL_DTYPE_F16:
    return "<f2";
  case TESSEL_DTYPE_F32:
    return "<f4";
  case TESSEL_DTYPE_F64:
    return "<f8";
  case TESSEL_DTYPE_I8:
    return "|i1";
  case TESSEL_DTYPE_I16:
    return "<i2";
  case TESSEL_DTYPE_I32:
    return "<i4";
  case TESSEL_DTYPE_I64:
    return "<i8";
  case TESSEL_DTYPE_U8:
    return "|u1";
  case TESSEL_DTYPE_U16:
    return "<u2";
  case TESSEL_DTYPE_U32:
    return "<u4";
  case TESSEL_DTYPE_U64:
    return "<u8";
  case TESSEL_DTYPE_BOOL:
    return "|b1";
  default:
    return nullptr;
  }
}

} // namespace

bool parseNpy(const uint8_t *data, size_t size, HostTensor &out,
              std::string &error) {
  if (size < kMagicSize || std::memcmp(data, kMagic, kMagicSize) != 0) {
    error = "not a .npy file (no \\x93NUMPY magic)";
    return false;
  }
  if (size < kMagicSize + 2) {
    error = "truncated .npy file: no version";
    return false;
  }
  uint8_t major = data[kMagicSize];
  size_t lengthBytes;
  if (major == 1) {
    lengthBytes = 2;
  } else if (major == 2 || major == 3) {
    lengthBytes = 4;
  } else {
    error = "unsupported .npy format version " + std::to_string(major) + "." +
            std::to_string(data[kMagicSize + 1]);
    return false;
  }
  size_t offset = kMagicSize + 2;
  if (size - offset < lengthBytes) {
    error = "truncated .npy file: no header length";
    return false;
  }
  uint64_t headerLength = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    headerLength |= uint64_t(data[offset + i]) << (8 * i);
  offset += lengthBytes;
  if (headerLength > size - offset) {
    error = "truncated .npy file: the header claims " +
            std::to_string(headerLength) + " bytes but " +
            std::to_string(size - offset) + " remain";
    return false;
  }

  NpyHeader header;
  const char *headerText = reinterpret_cast<const char *>(data + offset);
  HeaderParser parser(headerText, headerText + headerLength);
  if (!parser.parse(header, error)) {
    error = "bad .npy header: " + error;
    return false;
  }
  offset += size_t(headerLength);

  int32_t dtype;
  if (!dtypeFromDescr(header.descr, dtype, error))
    return false;
  if (header.fortranOrder) {
    error = "fortran_order=True (column-major) data is not supported; save "
            "a C-ordered array, e.g. np.ascontiguousarray(a)";
    return false;
  }
  uint64_t count = 0, bytes = 0;
  if (!checkedSizes(header.shape, tessel_dtype_size(dtype), count, bytes,
                    error))
    return false;
  size_t remaining = size - offset;
  if (remaining != bytes) {
    error =
        (remaining < bytes ? "truncated .npy file: " : "corrupt .npy file: ") +
        formatTensorType(dtype, header.shape) + " needs " +
        std::to_string(bytes) + " data bytes, the file has " +
        std::to_string(remaining);
    return false;
  }
  if (dtype == TESSEL_DTYPE_BOOL &&
      !checkBoolBytes(data + offset, remaining, error))
    return false;

  out.name.clear();
  out.dtype = dtype;
  out.shape = std::move(header.shape);
  out.bytes.assign(data + offset, data + size);
  return true;
}

bool encodeNpy(const tessel_tensor_view &tensor, std::vector<uint8_t> &out,
               std::string &error) {
  if (!checkWritableView(tensor, error))
    return false;
  const char *descr = descrFor(tensor.dtype);
  if (!descr) {
    error = std::string(tessel_dtype_name(tensor.dtype)) + " has no .npy type";
    return false;
  }
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': (";
  for (int32_t i = 0; i < tensor.rank; ++i) {
    header += std::to_string(tensor.shape[i]);
    if (tensor.rank == 1 || i + 1 < tensor.rank)
      header += tensor.rank == 1 ? "," : ", ";
  }
  header += "), }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes.
  size_t prefix = kMagicSize + 2 + 2;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 0xffff) {
    error = "the .npy header is too long for format 1.0";
    return false;
  }
  out.clear();
  out.reserve(prefix + header.size() + tensor.size_bytes);
  out.insert(out.end(), kMagic, kMagic + kMagicSize);
  out.push_back(1);
  out.push_back(0);
  out.push_back(uint8_t(header.size() & 0xff));
  out.push_back(uint8_t(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  const auto *data = static_cast<const uint8_t *>(tensor.data);
  if (tensor.size_bytes > 0)
    out.insert(out.end(), data, data + tensor.size_bytes);
  return true;
}

} // namespace tessel::io
