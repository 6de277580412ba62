// Copyright 2026 The pbaccel Authors.
//
// neon: packed varints on ARM64's Advanced SIMD (NEON, baseline on every AArch64 CPU), in the
// Masked VByte spirit: neon_decoder-inl.h holds the decoder and documents it.

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "parsers/kernel_probes.h"
#include "pbaccel/internal/kernel_abi.h"

namespace pbaccel {
namespace internal {
namespace {

#include "parsers/neon_decoder-inl.h"

}  // namespace

extern const KernelDescriptor kNeonKernel;
const KernelDescriptor kNeonKernel =
    MakeKernelDescriptor<NeonDecoder, ScalarSizer, NeonTinyDecoder, NeonBoundedTinyDecoder>(
        "neon",
        "NEON Masked VByte: 12-bit continuation masks index the masked_vbyte shape table, one TBL "
        "shuffle and SLI joins per step (8x1-2, 4x1-3, 2x1-5 bytes); 16 one-byte varints per step; "
        "windows and short payloads of one- and two-byte varints in 16-byte steps (TBL gathers); "
        "6-10-byte varints word at a time; tails under 16 bytes byte by byte",
        &NeonCountTerminators);

}  // namespace internal
}  // namespace pbaccel
