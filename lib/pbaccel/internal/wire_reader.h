// Copyright 2026 The pbaccel Authors.
//
// wire_reader.h: the one wire reader. Every part of pbaccel that reads the protobuf wire format
// reads it here, with upstream protobuf's rules (google/protobuf/parse_context.h: ReadTag,
// ParseVarint, ReadSize):
//   * a tag is a varint of at most 5 bytes; bits past 32 are dropped, as upstream's ReadTag drops
//     them; field number 0 and wire types 6 and 7 are errors;
//   * a varint value has at most 10 bytes (bits past 63 dropped); fixed32/fixed64 need 4/8 bytes;
//   * a length is a varint of at most 5 bytes, below 2^31, and must fit in the rest of the input.
//
// Two forms of the same reads, for two kinds of caller:
//   * The generated parsers' forms, ReadTag, ReadVarint and ReadLength: the one-byte case (and
//     varint values of up to four bytes) inline, longer ones out of line (lib/wire_reader.cc),
//     each returning two words in registers. A generated parser's every case calls them, so they
//     are small.
//   * The walkers' form, ReadField (one field: its tag and its value's extent, as a WireField), for
//     the reflection walk, the field reader (FieldReader, SkipField, FindField), the stream parser
//     and the differential kit's mutations: always inlined, every length of varint included, so
//     that a walk loop keeps its position and the field's number and wire type in registers
//     (FieldReader's walk over the real-data tiles takes about 30% less time so; docs/kernels.md).
// Both read a varint of two to eight bytes as one word (VarintInWord; VarintInWord32 for the
// generated parsers' inline four bytes; pbaccel/internal/varint_word-inl.h, whose one text the
// kernels also compile, each with its own instruction set). A packed field's payload is the
// kernels' to decode (parsers/), not this reader's.
//
// Groups: ReadField does not enter them. A start-group field ends where its body begins, and the
// caller skips the body (ReadWholeField in field_reader.h does, with upstream's nesting limit). An
// end-group tag is returned as a field; whether one is allowed there is the caller's decision.
//
// Bounds: every function reads only bytes in [p, end); no allocation.

#ifndef PBACCEL_INTERNAL_WIRE_READER_H_
#define PBACCEL_INTERNAL_WIRE_READER_H_

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "pbaccel/wire_type.h"

namespace pbaccel {
namespace internal {

namespace word {
#include "pbaccel/internal/varint_word-inl.h"
}  // namespace word

// A fixed-width little-endian value (fixed32, fixed64, sfixed*, float, double).
// REQUIRES: sizeof(T) bytes readable at p.
template <typename T>
inline T LoadFixed(const char* p) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                "fixed-width loads assume little-endian");
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// --- Varints ------------------------------------------------------------------------------------

// Reads a varint of at most `max_bytes` bytes in [p, end) (bits past 63 dropped) as one word
// where eight bytes are left, else byte by byte. Returns the byte after it, or nullptr if it is
// longer or runs past `end`. For callers that know the varint is longer than one byte (the
// out-of-line readers); ReadVarintUpTo tests for one byte first.
inline const char* ReadVarintByWord(const char* p, const char* end, int max_bytes,
                                    uint64_t* value) {
  if (end - p >= 8) {
    // Eight bytes in bounds: a varint that ends within them is one word (OSM's zero-copy read,
    // whose ways each start with a five-byte id, gains 2-4%). Nine or ten bytes: the loop below.
    const int length =
        word::VarintInWord(word::LoadLittleEndian64(reinterpret_cast<const uint8_t*>(p)), value);
    if (length != 0) return length <= max_bytes ? p + length : nullptr;
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

// ReadVarintByWord, with a one-byte varint (most tags, lengths, values) tested for first: wholly
// inline, for the walkers.
inline const char* ReadVarintUpTo(const char* p, const char* end, int max_bytes, uint64_t* value) {
  if (p < end && static_cast<uint8_t>(*p) < 0x80) {
    *value = static_cast<uint8_t>(*p);
    return p + 1;
  }
  return ReadVarintByWord(p, end, max_bytes, value);
}

// Out-of-line continuations of the generated parsers' inline readers below, for multi-byte
// values (lib/wire_reader.cc). Each returns its two results in registers (a struct of two words),
// not through memory: a call site then keeps the value in a register, and the code is smaller.
struct TagRead {
  const char* next;  // The byte after the tag (the tag's first byte if it is malformed).
  uint32_t tag;      // 0 if malformed.
};
TagRead ReadTagSlow(const char* p, const char* end);
struct VarintRead {
  const char* next;  // The byte after the varint, or nullptr if it is malformed.
  uint64_t value;
};
// A varint of up to ten bytes ending before `end` (bits past 63 dropped), read as words where ten
// bytes are readable: the bytes from p to `readable_end` (at or past `end`: the input's end, where
// `end` is a submessage's) may be loaded, but none at or past `end` is taken (a varint not ended
// before `end` is malformed however the bytes after it read). So a value closing a short
// submessage (a vector tile's 64-bit value, the last of its own five to eleven bytes) is a word
// and its last bytes, not a loop. Else ReadVarintByWord. (The walkers keep ReadVarintByWord's
// eight-byte form: with this one inlined into them, zero-copy reads were slower; docs/speed.md.)
VarintRead ReadVarintSlow(const char* p, const char* end, const char* readable_end);
struct LengthRead {
  const char* payload;  // The payload's first byte, or nullptr if the length is malformed or the
                        // payload does not fit before `end`.
  const char* payload_end;
};
LengthRead ReadLengthSlow(const char* p, const char* end);

// Reads a tag (at most 5 bytes, bits past 32 dropped). REQUIRES p < end. Returns the byte after
// it; a malformed tag yields *tag = 0 (which no field number matches) and returns p.
inline const char* ReadTag(const char* p, const char* end, uint32_t* tag) {
  const uint8_t b = static_cast<uint8_t>(*p);
  if (ABSL_PREDICT_TRUE(b < 0x80)) {
    *tag = b;
    return p + 1;
  }
  const TagRead read = ReadTagSlow(p, end);
  *tag = read.tag;
  return read.next;
}

// What ReadVarint does when a varint goes out of line: nothing (OnSlowVarint for tests counts).
struct NoSlowVarintHook {
  void operator()() const {}
};

// Reads a varint value (at most 10 bytes, bits past 63 dropped). Returns the byte after it, or
// nullptr if it is longer or runs past `end`. Inline: one- and two-byte varints (small ids,
// string-table indexes, line numbers), as upstream's ReadVarint64 reads them, and three- and
// four-byte ones where four bytes are left before `end` (addresses, sample values, user ids; why
// no longer ones: docs/speed.md, "Varints of three and four bytes inline"), as one 32-bit word.
// Longer ones, or ones closer to `end`, out of line, after OnSlowVarint() (a test's counter;
// nothing by default): ReadVarintSlow, which may load bytes up to `readable_end` (at or past
// `end`; the form without it: `end`) and takes none past `end`.
template <typename OnSlowVarint = NoSlowVarintHook>
inline const char* ReadVarint(const char* p, const char* end, const char* readable_end,
                              uint64_t* value) {
  if (ABSL_PREDICT_TRUE(p < end)) {
    const uint32_t b0 = static_cast<uint8_t>(p[0]);
    if (ABSL_PREDICT_TRUE(b0 < 0x80)) {
      *value = b0;
      return p + 1;
    }
    if (end - p >= 2 && static_cast<uint8_t>(p[1]) < 0x80) {
      *value = b0 - 0x80 + (static_cast<uint32_t>(static_cast<uint8_t>(p[1])) << 7);
      return p + 2;
    }
  }
  if (ABSL_PREDICT_TRUE(end - p >= 4)) {
    const int length = word::VarintInWord32(LoadFixed<uint32_t>(p), value);
    if (ABSL_PREDICT_TRUE(length != 0)) return p + length;
  }
  OnSlowVarint()();
  const VarintRead read = ReadVarintSlow(p, end, readable_end);
  *value = read.value;
  return read.next;
}
template <typename OnSlowVarint = NoSlowVarintHook>
inline const char* ReadVarint(const char* p, const char* end, uint64_t* value) {
  return ReadVarint<OnSlowVarint>(p, end, end, value);
}

// Reads a length (at most 5 bytes, below 2^31) and checks that the payload fits before `end`.
// Returns the payload's first byte and sets *payload_end, or returns nullptr.
inline const char* ReadLength(const char* p, const char* end, const char** payload_end) {
  if (ABSL_PREDICT_TRUE(p < end && static_cast<uint8_t>(*p) < 0x80)) {
    const size_t n = static_cast<uint8_t>(*p);
    ++p;
    if (ABSL_PREDICT_FALSE(n > static_cast<size_t>(end - p))) return nullptr;
    *payload_end = p + n;
    return p;
  }
  const LengthRead read = ReadLengthSlow(p, end);
  *payload_end = read.payload_end;
  return read.payload;
}

// --- Whole fields (the walkers' form) -----------------------------------------------------------

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
      p = ReadVarintUpTo(p, end, 10, &field->varint);
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
      p = ReadVarintUpTo(p, end, 5, &len);
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
    p = ReadVarintUpTo(p, end, 5, &tag);
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

#endif  // PBACCEL_INTERNAL_WIRE_READER_H_
