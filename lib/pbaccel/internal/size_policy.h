// Copyright 2026 The pbaccel Authors.
//
// size_policy.h: every choice pbaccel makes by size, in one place: which way a packed varint
// payload is decoded, and which fields and messages the reflection walk takes from upstream's
// parser. Each threshold states its reason here; the measurements behind it are in
// docs/kernels.md, "Size thresholds". Call sites ask the functions below and hold no size constant
// of their own.
//
// A packed varint payload's ways, by who asks (kernel = the active kernel,
// pbaccel/internal/kernel_abi.h):
//
//   generated parser (gen::ParsePacked*)          public API (packed_varint.h, packed_view.h)
//   ------------------------------------          -------------------------------------------
//   1..16 bytes, 24 readable: decode_tiny          span with a buffer end, lenient: 32-bit or
//                                                    bool, 1..16 bytes, 24 readable, room for
//                                                    16: decode_tiny; then (64-bit: first) up
//                                                    to 64 bytes, 64 readable, room for a value
//                                                    per byte and 8: decode_window
//                                                  span, view and RepeatedField (its spare
//                                                    capacity, or a value per byte), lenient,
//                                                    up to 64 bytes (128 for 64-bit types):
//   up to 128 bytes (ParseShortPacked):              decode_tiny_bounded
//     up to 64 bytes, 64 readable: decode_window   below inline_below_bytes: the portable loop
//     else 17 bytes and more: decode_tiny_bounded
//     then the kernel straight into spare          else: the kernel (RepeatedField: count,
//       capacity if short_payloads_direct            reserve once, decode)
//     else the SSE2 loop (DecodeShort)
//   longer: the public API
//
// (Each tiny decoder may decline a payload, and the next way on the list takes it; a kernel
// without a window decoder leaves those payloads to the bounded one.) The tiny and window
// decoders' sizes (kTinyPayloadBytes, kTinyReadableBytes, BoundedTinyPayloadBytes,
// kWindowPayloadBytes, kWindowReadableBytes) are the kernel ABI's contract, not tuning. The
// per-kernel tuning is data in each kernel's descriptor (inline_below_bytes,
// short_payloads_direct), measured per kernel; these functions read it.

#ifndef PBACCEL_INTERNAL_SIZE_POLICY_H_
#define PBACCEL_INTERNAL_SIZE_POLICY_H_

#include <cstddef>
#include <cstdint>

#include "absl/base/optimization.h"
#include "pbaccel/internal/kernel_abi.h"

namespace pbaccel {
namespace internal {

// --- Packed varint payloads: generated parsers ------------------------------------------------

// Payloads up to this size take the generated parsers' short paths (values decoded straight into
// the field's spare capacity, reserved once for one value per byte: no count pass, no status);
// longer ones the public API, whose count pass and status then cost little against the payload.
inline constexpr size_t kShortPackedBytes = 128;

// The room a short payload of `bytes` bytes (at most kShortPackedBytes) is decoded into at the end
// of a RepeatedField, on the generated parsers' short path (ParseShortPacked) and in the public
// API's appends (packed_varint.cc's AppendBoundedTiny) alike: one value per byte and
// `spare_values` more (the kernel's bounded_tiny_spare_values: its short-payload decoders store
// whole groups there), at least kTinyPayloadBytes. A field with less spare capacity reserves the
// room first, once: a reused field keeps it. So does an empty field, whose capacity is not 0 from
// protobuf 30 on: it holds up to 8 bytes of values inline (RepeatedField's "small object
// optimization": Capacity() is 1 for 64-bit values, 2 for 32-bit ones), room the decoders cannot
// use.
inline int ShortPayloadRoom(size_t bytes, uint32_t spare_values) {
  const int room = static_cast<int>(bytes) + static_cast<int>(spare_values);
  return room < kTinyPayloadBytes ? kTinyPayloadBytes : room;
}

// Whether a generated parser gives a payload of `bytes` bytes, with `readable` bytes of the input
// readable from its first byte, to the kernel's decode_tiny (which reads past the payload).
// (The input almost always goes on that far: a payload at the very end of a message is rare.)
inline bool TakesTinyDecoder(size_t bytes, ptrdiff_t readable) {
  return bytes - 1 < static_cast<size_t>(kTinyPayloadBytes) &&
         ABSL_PREDICT_TRUE(readable >= kTinyReadableBytes);
}

// Whether a generated parser's payload of `bytes` bytes takes the short paths (ParseShortPacked).
inline bool TakesShortPath(size_t bytes) { return bytes <= kShortPackedBytes; }

// On the short path (and the columnar decoder's, which follows it): whether a payload of `bytes`
// bytes, with `readable` bytes of the input from its first byte, goes to the kernel's window
// decoder, where it has one, instead of the bounded
// tiny decoder (a tiny one was offered decode_tiny already). The room is there: a kernel with a
// window decoder offers kWindowSpareValues (bounded_tiny_spare_values). Reused OSM and tiles read
// 2-5 % faster so on bmi2 and masked_vbyte_avx2 (docs/kernels.md, "The window decoder").
inline bool ShortTakesWindowDecoder(size_t bytes, ptrdiff_t readable) {
  return bytes <= static_cast<size_t>(kWindowPayloadBytes) &&
         ABSL_PREDICT_TRUE(readable >= kWindowReadableBytes);
}

// On the short path: whether a payload of `bytes` bytes is offered to the kernel's bounded tiny
// decoder first (a tiny one was offered decode_tiny already), where the window decoder did not
// take it.
inline bool ShortTriesBoundedTiny(size_t bytes) {
  return bytes > static_cast<size_t>(kTinyPayloadBytes);
}

// On the short path, after the tiny decoders: whether the kernel decodes the payload itself (it
// measured the faster on the real packed fields: short_payloads_direct), or the generated parsers'
// SSE2 loop does. A tiny payload that decode_tiny declined always takes the loop.
inline bool ShortGoesToKernel(const KernelDescriptor& kernel, size_t bytes) {
  return kernel.short_payloads_direct && bytes > static_cast<size_t>(kTinyPayloadBytes);
}

// --- Packed varint payloads: the public API ---------------------------------------------------

// Whether a decode into a caller's span whose caller vouches for the bytes up to `readable` from
// the payload's first byte (the span forms taking a buffer end) offers the payload to the kernel's
// decode_tiny, as the generated parsers do (TakesTinyDecoder), before the bounded one: lenient
// decodes into a span of at least kTinyPayloadBytes values (decode_tiny may store that many), of a
// 32-bit or bool format (64-bit ones take the window decoder or none, below). Without AVX-512's
// masked loads the bounded decoder pays for not reading past the payload: tiles' zero-copy read
// about 10 % faster on bmi2 and masked_vbyte_avx2 (2 % slower on avx512, whose two decoders are the
// same steps). Measurements: docs/kernels.md.
inline bool SpanTakesTinyDecoder(size_t bytes, ptrdiff_t readable, size_t room, bool strict) {
  return !strict && room >= static_cast<size_t>(kTinyPayloadBytes) &&
         TakesTinyDecoder(bytes, readable);
}

// Whether a span decode given a buffer end offers a payload of `bytes` bytes, with `readable`
// bytes of the buffer from its first byte, to the kernel's window decoder: lenient decodes of up to
// kWindowPayloadBytes into room for a value per byte and kWindowSpareValues more (the window
// decoder's contract). 64-bit formats ask it before any other way: every payload of OSM's refs
// takes one path, where the tiny decoder's size test mispredicted on them (half are under 16
// bytes); 32-bit and bool ones after decode_tiny, which the tiles' payloads of up to 16 bytes read
// faster. On bmi2 and masked_vbyte_avx2: zero-copy OSM read about 4 % faster and tiles 3-5 % on
// testing/data, in every code placement measured (docs/kernels.md, "The window decoder").
// masked_vbyte (SSE4.1) gained one later, with its 64-bit lanes (docs/speed.md, "x86-64 without
// AVX2").
inline bool SpanTakesWindowDecoder(size_t bytes, ptrdiff_t readable, size_t room, bool strict) {
  return !strict && bytes - 1 < static_cast<size_t>(kWindowPayloadBytes) &&
         ABSL_PREDICT_TRUE(readable >= kWindowReadableBytes) &&
         room >= bytes + static_cast<size_t>(kWindowSpareValues);
}

// Whether the public API first offers a payload of `bytes` bytes to the kernel's bounded tiny
// decoder: lenient decodes of payloads it may take, into a caller's span, a PackedView chunk, or
// a RepeatedField. An append to a field does so without its count pass, into ShortPayloadRoom
// (packed_varint.cc's AppendBoundedTiny); for longer payloads the count pass costs little against
// the decode, and it reserves exactly.
inline bool ApiTriesBoundedTiny(VarintFormat format, size_t bytes, bool strict) {
  return !strict && bytes <= static_cast<size_t>(BoundedTinyPayloadBytes(format));
}

// Whether the public API decodes a payload of `bytes` bytes with its portable per-varint loop
// instead of the kernel, whose setup would cost more than it saves.
inline bool TakesPortableLoop(const KernelDescriptor& kernel, size_t bytes) {
  return bytes < kernel.inline_below_bytes;
}

// --- The reflection walk (message_parser.cc) --------------------------------------------------

// Whole messages shorter than pbaccel::kSmallMessageBytes (512, public in message_parser.h: the
// gRPC switch and callers use it) are parsed by upstream's parser in one call, without walking
// their fields: the walk and its hand-overs cost more than kernels save on the packed fields such
// a message can hold.

// Whether the walk takes a submessage of `bytes` bytes (else it stays inline with upstream's
// parser: whatever packed field fits inside is too small to repay leaving that parser).
inline bool WalkTakesSubmessage(size_t bytes) { return bytes >= 128; }

// Whether the walk takes a packed field of `bytes` bytes: taking one costs a hand-over of the
// fields before it to upstream plus a reflection lookup, which a kernel earns back only from about
// 64 bytes on.
inline bool WalkTakesPackedField(size_t bytes) { return bytes >= 64; }

// A message whose first length-delimited fields are all too small to take (a profile's thousands
// of samples) is walked only for this many of them; then the rest of it goes to upstream in one
// hand-over, unread, as the walk would have handed it over field by field anyway. A message in
// which the walk took a field is walked to its end (an OSM group's ways, some long).
inline constexpr int kSmallFieldsBeforeHandOver = 128;

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_SIZE_POLICY_H_
