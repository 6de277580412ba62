// Copyright 2026 The pbaccel Authors.
//
// bmi2: packed varints with BMI2 PEXT, after Liao et al., "SFVInt: Simple, Fast and Generic
// Variable-Length Integer Decoding using Bit Manipulation Instructions" (DaMoN'24), with AVX2 for
// the fan-out.
//
// The payload is walked in fixed steps of 8 bytes (the paper used 6: 6, 7 and 8 measured,
// docs/kernels.md), so the next load never waits for decoding. The steps' table and fan-out are
// parsers/step8_avx2-inl.h's, the loop over them parsers/step_loop_avx2-inl.h's, the short-payload
// decoders parsers/short_payloads_avx2-inl.h's, all shared with masked_vbyte_avx2; PEXT is what
// this kernel brings (Bmi2Bits):
//   * PEXT of the 64-bit word with the continuation-bit mask gives the step's pattern (one bit per
//     byte, set = another byte follows);
//   * the pattern indexes a table generated at compile time (kStepRecipes) holding, for each of
//     the up to eight varints ending in the step, the two shifts that cut its 7-bit groups out
//     (step8_avx2-inl.h's StepRecipe);
//   * where the paper extracts each varint with its own PEXT, this kernel packs the whole step's
//     payload bits with ONE PEXT (mask 0x7F per byte: byte i's group lands at bit 7i) and cuts the
//     values out of that with AVX2 variable shifts, eight slots at once in two vectors of 64-bit
//     lanes, each value by two shifts (its top bit up to bit 63, then down to bit 0), the step's
//     first value (the one continued from the step before) blended into lane 0; stored whole (the
//     `count` real ones are kept, the rest are overwritten by the next step). 32-bit outputs take
//     the lanes' low halves, zigzag is decoded in the vectors, bool is value != 0 per slot spread
//     to bytes with PDEP. Strict mode cuts the slots with the same two shifts in scalar registers
//     instead (it needs per-value work), and so does strict delta, summing them there;
//   * first and every 128 steps (lenient formats), where no varint is open, runs of 64
//     bytes without a continuation bit are widened straight to 64 slots (bool: min(byte, 1)), as
//     small values and bools come (the steps' eight slots per 8 bytes are the slow way to copy
//     them), and runs of 64 bytes whose varints are all one or two bytes take 16-byte steps
//     (two_byte_steps_avx2-inl.h);
//   * a varint crossing into the next step leaves its bits and its byte count in an OpenVarint;
//     the next step's first varint is those bits | (its bits << 7 * bytes).
//     A varint longer than a step (up to 10 bytes, every negative int32) simply accumulates
//     across steps: the same code path, no special case.
// Validation is part of the step: the table also holds the first varint's length (in bits, as the
// open varint's is kept), so "does the varint that ends (or continues) here exceed 10 bytes" is
// one compare of the open bits plus that length, a branch that is never taken on valid input.
// Strict mode checks the kept values' ranges the same way. When either fires, the bounded scalar
// reader redoes the step from the start of its first varint and names the error. zigzag and bool
// are fused into the vector store. Lenient delta decodes its gaps as uint32 / uint64 and sums each
// stretch of them after (running_sums-inl.h's SumsAfterGaps: faster than the sums fused
// into the scalar stores, docs/kernels.md, "Delta formats: the gaps, then their sums").
//
// Short payloads (the generated parsers' tiny and short fields, decode_tiny and decode_tiny_bounded
// in kernel_abi.h) take the same steps whole (step8_avx2-inl.h's WholeSteps): the payload's
// continuation bits are looked at once up front, so a fixed number of steps - two for 16 bytes, up
// to eight for 64 - runs with no bounds, no one-byte run check, no scalar tail and no branch on the
// values, bytes past the payload turned into continuation bytes that end no varint. Payloads whose
// varints are all one or two bytes take 16-byte steps instead (two_byte_steps_avx2-inl.h).
//
// The measurements behind these choices are in docs/kernels.md.
//
// Bounds: the block decoder's are the step loop's (step_loop_avx2-inl.h); the short-payload
// decoders keep kernel_abi.h's contract for decode_tiny and decode_tiny_bounded.

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "parsers/kernel_probes.h"
#include "pbaccel/internal/kernel_abi.h"

namespace pbaccel {
namespace internal {
namespace {

// The word-at-a-time read of one varint (varint_scalar-inl.h builds on it).
#include "pbaccel/internal/varint_word-inl.h"

#include "parsers/varint_format-inl.h"
#include "parsers/varint_scalar-inl.h"
#include "parsers/varint_size-inl.h"

// Uses varint_format-inl.h.
#include "parsers/store8x32_avx2-inl.h"

// Uses all of the above.
#include "parsers/step8_avx2-inl.h"

#include "parsers/two_byte_lanes-inl.h"

// The 16-byte steps over one- and two-byte varints (their AVX2 lanes: below).
#include "parsers/two_byte_steps_sse41-inl.h"

// Uses two_byte_lanes-inl.h, two_byte_steps_sse41-inl.h and step8_avx2-inl.h.
#include "parsers/two_byte_steps_avx2-inl.h"

// 64-bit fields' varints of at most four or five bytes in 32-bit lanes: windows and short
// payloads.
#include "parsers/varint_lanes-inl.h"
#include "parsers/varint_lanes_avx2-inl.h"

// decode_tiny and decode_tiny_bounded, from both kinds of steps.
#include "parsers/short_payloads_avx2-inl.h"

// The step's pattern, payload bits, low bits (the first varint's too) and bool spread by BMI2
// (step8_avx2-inl.h's Bits).
struct Bmi2Bits {
  static uint64_t Pattern(uint64_t w) { return _pext_u64(w, kContinuationMask); }
  static uint64_t Payload(uint64_t w) { return _pext_u64(w, kPayloadMask); }
  static uint64_t LowBits(uint64_t x, unsigned n) { return _bzhi_u64(x, n); }
  static uint64_t FirstBits(uint64_t packed, const StepRecipe& s) {
    return _bzhi_u64(packed, s.first_bits);
  }
  static uint64_t SpreadBits8(uint64_t b) { return _pdep_u64(b, 0x0101010101010101ull); }
};

// The block decoder: the steps above, looped (step_loop_avx2-inl.h).
#include "parsers/step_loop_avx2-inl.h"

template <VarintFormat F, bool kStrict>
using Bmi2Decoder = StepLoop<Bmi2Bits>::Decoder<F, kStrict>;

template <VarintFormat F>
using Bmi2TinyDecoder = WholeStepTiny<Bmi2Bits>::Decoder<F>;
template <VarintFormat F>
using Bmi2BoundedTinyDecoder = WholeStepBoundedTiny<Bmi2Bits, Bmi2Decoder>::Decoder<F>;
template <VarintFormat F>
using Bmi2WindowDecoder = WholeStepWindow<Bmi2Bits>::Decoder<F>;

size_t CountTerminatorsPopcnt(const uint8_t* p, const uint8_t* end) {
  const uint8_t* const begin = p;
  size_t count = 0;
  // 64 bytes at a time with AVX2: two masks combined, one popcount.
  for (; end - p >= 64; p += 64) count += static_cast<size_t>(_mm_popcnt_u64(~HighBitsOf64(p)));
  for (; end - p >= 8; p += 8) {
    count += static_cast<size_t>(_mm_popcnt_u64(~LoadLittleEndian64(p) & kHighBits));
  }
  const size_t rem = static_cast<size_t>(end - p);
  if (rem != 0 && end - begin >= 8) {
    // The payload's last 8 bytes, of which the top `rem` are not counted yet.
    const uint64_t last = ~LoadLittleEndian64(end - 8) & kHighBits;
    return count + static_cast<size_t>(_mm_popcnt_u64(last >> (8 * (8 - rem))));
  }
  for (; p < end; ++p) count += *p < 0x80;
  return count;
}

}  // namespace

extern const KernelDescriptor kBmi2Kernel;
const KernelDescriptor kBmi2Kernel = MakeKernelDescriptor<
    DeltaAfterGaps<Bmi2Decoder>::Decoder, ScalarSizer, Bmi2TinyDecoder, Bmi2BoundedTinyDecoder,
    Bmi2WindowDecoder>(
    "bmi2",
    "BMI2 SFVInt: fixed 8-byte steps, PEXT of the continuation bits indexes a compile-time table "
    "of bit fields, one PEXT packs the step's payload, AVX2 shifts cut 8 slots; varints up to 10 "
    "bytes accumulate across steps",
    &CountTerminatorsPopcnt, kDefaultInlineBelowBytes,
    // Generated parsers' short fields (up to 128 bytes): the kernel beat their SSE2 loop on each
    // kind of real field (docs/kernels.md, "Size thresholds").
    /*short_payloads_direct=*/true);

}  // namespace internal
}  // namespace pbaccel
