// Copyright 2026 The pbaccel Authors.
//
// wire_walker.h: the one walk over a serialized message's fields. The message parser, the field
// reader (FieldReader, SkipField, FindField) and the differential kit's mutations all step through
// fields with ReadField; none has a tag or length reader of its own.
//
// ReadField reads one field's tag and finds its value's extent, with upstream protobuf's rules
// (google/protobuf/parse_context.h: ReadTag, ParseVarint, ReadSize):
//   * a tag is a varint of at most 5 bytes; bits past 32 are dropped, as upstream's ReadTag drops
//     them; field number 0 and wire types 6 and 7 are errors;
//   * a varint value has at most 10 bytes (bits past 63 dropped); fixed32/fixed64 need 4/8 bytes;
//   * a length is a varint of at most 5 bytes, below 2^31, and must fit in the rest of the input.
// It does not enter groups: a start-group field ends where its body begins, and the caller skips
// the body (SkipField in field_reader.h does, with upstream's nesting limit). An end-group tag is
// returned as a field; whether one is allowed there is the caller's decision.
//
// Cost: one byte compare per tag, varint value and length in the common one-byte case; no
// allocation, no bounds beyond [p, end). ReadField and ReadValue are always inlined: a walk loop
// then keeps its position in a register, and the caller tests the field's number and wire type
// where they were computed instead of reloading them from a WireField written through memory
// (FieldReader's walk over the real-data tiles takes about 30% less time so).

#ifndef PBACCEL_INTERNAL_WIRE_WALKER_H_
#define PBACCEL_INTERNAL_WIRE_WALKER_H_

#include <climits>
#include <cstdint>
#include <cstring>

#include "absl/base/attributes.h"
#include "absl/numeric/bits.h"
#include "pbaccel/wire_type.h"

namespace pbaccel {
namespace internal {

// Reads a varint of at most `max_bytes` bytes in [p, end) (bits past 63 dropped). Returns the byte
// after it, or nullptr if it is longer or runs past `end`.
inline const char* ReadVarint(const char* p, const char* end, int max_bytes, uint64_t* value) {
  if (p < end && static_cast<uint8_t>(*p) < 0x80) {  // One byte: most tags, lengths, values.
    *value = static_cast<uint8_t>(*p);
    return p + 1;
  }
  if (end - p >= 8) {
    // Eight bytes in bounds: the varint's end is found and its 7-bit groups joined in one word,
    // without a branch per byte (OSM's zero-copy read, whose ways each start with a five-byte
    // id, gains 2-4%). A varint of nine or ten bytes takes the loop below.
    uint64_t w;
    std::memcpy(&w, p, sizeof(w));
    const uint64_t stops = ~w & 0x8080808080808080ull;
    if (stops != 0) {
      const int bits = absl::countr_zero(stops) + 1;  // 8 * the varint's length.
      if (bits > 8 * max_bytes) return nullptr;
      uint64_t x = bits == 64 ? w : w & ((uint64_t{1} << bits) - 1);
      x = (x & 0x007F007F007F007Full) | ((x & 0x7F007F007F007F00ull) >> 1);
      x = (x & 0x00003FFF00003FFFull) | ((x & 0x3FFF00003FFF0000ull) >> 2);
      x = (x & 0x000000000FFFFFFFull) | ((x & 0x0FFFFFFF00000000ull) >> 4);
      *value = x;
      return p + bits / 8;
    }
  }
  uint64_t v = 0;
  for (int i = 0; i < max_bytes && p < end; ++i) {
    const uint8_t b = static_cast<uint8_t>(*p++);
    v |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if (b < 0x80) {
      *value = v;
      return p;
    }
  }
  return nullptr;
}

// Why ReadField stopped. Tag errors are at the field's tag; the others at its value.
enum class WireError : uint8_t {
  kNone = 0,
  kMalformedTag,  // The tag is longer than 5 bytes or runs past the end.
  kFieldNumberZero,
  kInvalidWireType,  // 6 or 7.
  kMalformedVarint,  // A varint value longer than 10 bytes or running past the end.
  kTruncatedFixed64,
  kTruncatedFixed32,
  kMalformedLength,  // Longer than 5 bytes, past the end, or 2^31 or more.
  kLengthPastEnd,    // The payload would run past the end of the input.
};

// "malformed tag", "field number 0", ...: the words of pbaccel's error messages.
inline const char* WireErrorText(WireError error) {
  switch (error) {
    case WireError::kNone: return "no error";
    case WireError::kMalformedTag: return "malformed tag";
    case WireError::kFieldNumberZero: return "field number 0";
    case WireError::kInvalidWireType: return "invalid wire type";
    case WireError::kMalformedVarint: return "malformed varint";
    case WireError::kTruncatedFixed64: return "truncated fixed64";
    case WireError::kTruncatedFixed32: return "truncated fixed32";
    case WireError::kMalformedLength: return "malformed length";
    case WireError::kLengthPastEnd: return "length past the end of the input";
  }
  return "malformed field";
}

inline bool IsTagError(WireError error) {
  return error == WireError::kMalformedTag || error == WireError::kFieldNumberZero ||
         error == WireError::kInvalidWireType;
}

// One field, as pointers into the input.
struct WireField {
  uint32_t number = 0;
  WireType wire_type = WireType::kVarint;
  const char* tag = nullptr;    // The tag's first byte.
  const char* value = nullptr;  // The first byte after the tag (varint, fixed bytes, length, body).
  const char* payload = nullptr;  // kLengthDelimited: the first byte after the length; else value.
  const char* end = nullptr;      // One past the value; groups: == value (the body is not read).
  uint64_t varint = 0;            // kVarint: the value. kLengthDelimited: the length. Else 0.
};

// Reads the value of a field whose tag is already read into field->number and field->wire_type,
// from `p` (the first byte after the tag).
// REQUIRES: p <= end.
// Reads:    only bytes in [p, end).
// Returns:  field->end on success (field->value, payload, end and varint set); nullptr with *error
//           set on an error (field->value set).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* ReadValue(const char* p, const char* end,
                                                          WireField* field, WireError* error) {
  field->value = p;
  field->payload = p;
  field->varint = 0;
  switch (field->wire_type) {
    case WireType::kVarint:
      p = ReadVarint(p, end, 10, &field->varint);
      if (p == nullptr) *error = WireError::kMalformedVarint;
      break;
    case WireType::kFixed64:
      if (end - p >= 8) {
        p += 8;
      } else {
        *error = WireError::kTruncatedFixed64;
        p = nullptr;
      }
      break;
    case WireType::kFixed32:
      if (end - p >= 4) {
        p += 4;
      } else {
        *error = WireError::kTruncatedFixed32;
        p = nullptr;
      }
      break;
    case WireType::kLengthDelimited: {
      uint64_t len;
      p = ReadVarint(p, end, 5, &len);
      if (p == nullptr || len > static_cast<uint64_t>(INT_MAX)) {
        *error = WireError::kMalformedLength;
        return nullptr;
      }
      if (len > static_cast<uint64_t>(end - p)) {
        *error = WireError::kLengthPastEnd;
        return nullptr;
      }
      field->varint = len;
      field->payload = p;
      p += len;
      break;
    }
    case WireType::kStartGroup:
    case WireType::kEndGroup: break;
  }
  if (p != nullptr) field->end = p;
  return p;
}

// Reads the field whose tag starts at `p`: the tag, then ReadValue.
// REQUIRES: p < end.
// Reads:    only bytes in [p, end).
// Returns:  field->end on success. On an error, nullptr with *error set; field->tag is set, and
//           field->value too for a value error (IsTagError false).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* ReadField(const char* p, const char* end,
                                                          WireField* field, WireError* error) {
  field->tag = p;
  uint64_t tag;
  if (static_cast<uint8_t>(*p) < 0x80) {
    tag = static_cast<uint8_t>(*p++);
  } else {
    p = ReadVarint(p, end, 5, &tag);
    if (p == nullptr) {
      *error = WireError::kMalformedTag;
      return nullptr;
    }
    tag &= UINT32_MAX;
  }
  field->number = static_cast<uint32_t>(tag >> 3);
  if (field->number == 0) {
    *error = WireError::kFieldNumberZero;
    return nullptr;
  }
  if ((tag & 7) > 5) {
    *error = WireError::kInvalidWireType;
    return nullptr;
  }
  field->wire_type = static_cast<WireType>(tag & 7);
  return ReadValue(p, end, field, error);
}

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_WIRE_WALKER_H_
