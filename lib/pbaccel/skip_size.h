// Copyright 2026 The pbaccel Authors.
//
// skip_size.h: counting and skipping varints in bulk, and encoded sizes of arrays.
//
// All functions use the dispatched kernel (pbaccel/kernels.h): popcount of the terminator bits
// 8, 16 or 64 bytes at a time for counts; leading-zero counts (vplzcnt with AVX-512, unsigned
// compares with SSE4.1) for sizes.

#ifndef PBACCEL_SKIP_SIZE_H_
#define PBACCEL_SKIP_SIZE_H_

#include "pbaccel/internal/requires_cxx17.h"

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace pbaccel {

struct VarintCount {
  size_t count;             // Varints in the payload: bytes with the high bit clear.
  bool ends_inside_varint;  // The last byte has its high bit set (the payload is truncated).
};

// Counts the varints of a packed payload. Cost: O(bytes), no decoding. Does not check varint
// lengths (a decode does); `count` is exact for a well-formed payload and an upper bound on the
// values any payload decodes to.
VarintCount CountVarints(absl::string_view payload);

// The byte offset just past the first `n` varints of `payload` (0 for n == 0). Popcounts whole
// words until the n-th terminator is near, then finishes byte by byte; checks that no varint it
// passes is longer than 10 bytes. Errors: kOutOfRange if the payload holds fewer than n varints;
// kInvalidArgument (with the offset) for a varint longer than 10 bytes.
absl::StatusOr<size_t> SkipVarints(absl::string_view payload, size_t n);

// Bytes the values take as varints, with protobuf's rules: a negative int32 (and enum) takes 10
// bytes; sint values are zigzag-encoded; bool is 1 byte each. Equal to upstream's
// WireFormatLite::Int32Size(const RepeatedField<int32_t>&) and friends.
size_t EncodedSizeInt32(absl::Span<const int32_t> values);
size_t EncodedSizeInt64(absl::Span<const int64_t> values);
size_t EncodedSizeUInt32(absl::Span<const uint32_t> values);
size_t EncodedSizeUInt64(absl::Span<const uint64_t> values);
size_t EncodedSizeSInt32(absl::Span<const int32_t> values);
size_t EncodedSizeSInt64(absl::Span<const int64_t> values);
size_t EncodedSizeBool(absl::Span<const bool> values);
size_t EncodedSizeEnum(absl::Span<const int> values);

// The whole packed field on the wire: tag (field number, wire type 2), length varint, payload, as
// generated code's ByteSizeLong counts it; 0 when the payload is empty (nothing is written).
// REQUIRES: 1 <= field_number <= 2^29 - 1.
size_t PackedFieldSize(int field_number, size_t payload_bytes);

}  // namespace pbaccel

#endif  // PBACCEL_SKIP_SIZE_H_
