// Copyright 2026 The pbaccel Authors.
//
// masked_vbyte_avx2: the Masked VByte decoder (masked_vbyte-inl.h, which documents the algorithm,
// its bounds, its errors and what AVX2 changes) compiled for AVX2 for 32-bit and bool formats: the
// same steps and tables, with 256-bit mask gathering, one-byte widening and 32-bit stores. 64-bit
// formats take bmi2's step loop instead (step_loop_avx2-inl.h), without BMI2 (PortableBits):
// OSM's sint64 dense nodes and way refs, pprof's uint64 ids, mostly one to four bytes a value,
// decoded faster there, in about as many instructions (docs/kernels.md). Results are identical to
// masked_vbyte's; lib/kernel_registry.cc says on which CPUs it is chosen.
//
// Its tiny and bounded tiny decoders (short packed fields) are bmi2's (short_payloads_avx2-inl.h:
// whole 16-byte steps for one- and two-byte varints, whole 8-byte steps otherwise) without BMI2:
// PortableBits finds a step's pattern by a movemask and packs its payload bits by SSSE3/SSE2
// multiply-adds and shifts, as the CPUs this kernel is for (AMD Zen 1/2) run PEXT in microcode.
// What they leave goes to the block decoder, whose Masked VByte walk and step loop take 64-byte
// windows of one- and two-byte varints in the same 16-byte steps.

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

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

// The decoder, on the building blocks above.
#include "parsers/masked_vbyte-inl.h"

// The step loop (of 64-bit formats), with PortableBits.
#include "parsers/step_loop_avx2-inl.h"

// The block decoder: the step loop for 64-bit formats, Masked VByte for the others.
template <VarintFormat F, bool kStrict>
using MaskedVbyteAvx2Decoder =
    std::conditional_t<k64Bit<F>, StepLoop<PortableBits>::Decoder<F, kStrict>,
                       MaskedVByteDecoder<F, kStrict>>;

// decode_tiny and decode_tiny_bounded, from both kinds of steps.
#include "parsers/short_payloads_avx2-inl.h"

template <VarintFormat F>
using WholeStepTinyDecoder = WholeStepTiny<PortableBits>::Decoder<F>;
template <VarintFormat F>
using WholeStepBoundedTinyDecoder =
    WholeStepBoundedTiny<PortableBits, MaskedVbyteAvx2Decoder>::Decoder<F>;

}  // namespace

extern const KernelDescriptor kMaskedVbyteAvx2Kernel;
const KernelDescriptor kMaskedVbyteAvx2Kernel = MakeKernelDescriptor<
    MaskedVbyteAvx2Decoder, SseSizer, WholeStepTinyDecoder, WholeStepBoundedTinyDecoder>(
    "masked_vbyte_avx2",
    "AVX2 Masked VByte: masked_vbyte's decoder (12-byte masks, 4096-entry pshufb table, 3x5 "
    "steps, in-kernel long path) with 256-bit mask gathering, one-byte runs widened 8 at a time "
    "and 8-slot stores, for 32-bit and bool fields; 64-bit fields in bmi2's 8-byte steps with "
    "PEXT replaced by multiply-adds and masks",
    &CountTerminators, kDefaultInlineBelowBytes,
    // Generated parsers' short fields (up to 128 bytes) that the bounded tiny decoder leaves: the
    // kernel beat their SSE2 loop on tiles (docs/kernels.md, "Size thresholds").
    /*short_payloads_direct=*/true);

}  // namespace internal
}  // namespace pbaccel
