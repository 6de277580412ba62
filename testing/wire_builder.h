// Copyright 2026 The pbaccel Authors.
//
// wire_builder.h: builds protobuf wire bytes for tests, benchmarks and the differential kit: the
// one varint encoder of the project, able to force a varint's length (non-canonical padding, the
// 10-byte form of a negative int32, invalid 11-byte and longer varints), tags, packed payloads and
// length-delimited fields, and protobuf's zigzag mapping.
//
// Nothing here validates: it writes what it is asked to, so tests can build malformed input.

#ifndef PBACCEL_TESTING_WIRE_BUILDER_H_
#define PBACCEL_TESTING_WIRE_BUILDER_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace pbaccel {
namespace testing {

// Appends `value`'s LEB128 encoding padded to exactly `length` bytes (>= 1) with continuation
// bytes: canonical when `length` is the value's shortest length, non-canonical when longer, and a
// varint no decoder may accept when longer than 10. The bits of `value` that do not fit in
// `length` bytes (7 per byte) are dropped; use Varint(value, length) to have that checked.
void AppendPaddedVarint(uint64_t value, int length, std::string* out);

// Appends the canonical (shortest) LEB128 encoding of `value` (1 to 10 bytes).
void AppendVarint(uint64_t value, std::string* out);

// The number of bytes AppendVarint writes for `value`.
int VarintLength(uint64_t value);

// `value` padded to exactly `length` bytes (1..10), as AppendPaddedVarint.
// REQUIRES: value fits in `length` bytes (every value fits in 10: the 10th byte holds bit 63).
std::string Varint(uint64_t value, int length);

// The canonical encoding of `value`.
std::string Varint(uint64_t value);

// A varint that never ends within 10 bytes: `length` (>= 11) bytes, all but the last with the
// continuation bit set.
std::string OverlongVarint(int length);

// A 10-byte varint whose 10th byte is `last` (< 0x80): values above 1 carry bits past bit 63,
// which lenient decoding drops and strict decoding rejects.
std::string TenByteVarint(uint64_t low63, uint8_t last);

// Appends the tag of field `number` with wire type `wire_type` (0..7; 6 and 7 are invalid, and
// field numbers 0 and >= 2^29 too: tests need them).
void AppendTag(uint64_t number, int wire_type, std::string* out);

// The packed payload of `values`: their canonical varints, concatenated.
std::string EncodePacked(absl::Span<const uint64_t> values);

// Length-delimited field `field_number` holding `payload` (a packed payload, a submessage, a
// string): tag (wire type 2), length, payload.
std::string LengthDelimitedField(int field_number, absl::string_view payload);

// Varint field `field_number` holding `value`: tag (wire type 0), canonical varint.
std::string VarintField(int field_number, uint64_t value);

// ZigZag encodings and decodings, as protobuf's WireFormatLite defines them. The 32-bit decoding
// reads the low 32 bits of a wire value.
inline uint64_t ZigZagEncode32(int32_t v) {
  return static_cast<uint32_t>((static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31));
}
inline uint64_t ZigZagEncode64(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int32_t ZigZagDecode32(uint64_t wire) {
  const uint32_t n = static_cast<uint32_t>(wire);
  return static_cast<int32_t>((n >> 1) ^ (~(n & 1) + 1));
}
inline int64_t ZigZagDecode64(uint64_t wire) {
  return static_cast<int64_t>((wire >> 1) ^ (~(wire & 1) + 1));
}

}  // namespace testing
}  // namespace pbaccel

#endif  // PBACCEL_TESTING_WIRE_BUILDER_H_
