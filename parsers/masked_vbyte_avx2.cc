// Copyright 2026 The pbaccel Authors.
//
// masked_vbyte_avx2: bmi2's decoders without BMI2, for AVX2 CPUs that run PEXT in microcode (AMD
// Excavator, Zen 1/2), with the Masked VByte decoder (masked_vbyte-inl.h, which documents the
// algorithm, its bounds, its errors and what AVX2 changes) for the 32-bit payloads it decodes
// faster. Results are identical to masked_vbyte's; lib/kernel_registry.cc says on which CPUs it is
// chosen.
//
// The block decoder is bmi2's step loop (step_loop_avx2-inl.h) with PortableBits: a step's pattern
// found by a movemask, its payload bits packed by SSSE3/SSE2 multiply-adds and shifts. A payload of
// a 32-bit format of 256 bytes or more whose first 64 bytes hold at most 14 varint ends, none over
// five bytes (mostly five-byte varints: uniform 32-bit values, hashes), takes Masked VByte instead,
// whose step of three five-byte varints beats the 8-byte steps there; every other payload (real
// messages' 1-3-byte values) decodes faster in the steps (docs/kernels.md). Both take 64-byte
// windows of one- and two-byte varints in 16-byte steps (two_byte_steps_avx2-inl.h).
//
// Its tiny and bounded tiny decoders (short packed fields) are bmi2's (short_payloads_avx2-inl.h:
// whole 16-byte steps for one- and two-byte varints, whole 8-byte steps otherwise) on the same
// PortableBits; what the bounded one leaves goes to the block decoder.

#include <immintrin.h>

#include <algorithm>
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

#include "parsers/masked_vbyte_tables-inl.h"
#include "parsers/varint_format-inl.h"
#include "parsers/varint_scalar-inl.h"
#include "parsers/varint_size-inl.h"

// Uses varint_format-inl.h.
#include "parsers/store8x32_avx2-inl.h"

// Whole 8-byte steps without BMI2 (PortableBits), and the 16-byte steps built on them.
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

// The decoder, on the building blocks above.
#include "parsers/masked_vbyte-inl.h"

// The step loop, with PortableBits.
#include "parsers/step_loop_avx2-inl.h"

// A 32-bit payload of at least this many bytes is sampled for Masked VByte (its first 64 bytes'
// continuation bits). Shorter ones take the steps unsampled: on them the sample costs more than
// Masked VByte's lead gives back (docs/kernels.md).
constexpr ptrdiff_t kSampledFromBytes = 256;
// At most this many ends in the sample, and no varint over five bytes in it (mostly five-byte
// varints: 4.6 or more bytes a value), take Masked VByte. Without the second test, payloads of
// small values and ten-byte negative int32s went there too, which the steps decode faster
// (docs/kernels.md).
constexpr int kMaskedVByteMaxEnds = 14;

// Whether the 64 bytes at p hold at most kMaskedVByteMaxEnds varint ends and no run of five
// continuation bits (a varint of six bytes or more).
inline bool MostlyFiveByteVarints(const uint8_t* p) {
  const uint64_t c = HighBitsOf64(p);  // Bit i: byte i continues its varint.
  const uint64_t over_five_bytes = c & (c >> 1) & (c >> 2) & (c >> 3) & (c >> 4);
  return __builtin_popcountll(~c) <= kMaskedVByteMaxEnds && over_five_bytes == 0;
}

// The block decoder: the step loop, but Masked VByte for a 32-bit format's payload of long varints.
template <VarintFormat F, bool kStrict>
struct MaskedVbyteAvx2Decoder {
  static DecodeResult Run(const uint8_t* p, const uint8_t* end, void* out, size_t cap,
                          uint64_t delta_base) {
    if constexpr (!k64Bit<F> && F != VarintFormat::kBool) {
      if (end - p >= kSampledFromBytes && MostlyFiveByteVarints(p)) {
        return MaskedVByteDecoder<F, kStrict>::Run(p, end, out, cap, delta_base);
      }
    }
    return StepLoop<PortableBits>::Decoder<F, kStrict>::Run(p, end, out, cap, delta_base);
  }
};

// decode_tiny and decode_tiny_bounded, from both kinds of steps.
#include "parsers/short_payloads_avx2-inl.h"

template <VarintFormat F>
using WholeStepTinyDecoder = WholeStepTiny<PortableBits>::Decoder<F>;
template <VarintFormat F>
using WholeStepBoundedTinyDecoder =
    WholeStepBoundedTiny<PortableBits, MaskedVbyteAvx2Decoder>::Decoder<F>;
template <VarintFormat F>
using WholeStepWindowDecoder = WholeStepWindow<PortableBits>::Decoder<F>;

}  // namespace

extern const KernelDescriptor kMaskedVbyteAvx2Kernel;
const KernelDescriptor kMaskedVbyteAvx2Kernel = MakeKernelDescriptor<
    DeltaAfterGaps<MaskedVbyteAvx2Decoder>::Decoder, SseSizer, WholeStepTinyDecoder,
    WholeStepBoundedTinyDecoder, WholeStepWindowDecoder>(
    "masked_vbyte_avx2",
    "bmi2's 8-byte steps with PEXT replaced by multiply-adds and masks, for every format; 32-bit "
    "payloads of 256+ bytes of mostly 5-byte varints (first 64 bytes: at most 14 ends, none over "
    "5 bytes) in AVX2 Masked VByte (12-byte masks, 4096-entry pshufb table, 3x5 steps, 256-bit "
    "mask gathering)",
    &CountTerminators, kDefaultInlineBelowBytes,
    // Generated parsers' short fields (up to 128 bytes) that the bounded tiny decoder leaves: the
    // kernel beat their SSE2 loop on tiles (docs/kernels.md, "Size thresholds").
    /*short_payloads_direct=*/true);

}  // namespace internal
}  // namespace pbaccel
