// Copyright 2026 The pbaccel Authors.
//
// masked_vbyte: the Masked VByte decoder (masked_vbyte-inl.h, which documents the algorithm, its
// bounds and its errors) compiled for SSE4.1: the choice on x86-64 CPUs without AVX2 and fast
// PEXT. masked_vbyte_avx2.cc compiles the same decoder for AVX2, for 32-bit payloads of long
// varints. Short payloads of one- and two-byte varints take 16-byte steps, 64-bit ones of varints
// of up to five bytes 32-bit lanes (short_payloads_sse41-inl.h, varint_lanes_sse41-inl.h);
// measurements in docs/kernels.md.

#include <smmintrin.h>

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

// The decoder, on the building blocks above.
#include "parsers/masked_vbyte-inl.h"

// 64-bit fields' varints of at most five bytes in 32-bit lanes, for short payloads.
#include "parsers/varint_lanes-inl.h"
#include "parsers/varint_lanes_sse41-inl.h"

#include "parsers/two_byte_lanes-inl.h"

// Uses two_byte_lanes-inl.h.
#include "parsers/two_byte_steps_sse41-inl.h"

// decode_tiny, decode_tiny_bounded and decode_window from the steps and lanes above.
#include "parsers/short_payloads_sse41-inl.h"

}  // namespace

extern const KernelDescriptor kMaskedVbyteKernel;
const KernelDescriptor kMaskedVbyteKernel =
    MakeKernelDescriptor<DeltaAfterGaps<MaskedVByteDecoder>::Decoder, SseSizer,
                         TwoByteTinyDecoderSse41, TwoByteBoundedTinyDecoderSse41,
                         WindowDecoderSse41>(
        "masked_vbyte",
        "SSE4.1 Masked VByte: 12-byte masks index a 4096-entry table of pshufb shapes (8x1-2, "
        "4x1-3, 2x1-5 bytes; lenient 32-bit fields: 8x1-2 or 4x1-10, and 3x5 by a fixed control); "
        "16 one-byte varints per step; 64-bit fields: pairs of 1-10-byte varints by length-indexed "
        "shuffles; other 6-10-byte varints on an in-kernel long path; short payloads of 1-2-byte "
        "varints in 16-byte steps, of 64-bit fields' 1-5-byte ones in 32-bit lanes",
        &CountTerminators);

}  // namespace internal
}  // namespace pbaccel
