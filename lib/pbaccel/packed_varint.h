// Copyright 2026 The pbaccel Authors.
//
// packed_varint.h: decoding the payload of a packed repeated varint field.
//
// A packed repeated field of a varint type (int32, int64, uint32, uint64, sint32, sint64, bool,
// enum) is one length-delimited record on the wire; its payload, the bytes after the tag and the
// length, is a run of concatenated varints. These functions decode such a payload with the kernel
// chosen for this CPU (pbaccel/kernels.h) and return exactly what upstream protobuf's parser puts
// in the field:
//
//   * each varint has 1 to 10 bytes; bits past bit 63 (in a 10th byte) are dropped;
//   * 32-bit types keep the low 32 bits (a negative int32 or enum is a 10-byte varint; a uint32
//     field accepts a 64-bit varint and keeps its low half); sint32/sint64 are zigzag-decoded;
//     bool is true for any non-zero varint;
//   * non-canonical encodings (0x80 0x00 for 0) are accepted;
//   * a varint that does not end within 10 bytes, or a payload that ends inside a varint, is an
//     error.
//
// Strict mode (DecodeOptions::strict) also rejects a varint whose value does not fit the field's
// type, as upb and the protobuf conformance tests expect of validating parsers: bits past bit 63;
// for uint32/sint32 a value of 2^32 or more; for int32/enum a value other than the 64-bit sign
// extension of an int32; for bool a value other than 0 or 1.
//
// Two forms per type:
//
//   absl::Status DecodePackedT(payload, RepeatedField<T>* field, options)
//       Appends the payload's values to `field`. Counts the varints first (a fast bulk count),
//       reserves exactly that many, then decodes straight into the field's storage: one
//       allocation at most, never more elements than the payload has bytes. A field with spare
//       capacity (a reused one: Clear() keeps the capacity) is decoded into first, without the
//       count; only the values that do not fit are counted and reserved for. Where the capacity
//       suffices that is one pass over the payload instead of two. A short payload (lenient, up
//       to 64 bytes, 128 for 64-bit types) goes to the kernel's decoder for short payloads,
//       without the count, into room for one element per byte and 8 more (at least 16),
//       reserved first where the spare capacity is less: a reused field keeps that room.
//       On error `field` holds exactly the elements it held before (its capacity may have grown).
//
//   absl::StatusOr<size_t> DecodePackedT(payload, absl::Span<T> out, options)
//       Decodes into a caller's buffer and returns the number of values. If the payload holds more
//       values than `out` has room for, returns kResourceExhausted (saying how many it holds).
//       Elements of `out` past the returned count may be overwritten (the kernels store whole
//       vectors where `out` has room): to keep the rest of a larger buffer, pass a span of just
//       the payload's count (CountVarints, skip_size.h). Fastest for short payloads: room for
//       8 elements past the values (a reusable buffer passed whole, or one value per payload
//       byte and 8 more), which lets the kernels store their vectors in place; a span of exactly
//       the values takes the same steps into a buffer of their own and a copy. A buffer reused
//       for many payloads is best aligned to a page (4096 bytes): one that starts just below a
//       page's end has those vectors split across the page on every call, which costs about 25
//       cycles each on Zen 4, more than decoding a short payload (docs/kernels.md).
//       On error the contents of `out` are unspecified.
//
//   absl::StatusOr<size_t> DecodePackedT(payload, const char* buffer_end, absl::Span<T> out,
//                                        options)
//       The same, for a payload inside a larger buffer the caller holds, whose end is
//       `buffer_end` (a message read with FieldReader: the end of the bytes given to the
//       outermost reader; REQUIRES payload.data() + payload.size() <= buffer_end, and the bytes
//       up to it readable). Lenient decodes may then go to the kernel's decoders that read (never
//       write, never depend on) bytes past the payload, up to buffer_end:
//         * a 32-bit or bool payload of at most 16 bytes, with 24 bytes of the buffer from its
//           first byte, into a span of at least 16 elements: the unbounded tiny decoder, which
//           may store up to 16 elements of `out`;
//         * a payload of at most 64 bytes (a 64-bit one first, any other that the tiny decoder
//           did not take), with 64 bytes of the buffer from its first byte, into a span of a
//           value per payload byte and 8 more: the window decoder, where the kernel has one
//           (bmi2, masked_vbyte_avx2, masked_vbyte; avx512's is its bounded decoder), which
//           may store up to 8 elements past the values.
//       On CPUs without AVX-512 either takes about half the time of the bounded way, whose care
//       not to read past the payload costs there (size_policy.h, SpanTakesTinyDecoder and
//       SpanTakesWindowDecoder). Anything else, and what those decoders decline, as the form
//       above.
//
// Errors (absl::Status codes):
//   kInvalidArgument   malformed payload: the message names the problem and its byte offset in
//                      the payload, e.g. "varint at byte offset 17 does not end within 10 bytes";
//   kResourceExhausted the output cannot hold the values (Span form; or a RepeatedField would
//                      exceed INT_MAX elements).
//
// Bounds: reads exactly the bytes of `payload`, never one past its end (every kernel guarantees
// it; tests place payloads against an inaccessible page).
//
// Cost: O(payload bytes). Each call fetches the dispatched kernel once. Below a size measured per
// kernel (16 bytes for most; 0 for avx512, whose masked loads make tiny payloads cheap)
// payloads decode in a simple inline loop, so tiny fields (the common case in real messages) pay
// nothing for bulk machinery that would not pay off; with a kernel that has a bounded tiny decoder
// (avx512, bmi2, masked_vbyte_avx2, neon), lenient span decodes of up to 64 bytes (128 for 64-bit
// types) take it (no per-varint loop; it reads only the payload and writes only within the span),
// called from the inline span functions below without a call into the library first.
// Thread-safe: concurrent calls on different outputs are fine.

#ifndef PBACCEL_PACKED_VARINT_H_
#define PBACCEL_PACKED_VARINT_H_

#include "pbaccel/internal/requires_cxx17.h"

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/repeated_field.h"
#include "pbaccel/internal/kernel_abi.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/internal/size_policy.h"

namespace pbaccel {

struct DecodeOptions {
  // false (default): exactly upstream protobuf C++'s acceptance rules.
  // true: also reject varints whose value overflows the field's type (see above).
  bool strict = false;
};

template <typename T>
using RepeatedField = google::protobuf::RepeatedField<T>;

// X(Name, VarintFormat, element type) for each non-delta DecodePacked##Name pair below (the
// RepeatedField forms' definitions and the span forms are generated from this one list).
#define PBACCEL_PACKED_VARINT_TYPES(X) \
  X(Int32, kInt32, int32_t)            \
  X(Int64, kInt64, int64_t)            \
  X(UInt32, kUInt32, uint32_t)         \
  X(UInt64, kUInt64, uint64_t)         \
  X(SInt32, kSInt32, int32_t)          \
  X(SInt64, kSInt64, int64_t)          \
  X(Bool, kBool, bool)                 \
  X(Enum, kInt32, int)
// The same for the three delta pairs (their forms take the running sum's initial value too).
#define PBACCEL_PACKED_DELTA_TYPES(X)    \
  X(DeltaUInt32, kDeltaUInt32, uint32_t) \
  X(DeltaUInt64, kDeltaUInt64, uint64_t) \
  X(DeltaSInt64, kDeltaSInt64, int64_t)

// --- Append to a RepeatedField -------------------------------------------------------------------

absl::Status DecodePackedInt32(absl::string_view payload, RepeatedField<int32_t>* field,
                               DecodeOptions options = {});
absl::Status DecodePackedInt64(absl::string_view payload, RepeatedField<int64_t>* field,
                               DecodeOptions options = {});
absl::Status DecodePackedUInt32(absl::string_view payload, RepeatedField<uint32_t>* field,
                                DecodeOptions options = {});
absl::Status DecodePackedUInt64(absl::string_view payload, RepeatedField<uint64_t>* field,
                                DecodeOptions options = {});
absl::Status DecodePackedSInt32(absl::string_view payload, RepeatedField<int32_t>* field,
                                DecodeOptions options = {});
absl::Status DecodePackedSInt64(absl::string_view payload, RepeatedField<int64_t>* field,
                                DecodeOptions options = {});
absl::Status DecodePackedBool(absl::string_view payload, RepeatedField<bool>* field,
                              DecodeOptions options = {});
// Enum fields, open or closed, as their int32 values (generated code's RepeatedField<int>). This
// keeps every value; a proto2 closed enum's unknown values are the message parser's business.
absl::Status DecodePackedEnum(absl::string_view payload, RepeatedField<int>* field,
                              DecodeOptions options = {});

// Differential coding (delta): the payload holds gaps g[0], g[1], ... and the appended values are
// their running sum, initial + g[0], initial + g[0] + g[1], ... modulo 2^32 (2^64). The classic
// encoding of sorted id lists. As fast as the plain decoders and a running-sum loop, or faster
// (the avx512 kernel's sums in its vectors; `//bench:delta_decode`).
absl::Status DecodePackedDeltaUInt32(absl::string_view payload, RepeatedField<uint32_t>* field,
                                     uint32_t initial = 0, DecodeOptions options = {});
absl::Status DecodePackedDeltaUInt64(absl::string_view payload, RepeatedField<uint64_t>* field,
                                     uint64_t initial = 0, DecodeOptions options = {});
// Gaps stored as sint64 (zigzag), so they may be negative: OpenStreetMap's PBF codes its nodes'
// ids, latitudes and longitudes and its ways' node references so. The values are the running sums
// of the gaps' zigzag decodings, modulo 2^64 (an int64 wraps; no overflow is an error, as the
// payload's own sint64 values are all valid).
absl::Status DecodePackedDeltaSInt64(absl::string_view payload, RepeatedField<int64_t>* field,
                                     int64_t initial = 0, DecodeOptions options = {});

// --- Decode into a caller's buffer ---------------------------------------------------------------
//
// Inline: a lenient decode of a short payload (at most BoundedTinyPayloadBytes: 64 bytes, 128 for
// 64-bit types) first tries the active kernel's bounded tiny decoder right here, so a tiny field
// costs the kernel fetch and that one call (docs/kernels.md, "Size thresholds"); everything else,
// and what it declines, goes to the library's decoder.

namespace internal {

// The bounded tiny decoder's result for a lenient decode of `payload` into out[0, cap), or a
// negative value when the kernel has none, the mode is strict, or it declines (then nothing was
// written that the caller may rely on, and DecodeIntoSpan decodes and names any error).
inline int TryDecodeTinyInline(VarintFormat format, absl::string_view payload, void* out,
                               size_t cap, DecodeOptions options) {
  // Longer payloads and strict decodes leave at once, before the kernel is fetched.
  if (!ApiTriesBoundedTiny(format, payload.size(), options.strict)) return -1;
  const uint8_t* const p = reinterpret_cast<const uint8_t*>(payload.data());
  return ActiveKernel().DecodeTinyBounded(format, p, p + payload.size(), out, cap);
}

// The result of the kernel's decoders that read past the payload, for a span decode of `payload`
// whose caller vouches for the bytes up to `buffer_end`, or -1 where neither takes the payload
// (size_policy.h): a 64-bit payload goes to decode_window where the kernel has one (the kernel
// fetched first, so that a kernel without one meets no size test); any other to decode_tiny
// (SpanTakesTinyDecoder), else to decode_window. Negative results (declined, malformed) leave the
// payload to the span form without a buffer end, which decides. The kernel is fetched once.
inline int TryDecodeWithSlack(VarintFormat format, absl::string_view payload,
                              const char* buffer_end, void* out, size_t cap,
                              DecodeOptions options) {
  const size_t bytes = payload.size();
  const ptrdiff_t readable = buffer_end - payload.data();
  const uint8_t* const p = reinterpret_cast<const uint8_t*>(payload.data());
  // The window decoder's room, as DecodeTinyBounded clamps it: more than a payload it takes uses.
  const int window_room = static_cast<int>(
      cap < size_t{kBoundedTinyPayloadBytes} ? cap : size_t{kBoundedTinyPayloadBytes});
  if (Is64BitFormat(format)) {
    const TinyDecodeFn window = ActiveKernel().WindowDecoder(format);
    if (window == nullptr || !SpanTakesWindowDecoder(bytes, readable, cap, options.strict)) {
      return -1;
    }
    return window(p, p + bytes, out, window_room);
  }
  if (SpanTakesTinyDecoder(bytes, readable, cap, options.strict)) {
    return ActiveKernel().TinyDecoder(format)(p, p + bytes, out, kTinyPayloadBytes);
  }
  if (!SpanTakesWindowDecoder(bytes, readable, cap, options.strict)) return -1;
  const TinyDecodeFn window = ActiveKernel().WindowDecoder(format);
  return window == nullptr ? -1 : window(p, p + bytes, out, window_room);
}

// Out of line: decodes `payload` into out[0, cap) (elements of `format`'s output type) with the
// active kernel, without the bounded tiny decoder; returns the count or the error (packed
// varint errors as above; kResourceExhausted when `cap` is too small).
absl::StatusOr<size_t> DecodeIntoSpan(VarintFormat format, absl::string_view payload, void* out,
                                      size_t cap, uint64_t delta_base, DecodeOptions options);

}  // namespace internal

static_assert(internal::kBoundedTinySpareValues <= 8, "the spare room the span forms document");

#define PBACCEL_DECLARE_SPAN_DECODER(Name, Format, T)                                            \
  inline absl::StatusOr<size_t> DecodePacked##Name(absl::string_view payload, absl::Span<T> out, \
                                                   DecodeOptions options = {}) {                 \
    const int n = internal::TryDecodeTinyInline(internal::VarintFormat::Format, payload,         \
                                                out.data(), out.size(), options);                \
    if (n >= 0) return static_cast<size_t>(n);                                                   \
    return internal::DecodeIntoSpan(internal::VarintFormat::Format, payload, out.data(),         \
                                    out.size(), 0, options);                                     \
  }
PBACCEL_PACKED_VARINT_TYPES(PBACCEL_DECLARE_SPAN_DECODER)
#undef PBACCEL_DECLARE_SPAN_DECODER

// The rest goes through the plain span form, which fetches the kernel and tests the size again:
// one fetch for both tiny decoders measured slower on the tiles (docs/kernels.md, "The span forms
// given a buffer end").
#define PBACCEL_DECLARE_BUFFER_END_SPAN_DECODER(Name, Format, T)                              \
  inline absl::StatusOr<size_t> DecodePacked##Name(absl::string_view payload,                 \
                                                   const char* buffer_end, absl::Span<T> out, \
                                                   DecodeOptions options = {}) {              \
    const int n = internal::TryDecodeWithSlack(internal::VarintFormat::Format, payload,       \
                                               buffer_end, out.data(), out.size(), options);  \
    if (n >= 0) return static_cast<size_t>(n);                                                \
    return DecodePacked##Name(payload, out, options);                                         \
  }
PBACCEL_PACKED_VARINT_TYPES(PBACCEL_DECLARE_BUFFER_END_SPAN_DECODER)
#undef PBACCEL_DECLARE_BUFFER_END_SPAN_DECODER

namespace internal {

// values[i] becomes initial + values[0] + ... + values[i], modulo 2^32 or 2^64 (T's width; an
// int64 wraps too).
template <typename T>
inline void RunningSumsFrom(T initial, T* values, size_t n) {
  uint64_t sum = static_cast<uint64_t>(initial);
  for (size_t i = 0; i < n; ++i) {
    sum += static_cast<uint64_t>(values[i]);
    values[i] = static_cast<T>(sum);
  }
}

}  // namespace internal

// DecodePackedDeltaUInt32(payload, absl::Span<uint32_t> out, uint32_t initial = 0, options = {})
// and its UInt64 and SInt64 twins: a short payload's gaps by the bounded tiny decoder of their
// format (as the plain span forms take it), summed here; the rest by the library's delta decoders.
#define PBACCEL_DECLARE_DELTA_SPAN_DECODER(Name, Format, T)                                       \
  inline absl::StatusOr<size_t> DecodePacked##Name(absl::string_view payload, absl::Span<T> out,  \
                                                   T initial = 0, DecodeOptions options = {}) {   \
    constexpr internal::VarintFormat kGaps = internal::GapFormat(internal::VarintFormat::Format); \
    const int n = internal::TryDecodeTinyInline(kGaps, payload, out.data(), out.size(), options); \
    if (n >= 0) {                                                                                 \
      internal::RunningSumsFrom(initial, out.data(), static_cast<size_t>(n));                     \
      return static_cast<size_t>(n);                                                              \
    }                                                                                             \
    return internal::DecodeIntoSpan(internal::VarintFormat::Format, payload, out.data(),          \
                                    out.size(), static_cast<uint64_t>(initial), options);         \
  }
PBACCEL_PACKED_DELTA_TYPES(PBACCEL_DECLARE_DELTA_SPAN_DECODER)
#undef PBACCEL_DECLARE_DELTA_SPAN_DECODER

}  // namespace pbaccel

#endif  // PBACCEL_PACKED_VARINT_H_
