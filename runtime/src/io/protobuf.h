//===- protobuf.h - Protocol buffer wire format -----------------*- C++ -*-===//
//
// Just enough of the protobuf wire format to read and write one flat message
// (https://protobuf.dev/programming-guides/encoding/). Every read checks the
// bounds of its input.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_IO_PROTOBUF_H
#define TESSEL_RUNTIME_IO_PROTOBUF_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tessel::io::protobuf {

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

/// Reads fields from a byte range. Each method returns false, leaving the
/// reader where it was, when the input ends early or is malformed.
class Reader {
public:
  Reader(const uint8_t *begin, const uint8_t *end) : cursor(begin), end(end) {}

  bool atEnd() const { return cursor == end; }
  size_t remaining() const { return size_t(end - cursor); }

  /// A varint of at most 10 bytes whose value fits in 64 bits.
  bool readVarint(uint64_t &value);
  bool readFixed32(uint32_t &value);
  bool readFixed64(uint64_t &value);
  /// A field key: field number (>= 1) and wire type.
  bool readTag(uint32_t &field, uint32_t &wireType);
  /// A length-delimited payload, returned as a sub-range.
  bool readBytes(const uint8_t *&data, size_t &size);
  /// Skips a field's payload; groups are not supported.
  bool skip(uint32_t wireType);

private:
  const uint8_t *cursor;
  const uint8_t *end;
};

/// Appends fields to a buffer.
void writeVarint(std::vector<uint8_t> &out, uint64_t value);
void writeTag(std::vector<uint8_t> &out, uint32_t field, WireType wireType);
void writeBytes(std::vector<uint8_t> &out, uint32_t field, const void *data,
                size_t size);

} // namespace tessel::io::protobuf

#endif // TESSEL_RUNTIME_IO_PROTOBUF_H
