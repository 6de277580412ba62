// Copyright 2026 The pbaccel Authors.

#include "pbaccel/skip_size.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "pbaccel/internal/kernel_registry.h"

namespace pbaccel {
namespace {

using internal::ActiveKernel;
using internal::SizeFormat;

size_t VarintBytes(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

template <SizeFormat S, typename T>
size_t Size(absl::Span<const T> values) {
  return ActiveKernel().Sizer(S)(values.data(), values.size());
}

}  // namespace

VarintCount CountVarints(absl::string_view payload) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(payload.data());
  return {ActiveKernel().count_terminators(p, p + payload.size()),
          !payload.empty() && (static_cast<uint8_t>(payload.back()) & 0x80) != 0};
}

absl::StatusOr<size_t> SkipVarints(absl::string_view payload, size_t n) {
  const uint8_t* const begin = reinterpret_cast<const uint8_t*>(payload.data());
  const uint8_t* const end = begin + payload.size();
  const uint8_t* p = begin;
  size_t left = n;
  size_t run = 0;  // Continuation bytes since the last terminator.
  // Whole words, while the n-th terminator is not in them and no varint in them can be over-long
  // (a run of ten continuation bytes spans two words); anything else is left to the finish.
  while (left > 0 && end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    const uint64_t stops = ~w & 0x8080808080808080ull;
    const size_t k = static_cast<size_t>(__builtin_popcountll(stops));
    if (k >= left) break;
    if (stops == 0) {
      if (run + 8 >= 10) break;
      run += 8;
    } else {
      if (run + static_cast<size_t>(__builtin_ctzll(stops)) / 8 >= 10) break;
      run = 7 - (63 - static_cast<size_t>(__builtin_clzll(stops))) / 8;  // Bytes after the last.
    }
    left -= k;
    p += 8;
  }
  // The precise finish, byte by byte.
  for (; left > 0 && p < end; ++p) {
    if (*p < 0x80) {
      --left;
      run = 0;
    } else if (++run == 10) {
      return absl::InvalidArgumentError(
          absl::StrCat("varint at byte offset ", (p - begin) - 9, " does not end within 10 bytes"));
    }
  }
  if (left > 0) {
    return absl::OutOfRangeError(absl::StrCat("payload of ", payload.size(), " bytes holds ",
                                              n - left, " varints, fewer than ", n));
  }
  return static_cast<size_t>(p - begin);
}

size_t EncodedSizeInt32(absl::Span<const int32_t> v) { return Size<SizeFormat::kInt32>(v); }
size_t EncodedSizeUInt32(absl::Span<const uint32_t> v) { return Size<SizeFormat::kUInt32>(v); }
size_t EncodedSizeSInt32(absl::Span<const int32_t> v) { return Size<SizeFormat::kSInt32>(v); }
size_t EncodedSizeUInt64(absl::Span<const uint64_t> v) { return Size<SizeFormat::kUInt64>(v); }
size_t EncodedSizeSInt64(absl::Span<const int64_t> v) { return Size<SizeFormat::kSInt64>(v); }
size_t EncodedSizeInt64(absl::Span<const int64_t> v) {
  return ActiveKernel().Sizer(SizeFormat::kUInt64)(v.data(), v.size());  // Same bits.
}
size_t EncodedSizeBool(absl::Span<const bool> v) { return v.size(); }
size_t EncodedSizeEnum(absl::Span<const int> v) { return Size<SizeFormat::kInt32>(v); }

size_t PackedFieldSize(int field_number, size_t payload_bytes) {
  if (payload_bytes == 0) return 0;
  return VarintBytes(static_cast<uint64_t>(field_number) << 3) + VarintBytes(payload_bytes) +
         payload_bytes;
}

}  // namespace pbaccel
