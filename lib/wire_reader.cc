// Copyright 2026 The pbaccel Authors.
//
// The out-of-line halves of the generated parsers' readers (pbaccel/internal/wire_reader.h): the
// values longer than their inline cases (a tag or length of one byte, a varint value of up to
// four), read as the walkers read them (the one-byte test skipped: the inline half made it).

#include "pbaccel/internal/wire_reader.h"

#include <climits>
#include <cstdint>

namespace pbaccel {
namespace internal {

TagRead ReadTagSlow(const char* p, const char* end) {
  uint64_t v;
  const char* next = ReadVarintByWord(p, end, 5, &v);
  if (next == nullptr) return {p, 0};
  return {next, static_cast<uint32_t>(v)};
}

VarintRead ReadVarintSlow(const char* p, const char* end, const char* readable_end) {
  uint64_t value = 0;
  if (readable_end - p >= 10) {
    const uint64_t w = word::LoadLittleEndian64(reinterpret_cast<const uint8_t*>(p));
    int length = word::VarintInWord(w, &value);
    if (length == 0) {
      length =
          word::VarintAfterWord(w, static_cast<uint8_t>(p[8]), static_cast<uint8_t>(p[9]), &value);
    }
    if (length == 0 || length > end - p) return {nullptr, 0};
    return {p + length, value};
  }
  const char* const next = ReadVarintByWord(p, end, 10, &value);
  return {next, value};
}

LengthRead ReadLengthSlow(const char* p, const char* end) {
  uint64_t n;
  p = ReadVarintByWord(p, end, 5, &n);
  if (p == nullptr || n > static_cast<uint64_t>(INT_MAX) || n > static_cast<uint64_t>(end - p)) {
    return {nullptr, nullptr};
  }
  return {p, p + n};
}

}  // namespace internal
}  // namespace pbaccel
