// Copyright 2026 The pbaccel Authors.
//
// kernel_abi.h: the interface every packed-varint decoding kernel implements.
//
// A packed repeated field's payload is a run of concatenated LEB128 varints with no tag and no
// length of their own. A kernel turns such a payload into integers of one of the formats below,
// with protobuf's semantics (google/protobuf/parse_context.h, VarintParse and
// ReadPackedVarintArray):
//
//   * A varint has 1 to 10 bytes. Byte i contributes its low 7 bits at bit 7*i; the high bit says
//     another byte follows. Bits beyond bit 63 (in the 10th byte) are dropped.
//   * A varint whose 10th byte still has its continuation bit set is an error (kTooLong).
//   * A payload that ends inside a varint is an error (kTruncated).
//   * Non-canonical encodings (e.g. 0x80 0x00 for 0) are accepted.
//   * The value is then narrowed to the field: 32-bit formats keep the low 32 bits (a negative
//     int32 arrives as a 10-byte varint), zigzag formats undo the zigzag mapping, bool is value !=
//     0.
//
// Strict mode (opt-in, upb-style validation) additionally rejects a varint whose value does not
// fit its type (kOverflow): any bits beyond bit 63; for uint32/sint32/delta-uint32 a value of 2^32
// or more; for int32 a value that is not a sign-extended 32-bit integer; for bool a value other
// than 0 or 1.
//
// The kernel contract (every kernel, every format, both modes):
//
//   DecodeResult decode(const uint8_t* p, const uint8_t* end, void* out, size_t cap,
//                       uint64_t delta_base);
//
//   REQUIRES: p <= end; [p, end) readable; `out` points to `cap` elements of the format's output
//             type (may be null when cap == 0).
//   Reads:    only bytes in [p, end). Never a byte at or past `end`, never a byte before `p`.
//   Writes:   the values to out[0 .. result.count), and nothing at or past out[cap]. Elements of
//             out[result.count, cap) may be overwritten too: block decoders store whole vectors
//             where `cap` leaves room for them (a store under a partial mask costs more).
//   Returns:  kOk with pos == end and count = number of varints, when the whole payload decoded;
//             kOutputFull when `cap` values were written and bytes remain, pos = the next varint;
//             an error with pos = the first byte of the offending varint and count = the values
//             decoded before it (they are written and correct).
//   Delta formats: out[i] = delta_base + gap[0] + ... + gap[i], modulo 2^width.
//
//   size_t count_terminators(const uint8_t* p, const uint8_t* end);
//
//   Returns the number of bytes in [p, end) with the high bit clear: the number of varints in a
//   well-formed payload, and an upper bound on the values any payload decodes to. Reads [p, end).
//
// A kernel is one source file in parsers/ compiled with only the instruction-set flags it needs.
// It includes only this header, the shared `-inl.h` algorithm headers, intrinsics and <cstdint>,
// <cstddef>, <cstring>, and keeps everything in an anonymous namespace except its one
// KernelDescriptor, which //lib's registry lists (see lib/pbaccel/kernels.h).

#ifndef PBACCEL_INTERNAL_KERNEL_ABI_H_
#define PBACCEL_INTERNAL_KERNEL_ABI_H_

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>  // For the shared -inl.h headers' SSE2 paths (tiny_payload-inl.h).
#elif defined(__ARM_NEON)
#include <arm_neon.h>  // For their NEON paths (AArch64's baseline).
#endif

namespace pbaccel {
namespace internal {

// What a kernel writes for each varint. The output element type is in the comment.
enum class VarintFormat : uint8_t {
  kInt32 = 0,        // int32_t: the low 32 bits (int32 and enum fields).
  kUInt32 = 1,       // uint32_t: the low 32 bits.
  kSInt32 = 2,       // int32_t: zigzag decoding of the low 32 bits.
  kInt64 = 3,        // int64_t: the 64 bits.
  kUInt64 = 4,       // uint64_t: the 64 bits.
  kSInt64 = 5,       // int64_t: zigzag decoding of the 64 bits.
  kBool = 6,         // bool: value != 0.
  kDeltaUInt32 = 7,  // uint32_t: running sum of the low 32 bits (differential coding).
  kDeltaUInt64 = 8,  // uint64_t: running sum of the 64 bits.
  kDeltaSInt64 = 9,  // int64_t: running sum of the zigzag decodings (OSM's ids and coordinates).
};
inline constexpr int kNumVarintFormats = 10;

enum class DecodeStatus : uint8_t {
  kOk = 0,
  kOutputFull = 1,  // `cap` values written, payload not finished.
  kTruncated = 2,   // The payload ends inside the varint at `pos`.
  kTooLong = 3,     // The varint at `pos` does not end within 10 bytes.
  kOverflow = 4,    // Strict mode: the varint at `pos` does not fit the field's type.
};

struct DecodeResult {
  const uint8_t* pos;
  size_t count;
  DecodeStatus status;
};

// The inline threshold of kernels that do not set their own: below 16 bytes (at most 16 varints)
// the portable loop of the public API beats the scalar, portable, masked_vbyte and bmi2 kernels'
// setup (docs/kernels.md, "Size thresholds").
inline constexpr uint32_t kDefaultInlineBelowBytes = 16;

using DecodeFn = DecodeResult (*)(const uint8_t* p, const uint8_t* end, void* out, size_t cap,
                                  uint64_t delta_base);
using CountFn = size_t (*)(const uint8_t* p, const uint8_t* end);

// Tiny payloads (generated parsers' packed fields of at most kTinyPayloadBytes), decoded without
// a kernel's setup and with no bound check per value (parsers/tiny_payload-inl.h; avx512 has its
// own, branch-free for varints of up to four bytes, eight for 64-bit fields):
//
//   int decode_tiny(const uint8_t* p, const uint8_t* end, void* out, int room);
//
//   REQUIRES: 0 <= end - p <= kTinyPayloadBytes; kTinyReadableBytes bytes readable from p (the
//             bytes past `end` are read and ignored); `out` has room for `room` >= end - p values.
//   Returns:  the number of values, all written to out[0 ..) (delta formats from a base of 0);
//             kTinyMalformed if the payload ends inside a varint (nothing else is malformed in
//             16 bytes without a varint longer than the decoder takes); kTinyUnhandled, having
//             written nothing useful, if a varint is longer than the decoder takes (4 bytes, or 8
//             with BMI2): the caller decodes such a payload another way.
inline constexpr int kTinyPayloadBytes = 16;
inline constexpr int kTinyReadableBytes = 24;
inline constexpr int kTinyMalformed = -1;
inline constexpr int kTinyUnhandled = -2;
using TinyDecodeFn = int (*)(const uint8_t* p, const uint8_t* end, void* out, int room);

// A kernel may also have a bounded tiny decoder, for callers that cannot offer the slack above
// (the public span API, PackedView: the payload may end at the end of the caller's memory, and
// the output may be exactly as large as the values):
//
//   int decode_tiny_bounded(const uint8_t* p, const uint8_t* end, void* out, int room);
//
//   REQUIRES: 0 <= end - p <= kBoundedTinyPayloadBytes; [p, end) readable; `out` has room for
//             `room` >= 0 values. Non-delta formats only (the entries of the delta formats are
//             null).
//   Reads:    only bytes in [p, end).
//   Writes:   only out[0, room): the values to out[0, result); elements of out[result, room) may
//             be overwritten too, also when the payload is declined or rejected (as `decode` may
//             past its count).
//   Returns:  as decode_tiny; also kTinyUnhandled when the payload holds more than `room` values.
//
// A caller that offers the kernel's bounded_tiny_spare_values (below; at most
// kBoundedTinySpareValues) values of room past the most the payload can hold (one per byte) lets
// it store whole groups of values past the last one (bmi2 and masked_vbyte_avx2 do, eight slots
// per 8-byte step; avx512 whole vectors where the room left holds them, instead of stores under a
// mask); with less, the kernel takes a slower way, never a wrong one.
//
// Its payloads go up to 64 bytes, four times decode_tiny's, and up to 128 for 64-bit outputs
// (BoundedTinyPayloadBytes): with no slack to offer, a caller of the bounded decoder has no
// cheaper way for such a payload than the kernel's block loop, and they are common (a tile's
// median geometry is 17 bytes, 89 % are at most 32; 96 % of an OSM block's way refs are at most
// 64 bytes, 85 % at most 32, and nearly all the rest at most 128). A caller may pass the bounded
// decoder a payload of up to kBoundedTinyPayloadBytes in any format; one longer than its
// format's BoundedTinyPayloadBytes is declined (kTinyUnhandled, nothing read or written).
inline constexpr int kBoundedTinyPayloadBytes = 128;
inline constexpr int kBoundedTinySpareValues = 8;
// Whether a (non-delta) format's values are 64 bits wide: int64, uint64, sint64.
constexpr bool Is64BitFormat(VarintFormat format) {
  return format == VarintFormat::kInt64 || format == VarintFormat::kUInt64 ||
         format == VarintFormat::kSInt64;
}
// A delta format's gaps' format (the values it sums): uint32, uint64 or sint64; `format` itself
// for the others.
constexpr VarintFormat GapFormat(VarintFormat format) {
  return format == VarintFormat::kDeltaUInt32   ? VarintFormat::kUInt32
         : format == VarintFormat::kDeltaUInt64 ? VarintFormat::kUInt64
         : format == VarintFormat::kDeltaSInt64 ? VarintFormat::kSInt64
                                                : format;
}
// Whether a format is a delta format (its values the running sums of its gaps).
constexpr bool IsDeltaFormat(VarintFormat format) { return GapFormat(format) != format; }
constexpr int BoundedTinyPayloadBytes(VarintFormat format) {
  return Is64BitFormat(format) ? 128 : 64;
}

// A kernel may also have a window decoder, for callers that can offer the bounded decoder's sizes
// the tiny one's kind of slack (generated parsers, and the span forms given a buffer end: a message
// read whole, whose bytes past a payload the caller vouches for). Without masked loads, reading a
// payload of up to 64 bytes as one 64-byte window beats reading it exactly (docs/kernels.md, "The
// window decoder"). A kernel with one offers kWindowSpareValues in bounded_tiny_spare_values. A
// kernel whose bounded decoder reads exactly as fast may give that (avx512):
//
//   int decode_window(const uint8_t* p, const uint8_t* end, void* out, int room);
//
//   REQUIRES: 1 <= end - p <= kWindowPayloadBytes; kWindowReadableBytes bytes readable from p
//             (those past `end` are read and ignored); room >= (end - p) + kWindowSpareValues, the
//             values of room at `out`. Non-delta formats only (the delta formats' entries are
//             null).
//   Writes:   only out[0, room): the values to out[0, result), whole groups of slots past them.
//   Returns:  as decode_tiny: the number of values; kTinyMalformed if the payload ends inside a
//             varint; kTinyUnhandled, having written nothing the caller may rely on, if a varint is
//             longer than the decoder takes (the caller decodes such a payload another way).
inline constexpr int kWindowPayloadBytes = 64;
inline constexpr int kWindowReadableBytes = 64;
inline constexpr int kWindowSpareValues = 8;

// Encoded sizes: the bytes n values take as varints, with protobuf's rules (a negative int32 takes
// 10 bytes, as its int64 sign extension; sint types are zigzag-encoded first). int64 uses kUInt64
// on the same bits, enum uses kInt32, bool is one byte each.
//
//   size_t encoded_size(const void* values, size_t n);   // values: n elements of the input type
enum class SizeFormat : uint8_t {
  kUInt32 = 0,  // const uint32_t*
  kInt32 = 1,   // const int32_t*
  kSInt32 = 2,  // const int32_t*
  kUInt64 = 3,  // const uint64_t*
  kSInt64 = 4,  // const int64_t*
};
inline constexpr int kNumSizeFormats = 5;
using SizeFn = size_t (*)(const void* values, size_t n);

// One kernel: its name (= its file stem = its PBACCEL_KERNEL value; a split of two kernels by
// format, lib/kernel_registry.cc's avx512_bmi2, has none) and its functions.
struct KernelDescriptor {
  const char* name;
  const char* summary;  // One line: the technique, and which inputs take which path.
  CountFn count_terminators;
  DecodeFn decode[kNumVarintFormats][2];  // [format][0 = lenient, 1 = strict]
  SizeFn encoded_size[kNumSizeFormats];
  TinyDecodeFn decode_tiny[kNumVarintFormats];  // [format]
  // [format]; null where the kernel has none (every entry, for kernels without one).
  TinyDecodeFn decode_tiny_bounded[kNumVarintFormats];
  // Payloads shorter than this are decoded by the public API's inline loop instead of this
  // kernel, because the kernel's setup costs more than it saves on them (per kernel, from
  // measurements in docs/kernels.md; kDefaultInlineBelowBytes unless the kernel says otherwise).
  uint32_t inline_below_bytes;
  // Whether generated parsers (lib/generated_parser.cc) hand packed payloads of up to
  // gen::kShortPackedBytes straight to this kernel, writing into the field's spare capacity
  // (true), or decode them with their own SSE2 loop (false): whichever measured the faster on
  // the real packed fields of testing/data (docs/kernels.md, "Size thresholds").
  bool short_payloads_direct;
  // Values of room past a payload's bytes its bounded tiny decoder can put to use (0: it writes
  // only the values; at most kBoundedTinySpareValues): what a caller with room to spare offers.
  uint32_t bounded_tiny_spare_values;
  // [format]; null where the kernel has none (every entry, for kernels without one).
  TinyDecodeFn decode_window[kNumVarintFormats];

  DecodeFn Decoder(VarintFormat format, bool strict) const {
    return decode[static_cast<int>(format)][strict ? 1 : 0];
  }
  SizeFn Sizer(SizeFormat format) const { return encoded_size[static_cast<int>(format)]; }
  TinyDecodeFn TinyDecoder(VarintFormat format) const {
    return decode_tiny[static_cast<int>(format)];
  }
  TinyDecodeFn BoundedTinyDecoder(VarintFormat format) const {
    return decode_tiny_bounded[static_cast<int>(format)];
  }
  TinyDecodeFn WindowDecoder(VarintFormat format) const {
    return decode_window[static_cast<int>(format)];
  }
  // The bounded tiny decoder on [p, end) into `out` (room for `cap` values), when the payload is
  // at most BoundedTinyPayloadBytes(format) and the kernel has one for `format`: its result
  // (values, or kTinyMalformed / kTinyUnhandled); else kTinyUnhandled, nothing read or written.
  int DecodeTinyBounded(VarintFormat format, const uint8_t* p, const uint8_t* end, void* out,
                        size_t cap) const {
    if (end - p > BoundedTinyPayloadBytes(format)) return kTinyUnhandled;
    const TinyDecodeFn tiny = BoundedTinyDecoder(format);
    if (tiny == nullptr) return kTinyUnhandled;
    const size_t most = static_cast<size_t>(kBoundedTinyPayloadBytes);
    return tiny(p, end, out, static_cast<int>(cap < most ? cap : most));
  }
};

// When a decode with cap == count_terminators() returns kOutputFull, the bytes [pos, end) hold no
// terminator: the payload ends inside a varint. This names the error as a byte-at-a-time reader
// meets it: ten or more continuation bytes make a varint too long before the payload runs out.
inline DecodeStatus ClassifyUnterminatedTail(const uint8_t* pos, const uint8_t* end) {
  return end - pos >= 10 ? DecodeStatus::kTooLong : DecodeStatus::kTruncated;
}

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_KERNEL_ABI_H_
