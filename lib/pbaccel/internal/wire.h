// Copyright 2026 The pbaccel Authors.
//
// wire.h: the varint reader shared by the message parser's field walk and the field reader.

#ifndef PBACCEL_INTERNAL_WIRE_H_
#define PBACCEL_INTERNAL_WIRE_H_

#include <cstdint>

namespace pbaccel {
namespace internal {

// Reads a varint of at most `max_bytes` bytes in [p, end) (bits past 63 dropped). Returns the byte
// after it, or nullptr if it is longer or runs past `end`.
inline const char* ReadVarint(const char* p, const char* end, int max_bytes, uint64_t* value) {
  if (p < end && static_cast<uint8_t>(*p) < 0x80) {  // One byte: most tags, lengths, values.
    *value = static_cast<uint8_t>(*p);
    return p + 1;
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

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_WIRE_H_
