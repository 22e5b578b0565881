//===- protobuf.cpp - Protocol buffer wire format -------------------------===//

#include "protobuf.h"

#include <cstring>

namespace tessel::io::protobuf {

bool Reader::readVarint(uint64_t &value) {
  uint64_t result = 0;
  const uint8_t *p = cursor;
  for (unsigned i = 0; i < 10; ++i) {
    if (p == end)
      return false;
    uint8_t byte = *p++;
    // The tenth byte may only carry the 64th bit.
    if (i == 9 && byte > 1)
      return false;
    result |= uint64_t(byte & 0x7f) << (7 * i);
    if (!(byte & 0x80)) {
      value = result;
      cursor = p;
      return true;
    }
  }
  return false;
}

bool Reader::readFixed32(uint32_t &value) {
  if (remaining() < 4)
    return false;
  std::memcpy(&value, cursor, 4);
  cursor += 4;
  return true;
}

bool Reader::readFixed64(uint64_t &value) {
  if (remaining() < 8)
    return false;
  std::memcpy(&value, cursor, 8);
  cursor += 8;
  return true;
}

bool Reader::readTag(uint32_t &field, uint32_t &wireType) {
  const uint8_t *start = cursor;
  uint64_t key;
  if (!readVarint(key))
    return false;
  uint64_t number = key >> 3;
  if (number == 0 || number > (1u << 29) - 1) {
    cursor = start;
    return false;
  }
  field = uint32_t(number);
  wireType = uint32_t(key & 7);
  return true;
}

bool Reader::readBytes(const uint8_t *&data, size_t &size) {
  const uint8_t *start = cursor;
  uint64_t length;
  if (!readVarint(length))
    return false;
  if (length > remaining()) {
    cursor = start;
    return false;
  }
  data = cursor;
  size = size_t(length);
  cursor += size;
  return true;
}

bool Reader::skip(uint32_t wireType) {
  uint64_t scratch64;
  uint32_t scratch32;
  const uint8_t *data;
  size_t size;
  switch (wireType) {
  case kVarint:
    return readVarint(scratch64);
  case kFixed64:
    return readFixed64(scratch64);
  case kLengthDelimited:
    return readBytes(data, size);
  case kFixed32:
    return readFixed32(scratch32);
  default:
    return false;
  }
}

void writeVarint(std::vector<uint8_t> &out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(uint8_t(value | 0x80));
    value >>= 7;
  }
  out.push_back(uint8_t(value));
}

void writeTag(std::vector<uint8_t> &out, uint32_t field, WireType wireType) {
  writeVarint(out, (uint64_t(field) << 3) | wireType);
}

void writeBytes(std::vector<uint8_t> &out, uint32_t field, const void *data,
                size_t size) {
  writeTag(out, field, kLengthDelimited);
  writeVarint(out, size);
  const auto *bytes = static_cast<const uint8_t *>(data);
  if (size > 0)
    out.insert(out.end(), bytes, bytes + size);
}

} // namespace tessel::io::protobuf
